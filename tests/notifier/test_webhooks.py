"""Webhook delivery end to end: the event store's outbox, the notifier, a real HTTP receiver."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from standardwebhooks.webhooks import Webhook

from services.notifier import manage
from services.notifier.tables import deliveries, endpoints

from .conftest import BASE_URL, seat_game
from .helpers import secret_of, subscribe


def test_turn_alert_is_signed_and_verifies(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    view = subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url())
    notifier = make_notifier()
    notifier.step()
    assert [r.json()["type"] for r in receiver.requests] == ["game.started"]  # Ann has the first turn
    receiver.requests.clear()

    table.turn("Bob")
    notifier.step()
    [req] = receiver.requests
    payload = Webhook(secret_of(view)).verify(req.body, req.headers)
    assert payload["type"] == "turn.started"
    data = payload["data"]
    assert data["game"] == {"id": str(table.game_id), "title": "1830", "link": f"{BASE_URL}/games/{table.game_id}"}
    assert data["round"] == "Stock Round 1" and data["phase"] == "2"
    assert data["acting_players"] == [{"id": table.pid("Bob"), "name": "Bob"}]
    assert req.headers["webhook-id"].startswith("msg_o")


def test_only_newly_active_players_are_alerted(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob", "Cy"])
    for name in ("Ann", "Bob", "Cy"):
        subscribe(engine, clock, table.pid(name), channel="webhook", url=receiver.url(f"/{name}"))
    notifier = make_notifier()
    notifier.step()
    receiver.requests.clear()
    table.turn("Ann", "Bob")  # Ann already had the turn: only Bob is told
    table.turn("Ann", "Bob")  # nothing new
    table.turn("Cy")
    notifier.step()
    assert [r.path for r in receiver.requests] == ["/Bob", "/Cy"]


def test_game_started_finished_mention_and_refusal(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"], start_with="Ann")
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url())
    notifier = make_notifier()
    # the keys `play` writes (shared/eventstore/outbox.py MessagePosted: the author under "from")
    table.outbox("message", {"text": "your move, Bob", "from": table.players["Ann"],
                             "mentions": [table.players["Bob"]]})
    table.outbox("action_refused", {"player_id": table.players["Bob"], "reason": "not enough cash"})
    table.outbox("game_finished", {"result": {"Ann": 100, "Bob": 90}})
    notifier.step()
    types = [r.json()["type"] for r in receiver.requests]
    assert types == ["game.started", "message.mentioned", "action.refused", "game.finished"]
    assert receiver.requests[1].json()["data"]["message"] == "your move, Bob"
    assert receiver.requests[2].json()["data"]["reason"] == "not enough cash"


def test_failing_receiver_gets_same_webhook_id_on_retry(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier()
    notifier.step()  # game_started, before anyone subscribed
    view = subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url())
    receiver.fail(500, 503, 502)
    table.turn("Bob")
    notifier.step()
    assert len(receiver.requests) == 1
    for wait in (6, 5 * 60 * 1.1, 30 * 60 * 1.1):  # the schedule: 5 s, 5 min, 30 min (with up to 10% jitter)
        notifier.step()
        before = len(receiver.requests)
        clock.advance(wait)
        notifier.step()
        assert len(receiver.requests) == before + 1
    assert len(receiver.requests) == 4
    ids = {r.headers["webhook-id"] for r in receiver.requests}
    assert len(ids) == 1
    assert len({r.body for r in receiver.requests}) == 1
    last = receiver.requests[-1]
    # verify against the library's signer at the attempt's own timestamp (the virtual time is 35 min ahead)
    expected = Webhook(secret_of(view)).sign(ids.pop(), clock.now().fromtimestamp(
        int(last.headers["webhook-timestamp"])), last.body.decode())
    assert expected in last.headers["webhook-signature"].split(" ")
    with engine.connect() as conn:
        row = conn.execute(sa.select(deliveries)).mappings().one()
        log = manage.get_delivery(conn, None, row["id"])
    assert row["status"] == "succeeded" and row["attempts"] == 4
    assert [a["status_code"] for a in log["attempt_log"]] == [500, 503, 502, 200]


def test_retry_schedule_spans_more_than_a_day(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier()
    notifier.step()  # game_started, before anyone subscribed
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url())
    receiver.fail(*([500] * 20))
    table.turn("Bob")
    start = clock.now()
    for _ in range(400):
        notifier.step()
        clock.advance(timedelta(minutes=15))
    with engine.connect() as conn:
        row = conn.execute(sa.select(deliveries).where(deliveries.c.event_type == "turn.started")).mappings().one()
    assert row["status"] == "failed" and row["attempts"] == 10
    assert len([r for r in receiver.requests if r.headers["webhook-id"] == row["webhook_id"]]) == 10
    assert clock.now() - start > timedelta(hours=24)


def test_410_disables_the_endpoint(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier()
    notifier.step()  # game_started, before anyone subscribed
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url())
    receiver.fail(410)
    table.turn("Bob")
    notifier.step()
    table.turn("Ann")
    table.turn("Bob")
    clock.advance(3600)
    notifier.step()
    assert len(receiver.requests) == 1
    with engine.connect() as conn:
        ep = conn.execute(sa.select(endpoints)).mappings().one()
        statuses = conn.execute(sa.select(deliveries.c.status)).scalars().all()
    assert ep["disabled_at"] is not None and "410" in ep["disabled_reason"]
    assert statuses == ["cancelled"]  # no new deliveries are scheduled for a disabled endpoint


def test_429_retry_after_is_honoured(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier()
    notifier.step()  # game_started, before anyone subscribed
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url())
    receiver.fail(429, headers={"Retry-After": "600"})
    table.turn("Bob")
    notifier.step()
    clock.advance(300)  # the schedule alone would have retried after 5 s
    notifier.step()
    assert len(receiver.requests) == 1
    clock.advance(301)
    notifier.step()
    assert len(receiver.requests) == 2


def test_rotated_secret_signs_with_both(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier()
    notifier.step()  # game_started, before anyone subscribed
    view = subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url())
    old = secret_of(view)
    with engine.begin() as conn:
        rotated = manage.rotate_secret(conn, table.pid("Bob"), view["endpoint"]["id"], clock.now(), timedelta(hours=24))
    new = rotated["secrets"][0]["secret"]
    assert new != old and len(rotated["secrets"]) == 2
    table.turn("Bob")
    notifier.step()
    req = receiver.requests[-1]
    assert len(req.headers["webhook-signature"].split(" ")) == 2
    Webhook(old).verify(req.body, req.headers)
    Webhook(new).verify(req.body, req.headers)


def test_discord_and_slack_shapes(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    subscribe(engine, clock, table.pid("Ann"), channel="webhook", url=receiver.url("/discord"), format="discord")
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url("/slack"), format="slack")
    notifier = make_notifier()
    notifier.step()
    receiver.requests.clear()
    table.turn("Bob")
    table.turn("Ann")
    notifier.step()
    by_path = {r.path: r.json() for r in receiver.requests}
    assert "Bob: it is your turn in game" in by_path["/slack"]["text"]
    assert f"<{BASE_URL}/games/{table.game_id}|Open the game>" in by_path["/slack"]["text"]
    assert by_path["/discord"]["content"].endswith(f"{BASE_URL}/games/{table.game_id}")
    assert by_path["/discord"]["allowed_mentions"] == {"parse": []}


def test_each_player_endpoint_gets_its_own_delivery(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    for name in ("Ann", "Bob"):
        subscribe(engine, clock, table.pid(name), channel="webhook", url=receiver.url("/group"), format="discord")
    notifier = make_notifier()
    notifier.step()  # endpoints belong to players: the same URL saved by two players is two endpoints
    with engine.connect() as conn:
        rows = conn.execute(sa.select(deliveries.c.event_type, deliveries.c.webhook_id)).all()
    assert sorted(t for t, _ in rows) == ["game.started", "game.started", "turn.started"]
    assert len({w for _, w in rows}) == 3


def test_manual_redeliver_sends_again_with_same_id(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier()
    notifier.step()  # game_started, before anyone subscribed
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url())
    table.turn("Bob")
    notifier.step()
    with engine.begin() as conn:
        delivery_id = conn.execute(sa.select(deliveries.c.id)).scalar_one()
        manage.redeliver(conn, table.pid("Bob"), delivery_id, clock.now())
    notifier.step()
    assert len(receiver.requests) == 2
    assert receiver.requests[0].headers["webhook-id"] == receiver.requests[1].headers["webhook-id"]

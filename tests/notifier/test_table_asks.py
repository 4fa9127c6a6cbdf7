"""The table is told (docs/time-controls.md): a vote at a deadline, an undo or redo request and a claim of an
open seat each append a typed `table_asks` outbox event in the transaction that records the decision
(services/play/pending.py, TableLog.append), and the notifier sends it as `table.asks` through the webhook
and email channels of exactly the players who must answer, signed as every other notification."""

from __future__ import annotations

import email
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from standardwebhooks.webhooks import Webhook

from services.play import handover
from services.play import timekeeping as tk
from services.play.pending import Pending
from services.play.scheduler import Scheduler
from services.play.sessions import SessionCache
from services.play.table_log import TableLog
from shared.eventstore.reader import outbox_table

from .conftest import seat_game
from .helpers import secret_of, subscribe
from .test_clock_reminders import NoDispatch

H = timedelta(hours=1)


def _asks(receiver: Any, path: str) -> list[dict[str, Any]]:
    return [r.json() for r in receiver.requests if r.path == path and r.json()["type"] == "table.asks"]


def test_a_deadline_vote_an_undo_request_and_a_seat_claim_reach_exactly_who_must_answer(
        recorder, engine, clock, receiver, smtp, make_notifier) -> None:
    inbox, port = smtp
    table = seat_game(recorder, ["Ann", "Bob", "Cy"], start_with="Bob")
    notifier = make_notifier(port, mail_batch_seconds=0)
    notifier.step()
    views = {name: subscribe(engine, clock, table.pid(name), channel="webhook", url=receiver.url(f"/{name}"))
             for name in ("Ann", "Bob")}
    subscribe(engine, clock, table.pid("Cy"), channel="email", email="cy@example.test")
    log = TableLog(engine)
    log.append(table.game_id, 0, tk.configure(tk.Table(), {"kind": "deadline", "per_move_hours": 10}, False,
                                              clock.now()))
    scheduler = Scheduler(recorder, log, NoDispatch(), timesource=clock)  # type: ignore[arg-type]
    scheduler.run_once()  # Bob's clock runs
    clock.advance(11 * H)  # ... out: no order, no pass, so the table votes
    scheduler.run_once()
    assert tk.Table.replay(log.read(table.game_id)).vote is not None
    notifier.step()

    # the voters (Ann, Cy) are told; Bob, whose turn it is, is not asked about his own absence
    [vote] = _asks(receiver, "/Ann")
    assert _asks(receiver, "/Bob") == []
    req = next(r for r in receiver.requests if r.path == "/Ann" and r.json()["type"] == "table.asks")
    # signed like every notification (at the attempt's own timestamp: the virtual clock is ahead)
    expected = Webhook(secret_of(views["Ann"])).sign(req.headers["webhook-id"], clock.now().fromtimestamp(
        int(req.headers["webhook-timestamp"])), req.body.decode())
    assert expected in req.headers["webhook-signature"].split(" ")
    data = vote["data"]
    assert data["ask"] == "vote" and data["by"] == table.pid("Bob") and data["deadline"]
    assert [r["id"] for r in data["recipients"]] == [table.pid("Ann")]
    assert sorted(data["voters"]) == sorted([table.pid("Ann"), table.pid("Cy")])
    assert "Bob's turn" in data["text"]
    [(rcpts, raw)] = inbox.messages  # Cy by email, with what to answer and by when
    assert rcpts == ["cy@example.test"]
    body = email.message_from_bytes(raw).get_payload(decode=True).decode()
    assert "The table votes on Bob's turn" in body and data["deadline"] in body

    # the vote is dropped when Bob moves; then Ann asks to undo into Bob's and Cy's moves
    pending = Pending(recorder, SessionCache(recorder, 4), log)
    table.turn("Ann")
    with recorder.game_transaction(table.game_id) as tx:
        tx.update_game(version=3, state={"acting": [table.players["Ann"]]})
    scheduler.run_once()
    before = len(receiver.requests)
    movers = [table.players["Bob"], table.players["Cy"], table.players["Ann"]]
    pending.decide(table.game_id, lambda t: tk.request_undo(t, table.players["Ann"], "undo", 1, movers,
                                                            clock.now(), 3)[0])
    notifier.step()
    undo = [r.json() for r in receiver.requests[before:] if r.json()["type"] == "table.asks"]
    assert [(r["data"]["ask"], r["data"]["by"]) for r in undo] == [("undo", table.pid("Ann"))]
    assert [r.path for r in receiver.requests[before:] if r.json()["type"] == "table.asks"] == ["/Bob"]  # not Ann
    assert undo[0]["data"]["target"] == 1
    assert len(inbox.messages) == 2 and "asks to undo back to move 1" in \
        email.message_from_bytes(inbox.messages[1][1]).get_payload(decode=True).decode()

    # an answer opens no question: nobody is told again
    with engine.connect() as conn:
        rows = conn.execute(sa.select(outbox_table.c.kind)).scalars().all()
    pending.answer(table.game_id, table.players["Bob"], False, clock.now())
    with engine.connect() as conn:
        assert conn.execute(sa.select(outbox_table.c.kind)).scalars().all() == rows

    # the table opened Cy's seat; a newcomer claims it: Ann and Bob answer, Cy (the seat) is not asked
    pending.decide(table.game_id, lambda t: [{"type": "vote_decided", "at": clock.now().isoformat(),
                                              "choice": "open_seat", "substitute": None,
                                              "absent": table.players["Cy"]}])
    pending.offer(table.game_id, table.players["Ann"], table.players["Cy"], "invite-hash", clock.now())
    game = recorder.get_game(table.game_id)
    before = len(receiver.requests)
    pending.claim(game, table.players["Cy"], "invite-hash", "Dee", "token-hash", None, clock.now())
    notifier.step()
    claims = [r for r in receiver.requests[before:] if r.json()["type"] == "table.asks"]
    assert sorted(r.path for r in claims) == ["/Ann", "/Bob"]
    assert {r.json()["data"]["ask"] for r in claims} == {"seat_claim"}
    assert "Dee asks to take over Cy's seat" in claims[0].json()["data"]["text"]
    assert len(inbox.messages) == 2  # Cy's seat is the one claimed: he is not asked
    assert handover.CLAIM_TIMEOUT == timedelta(hours=48)


def test_the_ask_commits_with_its_decision_or_not_at_all(recorder, engine, clock) -> None:
    from services.play.table_log import StaleTableLog
    from shared.eventstore.outbox import TableAsks

    table = seat_game(recorder, ["Ann", "Bob"])
    log = TableLog(engine)
    opened = [{"type": "consent_opened", "at": clock.now().isoformat(), "kind": "undo",
               "requester": table.players["Ann"], "affected": [table.players["Bob"]], "target": None, "version": 0}]
    ask = TableAsks(table.game_id, "1830", "undo", 1, table.players["Ann"], (table.players["Bob"],), None)
    log.append(table.game_id, 0, opened, [ask], 0)
    try:  # a second writer that read the same log: its decision and its ask are both refused
        log.append(table.game_id, 0, opened, [ask], 0)
        raise AssertionError("a stale append went through")
    except StaleTableLog:
        pass
    recorder.number_pending()
    with engine.connect() as conn:
        kinds = conn.execute(sa.select(outbox_table.c.kind, outbox_table.c.position)
                             .where(outbox_table.c.kind == "table_asks")).all()
    assert len(kinds) == 1 and kinds[0].position is not None

"""Email through a real SMTP server: batching, the daily digest and RFC 8058 one-click unsubscribe."""

from __future__ import annotations

import email
from email.message import Message

import sqlalchemy as sa
from flask import Flask

from services.notifier.api import ApiContext, init_app
from services.notifier.tables import mail_queue, subscriptions

from .conftest import BASE_URL, seat_game, settings_for
from .helpers import subscribe


def _parse(raw: bytes) -> Message:
    return email.message_from_bytes(raw)


def test_turns_within_a_minute_become_one_mail(recorder, engine, clock, smtp, make_notifier):
    inbox, port = smtp
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier(port)
    notifier.step()
    subscribe(engine, clock, table.pid("Bob"), channel="email", email="bob@example.test")
    table.turn("Bob")
    notifier.step()
    clock.advance(20)
    table.turn("Ann")
    table.turn("Bob", round_="Operating Round 1")
    notifier.step()
    assert inbox.messages == []  # still inside the batching window
    clock.advance(45)
    notifier.step()
    assert len(inbox.messages) == 1
    rcpts, raw = inbox.messages[0]
    msg = _parse(raw)
    assert rcpts == ["bob@example.test"]
    # one game, one line: where it stands now (its latest turn), not every turn of the window
    body = msg.get_payload(decode=True).decode()
    assert "Operating Round 1" in msg["Subject"] and "Stock Round 1" not in body, (msg["Subject"], body)
    assert body.count(f"{BASE_URL}/games/{table.game_id}") == 1
    assert f"{BASE_URL}/games/{table.game_id}" in body
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert msg["List-Unsubscribe"].startswith(f"<{BASE_URL}/notifier/unsubscribe/")
    clock.advance(120)
    notifier.step()
    assert len(inbox.messages) == 1  # sent once, not again


def test_a_batch_over_two_games_lists_each_game_once(recorder, engine, clock, smtp, make_notifier):
    """Issue 27: a batched mail repeated the same "your turn" line. Turns of two games inside one batching
    window make one mail with one line per game, each game's latest."""
    inbox, port = smtp
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier(port)
    notifier.step()
    subscribe(engine, clock, table.pid("Bob"), channel="email", email="bob@example.test")
    other = seat_game(recorder, ["Cy", "Bob"], known=table)
    for _ in range(3):
        table.turn("Ann")
        other.turn("Cy")
        notifier.step()
        clock.advance(5)
        table.turn("Bob")
        other.turn("Bob")
    clock.advance(65)
    notifier.step()
    assert len(inbox.messages) == 1
    msg = _parse(inbox.messages[0][1])
    assert "2 updates" in msg["Subject"], msg["Subject"]
    body = msg.get_payload(decode=True).decode().replace("\r\n", "\n")
    lines = [line for line in body.split("\n\n") if "/games/" in line]
    assert len(lines) == len(set(lines)) == 2, body
    assert body.count(f"/games/{table.game_id}\n") == 1 and body.count(f"/games/{other.game_id}\n") == 1, body


def test_a_turn_he_has_already_played_is_not_mailed(recorder, engine, clock, smtp, make_notifier):
    """Issue 49: a batched mail said "it is your turn" after the player had moved. A turn line is held to
    the game's state when the mail leaves: Bob moved within the window, so his turn in that game is no
    news; his turn in the other game still stands and is the whole mail, its subject that game's line."""
    inbox, port = smtp
    table = seat_game(recorder, ["Ann", "Bob"])
    other = seat_game(recorder, ["Cy", "Bob"], known=table)
    notifier = make_notifier(port)
    notifier.step()
    subscribe(engine, clock, table.pid("Bob"), channel="email", email="bob@example.test")
    table.turn("Bob")
    other.turn("Bob")
    notifier.step()
    clock.advance(20)
    table.turn("Ann")  # Bob moved in the first game; the second still waits for him
    notifier.step()
    clock.advance(45)
    notifier.step()
    assert len(inbox.messages) == 1
    msg = _parse(inbox.messages[0][1])
    body = msg.get_payload(decode=True).decode()
    assert f"game {other.game_id} " in msg["Subject"] and "your turn" in msg["Subject"], msg["Subject"]
    assert f"/games/{table.game_id}" not in body and f"/games/{other.game_id}" in body, body
    other.turn("Cy")
    notifier.step()
    clock.advance(65)
    notifier.step()
    assert len(inbox.messages) == 1  # nothing new is true for Bob: no mail


def test_a_long_single_line_is_its_own_subject_never_1_updates():
    from services.notifier.mailer import compose

    line = "Ann mentioned you in game 7 (1830): \u201c" + "x" * 200 + "\u201d"
    msg = compose(settings_for("sqlite://"), "bob@example.test", [line], f"{BASE_URL}/u", 1)
    assert "updates" not in msg["Subject"] and msg["Subject"].startswith("Ann mentioned you in game 7"), msg["Subject"]
    assert len(msg["Subject"]) <= 120
    two = compose(settings_for("sqlite://"), "bob@example.test", ["a", "b"], f"{BASE_URL}/u", 1)
    assert two["Subject"] == "Railpost: 2 updates in your games"


def test_one_click_unsubscribe_takes_effect_at_once(recorder, engine, db_url, clock, smtp, make_notifier):
    inbox, port = smtp
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier(port)
    notifier.step()
    subscribe(engine, clock, table.pid("Bob"), channel="email", email="bob@example.test")
    table.turn("Bob")
    notifier.step()
    clock.advance(61)
    notifier.step()
    link = _parse(inbox.messages[0][1])["List-Unsubscribe"].strip("<>")
    path = link[len(BASE_URL):]

    table.turn("Ann")
    table.turn("Bob")  # queued, not yet sent, when the player unsubscribes
    notifier.step()
    app = Flask("t")
    init_app(app, ApiContext(engine, settings_for(db_url), timesource=clock))
    client = app.test_client()
    assert client.get(path).status_code == 200  # a page, not an unsubscribe
    with engine.connect() as conn:
        assert conn.execute(sa.select(subscriptions.c.channel)).scalar() == "email"
    resp = client.post(path, data={"List-Unsubscribe": "One-Click"})
    assert resp.status_code == 200
    with engine.connect() as conn:
        assert conn.execute(sa.select(subscriptions.c.channel)).scalar() == "none"
        assert conn.execute(sa.select(sa.func.count()).select_from(mail_queue).where(
            mail_queue.c.sent_at.is_(None))).scalar() == 0
    clock.advance(120)
    table.turn("Ann")
    table.turn("Bob")
    notifier.step()
    clock.advance(120)
    notifier.step()
    assert len(inbox.messages) == 1
    assert client.post("/notifier/unsubscribe/not-a-token").status_code == 404


def test_daily_digest_collects_the_day(recorder, engine, clock, smtp, make_notifier):
    inbox, port = smtp
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier(port, digest_hour_utc=(clock.now().hour + 2) % 24)
    notifier.step()
    subscribe(engine, clock, table.pid("Bob"), channel="email", email="bob@example.test", email_mode="daily")
    other = seat_game(recorder, ["Cy", "Bob"], known=table)
    for _ in range(3):
        table.turn("Ann")
        table.turn("Bob")
        other.turn("Cy")
        other.turn("Bob")
        notifier.step()
        clock.advance(600)
    assert inbox.messages == []
    clock.advance(2 * 3600)
    notifier.step()
    assert len(inbox.messages) == 1
    # six turns in two games: each game listed once
    msg = _parse(inbox.messages[0][1])
    assert "2 updates" in msg["Subject"], msg["Subject"]
    body = msg.get_payload(decode=True).decode().replace("\r\n", "\n")
    assert body.count(f"/games/{table.game_id}\n") == 1 and body.count(f"/games/{other.game_id}\n") == 1, body

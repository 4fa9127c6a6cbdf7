"""Reminders on a virtual clock: one nudge after the threshold, at most one a day across games, none on
vacation."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa

from services.notifier import manage
from services.notifier.tables import deliveries

from .conftest import seat_game
from .helpers import subscribe


def _reminders(receiver) -> list[dict]:
    return [r.json() for r in receiver.requests if r.json()["type"] == "turn.reminder"]


def test_one_nudge_after_a_day_and_one_per_day_across_games(recorder, engine, clock, receiver, make_notifier):
    first = seat_game(recorder, ["Ann", "Bob"], start_with="Bob")
    notifier = make_notifier()
    notifier.step()
    subscribe(engine, clock, first.pid("Bob"), channel="webhook", url=receiver.url())
    clock.advance(timedelta(hours=2))
    second = seat_game(recorder, ["Cy", "Bob"], start_with="Bob", known=first)  # Bob waits here from t+2h
    notifier.step()
    clock.advance(timedelta(hours=21))
    notifier.step()
    assert _reminders(receiver) == []  # t+23h: nothing overdue yet
    clock.advance(timedelta(hours=1, minutes=1))
    notifier.step()
    [nudge] = _reminders(receiver)  # t+24h: game 1 only
    assert [g["game_id"] for g in nudge["data"]["games"]] == [str(first.game_id)]
    clock.advance(timedelta(hours=3))
    notifier.step()
    assert len(_reminders(receiver)) == 1  # t+27h: game 2 is overdue, but Bob was nudged 3 h ago
    clock.advance(timedelta(hours=21))
    notifier.step()
    reminders = _reminders(receiver)  # t+48h: a day after the first nudge, game 2's turn
    assert len(reminders) == 2
    assert [g["game_id"] for g in reminders[1]["data"]["games"]] == [str(second.game_id)]
    clock.advance(timedelta(days=3))
    notifier.step()
    assert len(_reminders(receiver)) == 2  # one nudge per turn, never repeated


def test_new_turn_resets_the_nudge(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"], start_with="Bob")
    notifier = make_notifier()
    notifier.step()
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url())
    clock.advance(timedelta(hours=12))
    table.turn("Ann")
    notifier.step()
    clock.advance(timedelta(hours=13))
    notifier.step()
    assert _reminders(receiver) == []  # Bob no longer holds the turn


def test_vacation_pauses_reminders(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"], start_with="Bob")
    notifier = make_notifier()
    notifier.step()
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url())
    with engine.begin() as conn:
        manage.set_vacation(conn, table.pid("Bob"), clock.now() + timedelta(days=7))
    for _ in range(6):
        clock.advance(timedelta(days=1))
        notifier.step()
    assert _reminders(receiver) == []
    clock.advance(timedelta(days=1, minutes=5))
    notifier.step()
    assert len(_reminders(receiver)) == 1
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(deliveries)).scalar() == 1

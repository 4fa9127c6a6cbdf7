"""The game clock's escalating reminders over the real notifier path: the scheduler's pass emits a typed
`clock_reminder` outbox event (GameTx.emit), the notifier turns it into a `turn.reminder` on the player's
channels, and a player waiting in two clocked games gets at most one per period, not one per game."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from services.play import timekeeping as tk
from services.play.scheduler import Scheduler
from services.play.table_log import TableLog

from .conftest import seat_game
from .helpers import subscribe

H = timedelta(hours=1)


class NoDispatch:
    """The scheduler queues no moves here (no deadline is reached); nothing to ring."""

    def publish(self, game_id: int, command_id: str, reply_to: str | None = None) -> None:
        raise AssertionError("no move is due")

    def warm(self, game_id: int) -> None: ...

    def close(self) -> None: ...


def _reminders(receiver: Any) -> list[dict[str, Any]]:
    return [r.json() for r in receiver.requests if r.json()["type"] == "turn.reminder"]


def test_clock_reminders_reach_the_channels_at_most_one_per_period(recorder, engine, clock, receiver,
                                                                   make_notifier) -> None:
    first = seat_game(recorder, ["Ann", "Bob"], start_with="Bob")
    second = seat_game(recorder, ["Cy", "Bob"], start_with="Bob", known=first)
    notifier = make_notifier()
    subscribe(engine, clock, first.pid("Bob"), channel="webhook", url=receiver.url())
    log = TableLog(engine)
    for table in (first, second):
        log.append(table.game_id, 0, tk.configure(tk.Table(), {"kind": "deadline", "per_move_hours": 10}, False,
                                                  clock.now()))
    scheduler = Scheduler(recorder, log, NoDispatch(), timesource=clock)  # type: ignore[arg-type]
    scheduler.run_once()  # both clocks start on Bob's turn
    notifier.step()
    assert _reminders(receiver) == []
    clock.advance(5 * H + timedelta(minutes=1))  # half of Bob's time gone in both games
    scheduler.run_once()
    notifier.step()
    [gentle] = _reminders(receiver)  # one message, though both games reminded him
    assert gentle["data"]["step"] == 0 and gentle["data"]["games"][0]["game_id"] in \
        (str(first.game_id), str(second.game_id))
    assert sorted(s for g, _p, s in scheduler.reminded) == [0, 0]
    clock.advance(3 * H)  # 80%: the firmer one, a new period
    scheduler.run_once()
    notifier.step()
    assert [r["data"]["step"] for r in _reminders(receiver)] == [0, 1]
    assert _reminders(receiver)[1]["data"]["deadline"] is not None
    clock.advance(90 * timedelta(minutes=1))  # 95%: last call, but within the period of the last message
    scheduler.run_once()
    notifier.step()
    assert [r["data"]["step"] for r in _reminders(receiver)] == [0, 1]
    assert len(scheduler.reminded) == 6  # the clock reminded at every step; the notifier kept the period


def test_a_handed_over_seats_notices_go_to_its_new_holder(recorder, engine, clock, receiver, make_notifier) -> None:
    table = seat_game(recorder, ["Ann", "Bob"], start_with="Ann")
    cy = recorder.create_player("Cy", None).id
    notifier = make_notifier()
    notifier.step()
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url("/bob"))
    subscribe(engine, clock, str(cy), channel="webhook", url=receiver.url("/cy"))
    TableLog(engine).append(table.game_id, 0, [{"type": "seat_handed_over", "at": clock.now().isoformat(),
                                                "seat": int(table.pid("Bob")), "name": "Cy", "version": 0,
                                                "holder": cy}])
    table.turn("Bob")
    notifier.step()
    turns = [r for r in receiver.requests if r.json()["type"] == "turn.started"]
    assert [r.path for r in turns] == ["/cy"]  # the seat's turn alert reaches Cy, no longer Bob

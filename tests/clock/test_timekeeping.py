"""The scheduler's decisions, pass by pass, against a time source the test moves: the turn followed from the game,
reminders, the deadline remedies, the vote's outcomes, consent and its timeout, and the replay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from services.play import timekeeping as tk
from services.play.votes import VoteError
from services.timesource import VirtualTime

H = timedelta(hours=1)
T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
PASS = {"type": "pass", "entity": 1, "entity_type": "player"}


class Game:
    """A table's log and a game that moves when the test says so."""

    def __init__(self, control: dict[str, Any]) -> None:
        self.vc = VirtualTime(T0)
        self.log: list[dict[str, Any]] = tk.configure(tk.Table(), control, False, T0)
        self.follow = tk.Follow("active", 0, [1], [1, 2, 3])
        self.orders: dict[int, dict[str, Any]] = {}
        self.passes: dict[int, dict[str, Any]] = {}

    @property
    def table(self) -> tk.Table:
        return tk.Table.replay(self.log)

    def add(self, events: list[dict[str, Any]]) -> None:
        self.log += events

    def tick(self) -> tk.Tick:
        result = tk.tick(self.table, self.follow, self.vc.now(),
                         lambda p: (self.orders.get(p), self.passes.get(p)))
        self.log += result.events
        return result

    def move(self, to: int) -> None:
        self.follow = tk.Follow("active", self.follow.version + 1, [to], self.follow.seats)

    def types(self) -> list[str]:
        return [e["type"] for e in self.log]


def test_the_clock_follows_the_turn_and_the_deadline_opens_a_vote() -> None:
    g = Game({"kind": "deadline", "per_move_hours": 24})
    g.tick()
    assert g.table.clock is not None and g.table.clock.to_move == 1
    g.vc.advance(12 * H)
    assert g.tick().reminders == [(1, 0)]
    g.vc.advance(12 * H)
    g.tick()
    assert g.table.vote is not None and g.table.vote.voters == frozenset({2, 3})
    g.vc.advance(H)
    assert not g.tick().events  # a vote open and the deadline handled: nothing more to decide
    before = len(g.log)
    g.tick()
    assert len(g.log) == before


def test_a_standing_order_then_auto_pass_act_at_the_deadline() -> None:
    g = Game({"kind": "deadline", "per_move_hours": 1})
    g.orders[1] = {"type": "buy_shares", "entity": 1}
    g.passes[1] = PASS
    g.tick()
    g.vc.advance(H)
    assert g.tick().actions == [(1, g.orders[1])]
    g.move(2)
    g.tick()
    g.move(1)
    g.tick()
    del g.orders[1]
    g.add(tk.set_hours(g.table, 1, {"tz": "UTC", "auto_pass": True}, g.vc.now()))
    g.vc.advance(H)
    assert g.tick().actions == [(1, PASS)]
    assert g.table.vote is None


def test_auto_pass_not_chosen_goes_to_the_table() -> None:
    g = Game({"kind": "deadline", "per_move_hours": 1})
    g.passes[1] = PASS
    g.tick()
    g.vc.advance(H)
    assert g.tick().actions == []
    assert g.table.vote is not None


@pytest.mark.parametrize(("ballots", "expect"), [
    ([(2, "extend", None), (3, "extend", None)], "extend"),
    ([(2, "substitute", 3), (3, "substitute", 3)], "substitute"),
    ([(2, "open_seat", None), (3, "open_seat", None)], "open_seat"),
])
def test_vote_outcomes_are_recorded(ballots: list[tuple[int, str, int | None]], expect: str) -> None:
    g = Game({"kind": "deadline", "per_move_hours": 2})
    g.tick()
    g.vc.advance(2 * H)
    g.tick()
    for seat, choice, sub in ballots:
        g.add(tk.ballot(g.table, seat, choice, sub, g.vc.now()))
    g.tick()
    decided = [e for e in g.log if e["type"] == "vote_decided"]
    assert decided[-1]["choice"] == expect and g.table.vote is None
    if expect == "extend":  # the turn gets another allowance, and its deadline is handled again later
        clock = g.table.clock
        assert clock is not None and clock.deadline() == g.vc.now() + 2 * H
        g.vc.advance(2 * H)
        g.tick()
        assert g.table.vote is not None
    if expect == "substitute":
        assert decided[-1]["substitute"] == 3


def test_the_absent_player_moving_makes_the_vote_moot() -> None:
    g = Game({"kind": "deadline", "per_move_hours": 1})
    g.tick()
    g.vc.advance(H)
    g.tick()
    g.move(2)
    g.tick()
    assert g.table.vote is None and g.log[-2]["choice"] == "moot"


def test_weekend_and_quiet_hours_hold_the_deadline() -> None:
    g = Game({"kind": "deadline", "per_move_hours": 2})
    g.vc.set(datetime(2026, 3, 6, 23, tzinfo=UTC))  # Friday 23:00
    g.add(tk.set_hours(g.table, 1, {"tz": "UTC", "weekends_off": True}, g.vc.now()))
    g.tick()
    g.vc.set(datetime(2026, 3, 9, 0, 59, tzinfo=UTC))  # Monday 00:59: one hour and 59 minutes counted
    g.tick()
    assert g.table.vote is None
    g.vc.advance(timedelta(minutes=1))
    g.tick()
    assert g.table.vote is not None


def test_time_bank_with_increment_through_the_scheduler() -> None:
    g = Game({"kind": "bank", "bank_hours": 5, "increment_hours": 1})
    g.tick()
    g.vc.advance(2 * H)
    g.move(2)
    g.tick()
    clock = g.table.clock
    assert clock is not None and clock.bank(1) == 4 * H and clock.to_move == 2


def test_vacation_is_the_players_own_and_pauses_the_deadline() -> None:
    g = Game({"kind": "deadline", "per_move_hours": 24})
    g.tick()
    g.add(tk.vacation(g.table, 1, g.vc.now() + 48 * H, g.vc.now()))
    g.vc.advance(47 * H)
    g.tick()
    assert g.table.vote is None and not any(e["type"] == "reminded" for e in g.log)
    with pytest.raises(VoteError):
        tk.vacation(g.table, 1, g.vc.now() - H, g.vc.now())
    with pytest.raises(VoteError):
        tk.vacation(g.table, 1, g.vc.now() + 100 * 24 * H, g.vc.now())


def test_undo_consent_accepted_queues_the_undo_and_lapses_otherwise() -> None:
    g = Game({"kind": "none"})
    events, free = tk.request_undo(g.table, 1, "undo", 7, [1, 1], g.vc.now())
    assert free and events == []
    events, free = tk.request_undo(g.table, 1, "undo", 7, [1, 2, 3], g.vc.now())
    g.add(events)
    with pytest.raises(VoteError):  # one request at a time
        tk.request_undo(g.table, 2, "undo", None, [1], g.vc.now())
    g.add(tk.answer(g.table, 2, True, g.vc.now()))
    g.add(tk.answer(g.table, 3, True, g.vc.now()))
    assert g.tick().actions == [(1, {"type": "undo", "entity": 1, "entity_type": "player", "action_id": 7})]
    events, _ = tk.request_undo(g.table, 1, "redo", None, [2], g.vc.now())
    g.add(events)
    g.vc.advance(48 * H)
    assert g.tick().actions == []
    assert g.log[-1]["type"] == "consent_settled" and g.log[-1]["state"] == "lapsed"


def test_configuring_after_the_start_is_refused() -> None:
    with pytest.raises(VoteError) as err:
        tk.configure(tk.Table(), {"kind": "none"}, True, T0)
    assert err.value.status == 409


def test_the_log_replays_to_the_same_table() -> None:
    g = Game({"kind": "bank", "bank_hours": 3, "increment_hours": 1})
    g.tick()
    for hour in range(12):
        g.vc.advance(H)
        if hour % 4 == 3:
            g.move(1 + hour % 3)
        g.tick()
    assert tk.Table.replay(list(g.log)) == g.table

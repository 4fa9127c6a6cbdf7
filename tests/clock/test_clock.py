"""Every time-control rule against a time source the test moves: deadlines, quiet hours, weekends, the bank and its
increment, vacation, escalating reminders, and the replay of clock events."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest

from services.play.timecontrol import (
    Availability,
    ClockError,
    ClockEvent,
    GameClock,
    TimeControl,
    after_counted,
    counted,
    fold,
)
from services.timesource import VirtualTime

H = timedelta(hours=1)
MON_9 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday


def turn(clock: GameClock, seat: int, at: datetime) -> GameClock:
    return clock.apply(ClockEvent("turn", at, seat))


def test_per_move_deadline_passes_only_when_its_time_has_run() -> None:
    vc = VirtualTime(MON_9)
    g = turn(GameClock(TimeControl("deadline", per_move=24 * H)), 0, vc.now())
    assert g.deadline() == MON_9 + 24 * H
    vc.advance(24 * H - timedelta(seconds=1))
    assert not g.overdue(vc.now())
    vc.advance(timedelta(seconds=1))
    assert g.overdue(vc.now())


def test_no_time_control_never_has_a_deadline() -> None:
    g = turn(GameClock(TimeControl()), 0, MON_9)
    assert g.deadline() is None and not g.overdue(MON_9 + 1000 * H) and g.reminder_due(MON_9 + 1000 * H) is None


def test_quiet_hours_in_the_players_zone_do_not_count() -> None:
    # Amsterdam is UTC+1 in March 2026 (before the DST switch on the 29th); quiet 23:00-07:00 local
    av = Availability("Europe/Amsterdam", time(23), time(7))
    # 20:00 UTC = 21:00 local: two counted hours until 23:00 local, then quiet until 07:00 local = 06:00 UTC
    start = datetime(2026, 3, 2, 20, tzinfo=UTC)
    assert after_counted(start, 3 * H, av) == datetime(2026, 3, 3, 7, tzinfo=UTC)
    assert counted(start, datetime(2026, 3, 3, 6, tzinfo=UTC), av) == 2 * H
    g = GameClock(TimeControl("deadline", per_move=3 * H), {1: av})
    g = turn(g, 1, start)
    assert g.deadline() == datetime(2026, 3, 3, 7, tzinfo=UTC)
    assert not g.overdue(datetime(2026, 3, 3, 6, 59, tzinfo=UTC))


def test_quiet_hours_inside_a_day() -> None:
    av = Availability("UTC", time(12), time(14))
    assert after_counted(datetime(2026, 3, 2, 11, tzinfo=UTC), 2 * H, av) == datetime(2026, 3, 2, 15, tzinfo=UTC)


def test_weekend_does_not_count_when_chosen() -> None:
    friday_22 = datetime(2026, 3, 6, 22, tzinfo=UTC)
    off = Availability("UTC", weekends_off=True)
    assert after_counted(friday_22, 4 * H, off) == datetime(2026, 3, 9, 2, tzinfo=UTC)  # Monday 02:00
    assert after_counted(friday_22, 4 * H, Availability("UTC")) == datetime(2026, 3, 7, 2, tzinfo=UTC)
    # the weekend is the player's own: Saturday starts at 15:00 UTC in Auckland (UTC+13)
    nz = Availability("Pacific/Auckland", weekends_off=True)
    assert counted(datetime(2026, 3, 6, 10, tzinfo=UTC), datetime(2026, 3, 6, 12, tzinfo=UTC), nz) == 1 * H


def test_time_bank_spends_what_is_used_and_adds_the_increment() -> None:
    g = GameClock(TimeControl("bank", bank=10 * H, increment=2 * H))
    g = turn(g, 0, MON_9)
    assert g.deadline() == MON_9 + 10 * H
    g = g.apply(ClockEvent("moved", MON_9 + 3 * H, 0))
    assert g.bank(0) == 9 * H  # 10 - 3 + 2
    assert g.bank(1) == 10 * H  # untouched seat keeps the full bank
    g = turn(g, 0, MON_9 + 5 * H)
    assert g.deadline() == MON_9 + 14 * H
    g = g.apply(ClockEvent("moved", MON_9 + 20 * H, 0))  # overran: the bank does not go below zero
    assert g.bank(0) == 2 * H


def test_a_move_by_someone_not_to_move_is_refused() -> None:
    g = turn(GameClock(TimeControl("deadline", per_move=H)), 0, MON_9)
    with pytest.raises(ClockError) as err:
        g.apply(ClockEvent("moved", MON_9, 1))
    assert err.value.field == "seat"


def test_vacation_pauses_the_clock_and_the_reminders() -> None:
    vc = VirtualTime(MON_9)
    g = turn(GameClock(TimeControl("deadline", per_move=24 * H)), 0, vc.now())
    vc.advance(4 * H)
    g = g.apply(ClockEvent("vacation", vc.now(), 0, until=vc.now() + 72 * H))
    assert g.deadline() == MON_9 + 4 * H + 72 * H + 20 * H
    vc.advance(60 * H)
    assert g.used(vc.now()) == 4 * H
    assert g.reminder_due(vc.now()) is None
    assert not g.overdue(vc.now())
    # back early: the clock runs again from the return
    g = g.apply(ClockEvent("vacation", vc.now(), 0, until=None))
    assert g.deadline() == vc.now() + 20 * H


def test_reminders_escalate_once_each() -> None:
    g = turn(GameClock(TimeControl("deadline", per_move=100 * H)), 0, MON_9)
    assert g.reminder_due(MON_9 + 49 * H) is None
    assert g.reminder_due(MON_9 + 50 * H) == 0
    g = g.apply(ClockEvent("reminded", MON_9 + 50 * H, 0, step=0))
    assert g.reminder_due(MON_9 + 60 * H) is None
    assert g.reminder_due(MON_9 + 80 * H) == 1
    g = g.apply(ClockEvent("reminded", MON_9 + 80 * H, 0, step=1))
    assert g.reminder_due(MON_9 + 95 * H) == 2
    g = g.apply(ClockEvent("reminded", MON_9 + 95 * H, 0, step=2))
    assert g.reminder_due(MON_9 + 200 * H) is None


def test_extension_moves_the_deadline_and_restarts_reminders() -> None:
    g = turn(GameClock(TimeControl("deadline", per_move=10 * H)), 0, MON_9)
    g = g.apply(ClockEvent("reminded", MON_9 + 9 * H, 0, step=2))
    g = g.apply(ClockEvent("extended", MON_9 + 10 * H, 0, amount=10 * H))
    assert g.deadline() == MON_9 + 20 * H and g.reminded == 0
    with pytest.raises(ClockError):
        g.apply(ClockEvent("extended", MON_9, 0, amount=timedelta(0)))


def test_replaying_the_events_gives_the_same_clock() -> None:
    control = TimeControl("bank", bank=8 * H, increment=H)
    avs = {0: Availability("Europe/Amsterdam", time(23), time(7)), 1: Availability("UTC", weekends_off=True)}
    events = [ClockEvent("turn", MON_9, 0), ClockEvent("moved", MON_9 + 2 * H, 0),
              ClockEvent("turn", MON_9 + 2 * H, 1), ClockEvent("vacation", MON_9 + 3 * H, 1, until=MON_9 + 30 * H),
              ClockEvent("extended", MON_9 + 4 * H, 1, amount=H)]
    live = fold(control, avs, events)
    again = fold(control, avs, [ClockEvent.from_dict(e.to_dict()) for e in events])
    assert again == live
    assert again.deadline() == live.deadline() is not None


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"kind": "blitz"}, "kind"),
    ({"kind": "deadline"}, "per_move"),
    ({"kind": "deadline", "per_move": -H}, "per_move"),
    ({"kind": "bank"}, "bank"),
    ({"kind": "bank", "bank": H, "increment": -H}, "increment"),
])
def test_bad_time_controls_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ClockError) as err:
        TimeControl(**kwargs)
    assert err.value.field == field


def test_bad_availability_names_the_field() -> None:
    with pytest.raises(ClockError) as err:
        Availability("Mars/Olympus")
    assert err.value.field == "tz"
    with pytest.raises(ClockError) as err:
        Availability("UTC", quiet_start=time(22))
    assert err.value.field == "quiet_end"


def test_a_seat_that_is_never_available_has_no_deadline() -> None:
    av = Availability("UTC", time(0), time(0, 0, 0, 1), weekends_off=True)
    assert after_counted(MON_9, H, av) is not None  # one microsecond of quiet still leaves the day
    assert after_counted(datetime(2026, 3, 7, tzinfo=UTC), H, Availability("UTC", weekends_off=True)) \
        == datetime(2026, 3, 9, 1, tzinfo=UTC)

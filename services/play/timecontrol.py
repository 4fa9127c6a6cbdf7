"""Time controls for long games, kept outside the engine: the engine stays a pure function of its actions
and this module is a pure function of (time control, each seat's availability, clock events, now).

Only *counted* time runs down a deadline or a time bank: a player's quiet hours and (if chosen) weekends, in
the player's own time zone, do not count, and neither does a vacation. Every decision is an event
(`ClockEvent`); `fold` rebuilds the clock from them, so the store can replay it like the game itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Kind = Literal["none", "deadline", "bank"]
KINDS: tuple[str, ...] = ("none", "deadline", "bank")
# fractions of the counted allowance at which a reminder goes out: gentle, firmer, last call
REMINDER_STEPS: tuple[float, ...] = (0.5, 0.8, 0.95)
_HORIZON_DAYS = 3660  # a deadline search never walks further than ten years of calendar


class ClockError(ValueError):
    """A time control, availability or clock event that cannot be used; `field` names the culprit."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name


@dataclass(frozen=True)
class TimeControl:
    """`deadline`: each move within `per_move` counted time. `bank`: each seat starts with `bank` and gains
    `increment` after each move it makes; the turn's deadline is what is left in the bank."""

    kind: Kind = "none"
    per_move: timedelta | None = None
    bank: timedelta | None = None
    increment: timedelta = timedelta(0)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ClockError("kind", f"time control must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "deadline" and (self.per_move is None or self.per_move <= timedelta(0)):
            raise ClockError("per_move", "a deadline time control needs a positive per_move")
        if self.kind == "bank" and (self.bank is None or self.bank <= timedelta(0)):
            raise ClockError("bank", "a time bank needs a positive bank")
        if self.increment < timedelta(0):
            raise ClockError("increment", "increment cannot be negative")


@dataclass(frozen=True)
class Availability:
    """When a seat's clock runs. Quiet hours may wrap midnight (23:00–07:00); equal start and end mean none."""

    tz: str = "UTC"
    quiet_start: time | None = None
    quiet_end: time | None = None
    weekends_off: bool = False

    def __post_init__(self) -> None:
        try:
            ZoneInfo(self.tz)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ClockError("tz", f"unknown time zone {self.tz!r}") from exc
        if (self.quiet_start is None) != (self.quiet_end is None):
            raise ClockError("quiet_end" if self.quiet_end is None else "quiet_start",
                             "quiet hours need both a start and an end")

    def windows(self, day: date) -> list[tuple[datetime, datetime]]:
        """The UTC intervals of the local calendar `day` during which the clock runs."""
        zone = ZoneInfo(self.tz)
        if self.weekends_off and day.weekday() >= 5:
            return []

        def at(t: time, plus_days: int = 0) -> datetime:
            return datetime.combine(day + timedelta(days=plus_days), t, zone).astimezone(UTC)

        midnight, next_midnight = at(time(0)), at(time(0), 1)
        qs, qe = self.quiet_start, self.quiet_end
        if qs is None or qe is None or qs == qe:
            return [(midnight, next_midnight)]
        if qs < qe:  # quiet inside the day
            spans = [(midnight, at(qs)), (at(qe), next_midnight)]
        else:  # quiet wraps midnight: the clock runs between its end and its start
            spans = [(at(qe), at(qs))]
        return [(a, b) for a, b in spans if b > a]


def _local_day(moment: datetime, av: Availability) -> date:
    return moment.astimezone(ZoneInfo(av.tz)).date()


def _open_spans(start: datetime, av: Availability) -> Iterator[tuple[datetime, datetime]]:
    """Counted intervals from `start` on, in order; the day before is included so DST edges cannot hide one."""
    day = _local_day(start, av) - timedelta(days=1)
    for _ in range(_HORIZON_DAYS):
        for a, b in av.windows(day):
            if b > start:
                yield max(a, start), b
        day += timedelta(days=1)


def _always_off(av: Availability) -> bool:
    week = [_local_day(datetime(2024, 1, 1, 12, tzinfo=UTC), av) + timedelta(days=i) for i in range(7)]
    return not any(av.windows(d) for d in week)


def counted(start: datetime, end: datetime, av: Availability) -> timedelta:
    """How much of [start, end) the seat's clock runs."""
    total = timedelta(0)
    if end <= start:
        return total
    for a, b in _open_spans(start, av):
        if a >= end:
            break
        total += min(b, end) - a
    return total


def after_counted(start: datetime, amount: timedelta, av: Availability) -> datetime | None:
    """The moment `amount` of counted time has run from `start` (None: it never does)."""
    if amount <= timedelta(0):
        return start
    if _always_off(av):
        return None
    left = amount
    for a, b in _open_spans(start, av):
        if b - a >= left:
            return a + left
        left -= b - a
    return None


# -- the clock of one game, folded from its events ------------------------------------------------------------


@dataclass(frozen=True)
class ClockEvent:
    """`turn` (seat to move since `at`), `moved` (seat finished its move), `extended` (by `amount`),
    `vacation` (seat away until `until`, or back when None), `reminded` (step `step` sent)."""

    type: str
    at: datetime
    seat: int
    amount: timedelta | None = None
    until: datetime | None = None
    step: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "at": self.at.isoformat(), "seat": self.seat}
        if self.amount is not None:
            out["amount"] = self.amount.total_seconds()
        if self.until is not None:
            out["until"] = self.until.isoformat()
        if self.step is not None:
            out["step"] = self.step
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClockEvent:
        amount = data.get("amount")
        until = data.get("until")
        return cls(data["type"], datetime.fromisoformat(data["at"]), int(data["seat"]),
                   timedelta(seconds=amount) if amount is not None else None,
                   datetime.fromisoformat(until) if until else None, data.get("step"))


EVENT_TYPES = frozenset({"turn", "moved", "extended", "vacation", "reminded"})


@dataclass(frozen=True)
class GameClock:
    control: TimeControl
    availability: dict[int, Availability] = field(default_factory=dict)
    banks: dict[int, timedelta] = field(default_factory=dict)
    to_move: int | None = None
    since: datetime | None = None
    extra: timedelta = timedelta(0)  # extensions granted for the current turn
    reminded: int = 0  # reminder steps sent for the current turn
    away: dict[int, tuple[datetime, datetime]] = field(default_factory=dict)  # seat -> vacation (from, until)

    def av(self, seat: int) -> Availability:
        return self.availability.get(seat, Availability())

    def bank(self, seat: int) -> timedelta:
        return self.banks.get(seat, self.control.bank or timedelta(0))

    def allowance(self) -> timedelta | None:
        """Counted time the player to move has for this turn (None: no time control)."""
        if self.to_move is None or self.control.kind == "none":
            return None
        base = self.control.per_move if self.control.kind == "deadline" else self.bank(self.to_move)
        return (base or timedelta(0)) + self.extra

    def used(self, now: datetime) -> timedelta:
        """Counted time used on this turn, less the part spent on vacation."""
        if self.to_move is None or self.since is None:
            return timedelta(0)
        seat = self.to_move
        av = self.av(seat)
        run = counted(self.since, now, av)
        if seat in self.away:
            start, until = self.away[seat]
            run -= counted(max(start, self.since), min(until, now), av)
        return max(run, timedelta(0))

    def deadline(self) -> datetime | None:
        """When the current turn's allowance runs out (counting starts after a vacation ends)."""
        allowance = self.allowance()
        if allowance is None or self.since is None or self.to_move is None:
            return None
        av = self.av(self.to_move)
        if self.to_move not in self.away:
            return after_counted(self.since, allowance, av)
        start, until = self.away[self.to_move]
        before = counted(self.since, start, av)
        if before >= allowance:
            return after_counted(self.since, allowance, av)
        return after_counted(max(until, self.since), allowance - before, av)

    def overdue(self, now: datetime) -> bool:
        due = self.deadline()
        return due is not None and now >= due

    def reminder_due(self, now: datetime) -> int | None:
        """The next reminder step (0-based) that should go out now, if any; escalating, each sent once."""
        allowance = self.allowance()
        if allowance is None or self.reminded >= len(REMINDER_STEPS):
            return None
        if self.to_move in self.away and self.away[self.to_move][0] <= now < self.away[self.to_move][1]:
            return None
        if self.used(now) >= allowance * REMINDER_STEPS[self.reminded]:
            return self.reminded
        return None

    def apply(self, event: ClockEvent) -> GameClock:
        if event.type not in EVENT_TYPES:
            raise ClockError("type", f"unknown clock event {event.type!r}")
        if event.type == "turn":
            return replace(self, to_move=event.seat, since=event.at, extra=timedelta(0), reminded=0)
        if event.type == "moved":
            if event.seat != self.to_move:
                raise ClockError("seat", f"seat {event.seat} moved but seat {self.to_move} was to move")
            banks = dict(self.banks)
            if self.control.kind == "bank":
                left = self.bank(event.seat) + self.extra - self.used(event.at)
                banks[event.seat] = max(left, timedelta(0)) + self.control.increment
            return replace(self, banks=banks, to_move=None, since=None, extra=timedelta(0), reminded=0)
        if event.type == "extended":
            if event.amount is None or event.amount <= timedelta(0):
                raise ClockError("amount", "an extension needs a positive amount")
            return replace(self, extra=self.extra + event.amount, reminded=0)
        if event.type == "vacation":
            away = dict(self.away)
            if event.until is None or event.until <= event.at:  # back: the pause so far still counts as away
                if event.seat in away:
                    start, until = away[event.seat]
                    away[event.seat] = (start, min(until, event.at))
            else:
                away[event.seat] = (event.at, event.until)
            return replace(self, away=away)
        return replace(self, reminded=max(self.reminded, (event.step or 0) + 1))


def fold(control: TimeControl, availability: dict[int, Availability],
         events: Iterable[ClockEvent]) -> GameClock:
    """The game clock after `events`, in order: the replay the store relies on."""
    clock = GameClock(control, dict(availability))
    for event in events:
        clock = clock.apply(event)
    return clock

"""200 short games with random absences, vacations and deadlines, each played to its end through the clock's
decisions on a controllable clock: no game ever stalls.

The game is a stand-in with what the clock needs from one (a seat to move, a pass it may allow, standing
orders, an end) so that 200 of them run in seconds; the rules engine's own games are soaked with the clock in
test_clock_soak.py. Each turn the seat to move is present or not (per-player absence rate); the table votes
when the clock runs out with neither an order nor a pass; a substitute moves for the absent seat; an opened
seat gets a new, present holder; players announce vacations and come back. A game may wait at most MAX_IDLE
passes for a move. CLOCK_SOAK_200 sets how many games."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from services.notifier.clock import VirtualClock
from services.play import timekeeping as tk
from services.play.votes import CHOICES

GAMES = int(os.environ.get("CLOCK_SOAK_200", "200"))
MAX_IDLE = 60
CONTROLS = [{"kind": "deadline", "per_move_hours": 24}, {"kind": "bank", "bank_hours": 48, "increment_hours": 6},
            {"kind": "deadline", "per_move_hours": 8}, {"kind": "bank", "bank_hours": 12, "increment_hours": 2}]


@dataclass
class ShortGame:
    """Seats move in turn; `length` moves end it. A pass is a move but is allowed only on some turns."""

    seats: list[int]
    length: int
    rng: random.Random
    version: int = 0
    movers: list[int] = field(default_factory=list)  # who actually sent each move (substitutes included)

    @property
    def finished(self) -> bool:
        return self.version >= self.length

    def acting(self) -> int | None:
        return None if self.finished else self.seats[self.version % len(self.seats)]

    def move(self, sender: int, action: dict[str, Any]) -> None:
        assert not self.finished and action["entity"] == self.acting(), (action, self.acting())
        self.version += 1
        self.movers.append(sender)

    def remedies(self, player: int, orders: set[int]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        order = {"type": "order", "entity": player} if player in orders and self.version % 3 == 0 else None
        passing = {"type": "pass", "entity": player} if self.version % 4 != 1 else None
        return order, passing


def play(seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    seats = list(range(1, rng.choice([2, 3, 4]) + 1))
    game = ShortGame(seats, rng.randrange(20, 60), rng)
    vc = VirtualClock(datetime(2026, 1, 5, 8, tzinfo=UTC) + timedelta(hours=rng.randrange(500)))
    log = tk.configure(tk.Table(), rng.choice(CONTROLS), False, vc.now())
    table = tk.Table.replay(log)

    def record(events: list[dict[str, Any]]) -> None:
        nonlocal table
        for event in events:
            table = table.apply(event)
        log.extend(events)

    for p in seats:
        hours = {"tz": rng.choice(["UTC", "Europe/Amsterdam", "America/New_York", "Asia/Tokyo"]),
                 "weekends_off": rng.random() < 0.3, "auto_pass": rng.random() < 0.5}
        if rng.random() < 0.4:
            hours.update(quiet_start="23:00", quiet_end="07:00")
        record(tk.set_hours(table, p, hours, vc.now()))
    absence = {p: rng.uniform(0.0, 0.9) for p in seats}
    orders = {p for p in seats if rng.random() < 0.3}
    stand_in: int | None = None  # the substitute the table chose for this turn
    counts = {"votes": 0, "substitute": 0, "open_seat": 0, "vacations": 0, "remedies": 0}
    idle = 0
    while not game.finished:
        before = game.version
        result = tk.tick(table, tk.Follow("active", game.version, [game.acting()], seats), vc.now(),
                         lambda p: game.remedies(p, orders))
        record(result.events)
        for player, action in result.actions:
            game.move(player, action)
            counts["remedies"] += 1
        for e in result.events:
            if e["type"] == "vote_opened":
                counts["votes"] += 1
            if e["type"] == "vote_decided" and e["choice"] == "substitute":
                stand_in = e["substitute"]
                counts["substitute"] += 1
            if e["type"] == "vote_decided" and e["choice"] == "open_seat":
                absence[e["absent"]] = 0.0  # a new holder takes the seat, and plays
                counts["open_seat"] += 1
        if table.vote is not None:
            for voter in sorted(table.vote.voters - set(table.vote.ballots)):
                if rng.random() < 0.7:
                    choice = rng.choice(CHOICES)
                    sub = rng.choice(sorted(table.vote.voters)) if choice == "substitute" else None
                    record(tk.ballot(table, voter, choice, sub, vc.now()))
        if game.version == before and not game.finished:
            acting = game.acting()
            assert acting is not None
            if stand_in is not None:
                game.move(stand_in, {"type": "move", "entity": acting})
            elif rng.random() > absence[acting]:
                game.move(acting, {"type": "move", "entity": acting})
        if game.version != before:
            stand_in = None
        if rng.random() < 0.02:  # someone announces a few days away (or comes back early)
            who = rng.choice(seats)
            until = vc.now() + timedelta(days=rng.randrange(1, 5)) if rng.random() < 0.8 else None
            record(tk.vacation(table, who, until, vc.now()))
            counts["vacations"] += 1
        idle = 0 if game.version != before else idle + 1
        assert idle <= MAX_IDLE, f"seed {seed}: stalled at move {game.version} ({log[-3:]})"
        vc.advance(timedelta(hours=rng.choice([1, 2, 5, 9, 17])))
    record(tk.tick(table, tk.Follow("finished", game.version, [], seats), vc.now(), lambda p: (None, None)).events)
    assert table.clock is not None and table.clock.to_move is None  # the clock stopped with the game
    assert tk.Table.replay(log) == table  # the whole history of decisions replays to the same clock
    return counts


def test_200_short_games_with_random_absences_all_finish() -> None:
    totals: dict[str, int] = {}
    for seed in range(1, GAMES + 1):
        for key, n in play(seed).items():
            totals[key] = totals.get(key, 0) + n
    # every remedy was exercised, not just the easy path
    assert all(totals[k] > 0 for k in ("votes", "substitute", "open_seat", "vacations", "remedies")), totals

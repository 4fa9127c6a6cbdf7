"""Whole games of real titles (1840 and 1828, the engine's own GameSession) with random absences, vacations
and deadlines, each played to its end through the clock's decisions on a controllable time source: no game ever
stalls.

Each pass the seat to move is present or not (a per-player absence rate); when the clock runs out the
player's standing order or (if chosen) a pass acts, else the table votes; a substitute moves for the absent
seat; an opened seat gets a new, present holder; players announce vacations and come back. A game may wait
at most MAX_IDLE passes for a move, and must reach its end. CLOCK_SOAK_200 sets how many games (4 in `make
test`: two of each title; `make soak` plays 200)."""

from __future__ import annotations

import functools
import os
import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from services.play import timekeeping as tk
from services.play.scheduler import seat_remedies
from services.play.votes import CHOICES
from services.timesource import VirtualTime
from shared.engine import GameSession

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
import randomplay  # noqa: E402

GAMES = int(os.environ.get("CLOCK_SOAK_200", "4"))
MAX_IDLE = 60  # passes a turn may wait for a move
MAX_ACTIONS = 8000
CONTROLS = [{"kind": "deadline", "per_move_hours": 24}, {"kind": "bank", "bank_hours": 48, "increment_hours": 6},
            {"kind": "deadline", "per_move_hours": 8}, {"kind": "bank", "bank_hours": 12, "increment_hours": 2}]
# per title: (engine title, player counts, weights steering random play towards a game's end, depot preference)
TITLES = {
    "1840": ("1840", (2, 3, 4), {"par": 6.0, "buy_shares": 3.0, "sell_shares": 0.4, "pass": 1.0, "bid": 2.0,
                                 "merge": 3.0, "lay_tile": 2.5, "place_token": 1.5, "remove_token": 0.3,
                                 "run_routes": 10.0, "dividend": 5.0, "buy_train": 4.0, "scrap_train": 0.3,
                                 "reassign_trains": 2.0, "buy_company": 0.5, "choose": 1.0}, 0.0),
    "1828": ("1828.Games", (3, 4, 5), {**randomplay.WEIGHTS, "bid": 4.0, "choose": 0.5, "merge": 3.0,
                                       "swap_train": 0.3, "bankrupt": 0.2, "failed_merge": 0.05}, 0.8),
}


def pick(session: GameSession, rng: random.Random, weights: dict[str, float], depot: float) -> dict[str, Any]:
    """A random legal move, as the engine soaks choose them (tests/engine/randomplay.py)."""
    action = randomplay.choose(session.game, rng, weights, depot)
    if action is None:
        raise AssertionError("the game goes on but offers no move")
    return action


def play(seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    label = ("1840", "1828")[seed % 2]
    title, counts_, weights, depot = TITLES[label]
    seats = list(range(1, rng.choice(counts_) + 1))
    session = GameSession.new(title, [{"id": p, "name": f"P{p}"} for p in seats], seed, [])
    vc = VirtualTime(datetime(2026, 1, 5, 8, tzinfo=UTC) + timedelta(hours=rng.randrange(500)))
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
    absence = {p: rng.uniform(0.2, 0.9) for p in seats}
    counts = {"votes": 0, "substitute": 0, "open_seat": 0, "vacations": 0, "remedies": 0, "moves": 0}
    stand_in = False  # the table chose a substitute for this turn
    idle = 0
    while not session.finished:
        before = session.version
        acting = session.acting_players()
        result = tk.tick(table, tk.Follow("active", session.version, list(acting), seats), vc.now(),
                         lambda p: seat_remedies(session, p))
        record(result.events)
        for _player, action in result.actions:  # the order or pass the clock played at the deadline
            session.submit(action)
            counts["remedies"] += 1
        for e in result.events:
            if e["type"] == "vote_opened":
                counts["votes"] += 1
            if e["type"] == "vote_decided" and e["choice"] == "substitute":
                stand_in = True
                counts["substitute"] += 1
            if e["type"] == "vote_decided" and e["choice"] == "open_seat":
                absence[e["absent"]] = 0.0  # a new holder takes the seat, and plays
                counts["open_seat"] += 1
        if table.vote is not None:
            for voter in sorted(table.vote.voters - set(table.vote.ballots)):
                if rng.random() < 0.7:
                    choice = rng.choice(CHOICES)
                    # a table tends to agree on who stands in: the first voter, mostly
                    pool = sorted(table.vote.voters)
                    sub = (pool[0] if rng.random() < 0.7 else rng.choice(pool)) if choice == "substitute" else None
                    record(tk.ballot(table, voter, choice, sub, vc.now()))
        if session.version == before and not session.finished:
            mover = table.clock.to_move if table.clock is not None else None
            if stand_in or mover is None or rng.random() > absence.get(mover, 0.0):
                session.submit(pick(session, rng, weights, depot))  # present (or the substitute): a move
        if session.version != before:
            stand_in = False
            counts["moves"] += session.version - before
        if rng.random() < 0.01:  # someone announces a few days away (or comes back early)
            who = rng.choice(seats)
            until = vc.now() + timedelta(days=rng.randrange(1, 5)) if rng.random() < 0.8 else None
            record(tk.vacation(table, who, until, vc.now()))
            counts["vacations"] += 1
        idle = 0 if session.version != before else idle + 1
        assert idle <= MAX_IDLE, f"{label} seed {seed}: stalled at version {session.version} ({log[-3:]})"
        assert session.version < MAX_ACTIONS, f"{label} seed {seed}: no end in sight"
        vc.advance(timedelta(hours=rng.choice([1, 2, 5, 9, 17])))
    record(tk.tick(table, tk.Follow("finished", session.version, [], seats), vc.now(), lambda p: (None, None)).events)
    assert table.clock is not None and table.clock.to_move is None  # the clock stopped with the game
    assert tk.Table.replay(log) == table  # the whole history of decisions replays to the same clock
    assert session.game.game_end_reason, f"{label} seed {seed}: finished without a reason"
    return counts


@functools.cache
def played(seed: int) -> dict[str, int]:
    """A game is the same game every time it is played (seeded, on a virtual clock): played once per process,
    whichever test asks first (under pytest-xdist the last test may run in another process than the games)."""
    return play(seed)


@pytest.mark.parametrize("seed", range(1, GAMES + 1))
def test_whole_games_with_random_absences_and_deadlines_never_stall(seed: int) -> None:
    counts = played(seed)
    # deadlines were reached and dealt with in every game: by the clock's remedy or by a vote of the table
    # (a game may be short: a random 1828 can end in a bankruptcy within 80 moves; `play` checks it ended
    # by a rule of the title)
    assert counts["moves"] > 0 and counts["votes"] + counts["remedies"] > 0, counts


def test_the_soak_met_every_way_of_dealing_with_a_deadline() -> None:
    """Over the run: remedies, votes, a stand-in and an open seat all happened (one game need not see all)."""
    seen: dict[str, int] = {}
    for seed in range(1, GAMES + 1):
        for key, value in played(seed).items():
            seen[key] = seen.get(key, 0) + value
    assert seen["remedies"] > 0 and seen["votes"] > 0, seen
    assert seen["open_seat"] > 0 and seen["substitute"] > 0, seen

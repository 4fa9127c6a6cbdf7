"""Random games with random absences and deadlines: real engine sessions driven through the clock's
decisions (auto pass, table votes, substitutes, open seats, extensions). Every game must keep moving: a
turn is never left waiting more than MAX_IDLE passes, and each game plays on to its end or its action cap.
CLOCK_SOAK sets how many games (default 3 in `make test`); CLOCK_SOAK_ACTIONS the cap per game."""

from __future__ import annotations

import os
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from services.play import timekeeping as tk
from services.play.scheduler import seat_remedies
from services.play.votes import CHOICES
from services.timesource import VirtualTime
from shared.engine import GameSession

GAMES = int(os.environ.get("CLOCK_SOAK", "3"))
ACTIONS = int(os.environ.get("CLOCK_SOAK_ACTIONS", "150"))
MAX_IDLE = 40
# steer random play towards moves that advance a game (as the engine soaks do)
WEIGHTS = {"par": 6.0, "buy_shares": 8.0, "lay_tile": 6.0, "place_token": 3.0, "run_routes": 20.0,
           "dividend": 10.0, "buy_train": 8.0, "pass": 1.0, "sell_shares": 0.15}
CONTROLS = [{"kind": "deadline", "per_move_hours": 24}, {"kind": "bank", "bank_hours": 48, "increment_hours": 6},
            {"kind": "deadline", "per_move_hours": 12}]


def pick(session: GameSession, rng: random.Random) -> dict[str, Any]:
    game = session.game
    for kind in sorted(game.action_types(), key=lambda t: -WEIGHTS.get(t, 1.0) * rng.random()):
        options = game.legal_actions(kinds={kind})
        if options:
            return rng.choice(options)
    raise AssertionError("the game goes on but offers no move")


def soak(seed: int) -> tuple[int, set[str]]:
    rng = random.Random(seed)
    players = rng.choice([2, 3])
    session = GameSession.new("1840", [{"id": i, "name": f"P{i}"} for i in range(1, players + 1)], seed, [])
    vc = VirtualTime(datetime(2026, 1, 5, 8, tzinfo=UTC) + timedelta(hours=rng.randrange(200)))
    log = tk.configure(tk.Table(), rng.choice(CONTROLS), False, vc.now())
    for p in range(1, players + 1):
        hours = {"tz": rng.choice(["UTC", "Europe/Amsterdam", "America/New_York", "Asia/Tokyo"]),
                 "weekends_off": rng.random() < 0.3, "auto_pass": rng.random() < 0.5}
        if rng.random() < 0.5:
            hours.update(quiet_start="23:00", quiet_end="07:00")
        log += tk.set_hours(tk.Table.replay(log), p, hours, vc.now())
    absent_rate = rng.uniform(0.2, 0.6)
    idle = decisions = 0
    while not session.finished and session.version < ACTIONS:
        version = session.version
        acting = session.acting_players()
        follow = tk.Follow("active", session.version, list(acting), list(range(1, players + 1)))
        table = tk.Table.replay(log)
        result = tk.tick(table, follow, vc.now(), lambda p: seat_remedies(session, p))
        log += result.events
        decisions += len(result.events)
        for _player, action in result.actions:
            session.submit(action)
        table = tk.Table.replay(log)
        if session.version == version and table.vote is not None:
            for voter in sorted(table.vote.voters - set(table.vote.ballots)):
                if rng.random() < 0.8:
                    choice = rng.choice(CHOICES)
                    sub = rng.choice(sorted(table.vote.voters)) if choice == "substitute" else None
                    log += tk.ballot(table, voter, choice, sub, vc.now())
                    table = tk.Table.replay(log)
        if session.version == version:
            decided = [e for e in result.events if e["type"] == "vote_decided" and e["choice"] != "extend"]
            # a substitute or the seat's new holder moves for the absent one; else maybe the player returns
            if decided or rng.random() > absent_rate:
                session.submit(pick(session, rng))
        idle = 0 if session.version != version else idle + 1
        assert idle <= MAX_IDLE, f"seed {seed}: stalled at version {session.version} ({log[-3:]})"
        vc.advance(timedelta(hours=rng.choice([1, 3, 8, 13, 30])))
    assert tk.Table.replay(log) == tk.Table.replay([dict(e) for e in log])  # the decisions replay
    return session.version, {e['type'] for e in log} | {f"vote:{e['choice']}" for e in log if e['type'] == 'vote_decided'}


@pytest.mark.parametrize("seed", range(1, GAMES + 1))
def test_clock_soak_random_absences_never_stall(seed: int) -> None:
    version, kinds = soak(seed)
    assert version >= min(ACTIONS, 20)
    assert {"turn", "moved", "reminded", "vote_opened"} <= kinds, kinds  # deadlines were reached and dealt with

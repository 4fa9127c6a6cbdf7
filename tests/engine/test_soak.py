"""Random-play soak: seeded random choices among `legal_actions` play whole games to the end.

Every chosen action must be accepted (legal_actions offers only what apply accepts), and after every
action the invariants of `randomplay.check_invariants` hold: money conserved, every certificate accounted
for, limits respected.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import randomplay  # noqa: E402

# 1825: the configurations of issue 2 (Unit 1, with and without R1, every player count) carry most games;
# the other Units and kits are exercised too
CONFIGS_1825 = [(["unit_1"], n) for n in (2, 3, 4, 5)] + [(["unit_1", "r1"], n) for n in (2, 3, 4, 5)]
EXTRA_1825 = [(["unit_2"], 3), (["unit_3"], 2), (["unit_1", "r2"], 3), (["unit_1", "r3"], 4),
              (["unit_12"], 4), (["unit_1", "k3"], 3)]
# every configuration at every player count is soaked in titles/test_1825_soak.py; this one plays many games
# of the common sets: 20 in `make test` (each common set twice, two other Units), `make soak` 200 (SOAK_1825=N).
GAMES = int(os.environ.get("SOAK_1825", "20"))


def _one(args: tuple[str, list[str], int, int]) -> tuple[int, bool, str | None, int]:
    title, options, players, seed = args
    stats = randomplay.play(title, options, players, seed)
    return seed, stats.finished, stats.reason, stats.actions


def test_random_1825_games_play_to_the_end_with_invariants_holding() -> None:
    jobs = []
    for i in range(GAMES):
        options, players = (EXTRA_1825[i // 10 % len(EXTRA_1825)] if i % 10 == 9 else
                            CONFIGS_1825[i % len(CONFIGS_1825)])
        jobs.append(("1825", options, players, 1000 + i))
    with randomplay.pool() as pool:
        results = list(pool.map(_one, jobs))
    unfinished = [r for r in results if not r[1]]
    assert not unfinished, f"games that did not reach their end: {unfinished[:5]}"
    reasons = {r[2] for r in results}
    assert reasons <= {"bank", "stock_market"}
    assert "bank" in reasons

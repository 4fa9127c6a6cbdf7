"""1825 random-play soak over every configuration: each of meta.json's 27 configurations, plus option sets that
only the set-up rules build (the recorded Units 1+2 game's kits; all Units with R1-R3, K5 and K7, seven
counted minors), is played by seeded random choices among `legal_actions` to its end, with
`randomplay.check_invariants` after every action (money conserved, every certificate accounted for, pool
limit, no negative cash). The player count runs through each option set's allowed range, so the soak sees
the privates run out and LNWR shares handed out at set-up as well as the two-player games.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from shared.engine.titledata import DATA_DIR
from shared.engine.titles.g1825.compose import UNIT_OPTIONS, player_range, units_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import randomplay  # noqa: E402

META = json.loads((DATA_DIR / "1825" / "meta.json").read_text())
COMPOSED = [
    ["unit_12", "r1", "r2", "r3", "k3", "d1", "big_bank", "db1"],
    ["unit_123", "r1", "r2", "r3", "k5", "k7"],
]
SEED = 1825


def cases() -> list[tuple[list[str], int, int]]:
    """(options, players, seed): one game per configuration, the player count stepping through its range."""
    sets = [c["optional_rules"] for c in META["configurations"]] + COMPOSED
    out = []
    for index, options in enumerate(sets):
        options = sorted(options, key=lambda o: o not in UNIT_OPTIONS)
        low, high = player_range(META, options)
        out.append((options, low + index % (high - low + 1), SEED + index))
    return sorted(out, key=lambda case: -len(units_of(case[0])))  # the longest games first: both workers busy


def _play(case: tuple[list[str], int, int]) -> tuple[list[str], int, int, bool, str | None, int]:
    options, players, seed = case
    # an 8-player game of all three Units and the kits runs past 4,000 moves to a proper end (Units 1+2+3 +
    # R1-R3 + K5 + K7, seed 1853: the bank breaks at move 4,029), so the bound grows with the table
    stats = randomplay.play("1825", options, players, seed, max_actions=1000 * max(4, players))
    return options, players, seed, stats.finished, stats.reason, stats.actions


def test_every_configuration_plays_to_its_end_with_invariants_holding() -> None:
    with randomplay.pool() as pool:
        results = list(pool.map(_play, cases()))
    unfinished = [r for r in results if not r[3]]
    assert not unfinished, f"games that did not reach their end: {unfinished}"
    assert {r[4] for r in results} <= {"bank", "stock_market"}
    assert len(results) == len(META["configurations"]) + len(COMPOSED)

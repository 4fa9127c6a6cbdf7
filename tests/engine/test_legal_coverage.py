"""Every move players made is offered (issue 23): replay the conformance games and, before each recorded move
(undo, redo and chat aside), some entry legal-actions gives the moving entity's player covers it (same type
and entity; same fields; a range holds the value; a tile by name, shares by corporation and count; see
`legal_coverage.covers`).

Every such move is offered, or (a move after which the game can only be taken back) named among the dead
ends legal-actions lists apart with their reason; which moves are dead ends is pinned per game in DEAD_ENDS,
so an offer that turns into a dead end, or the reverse, fails the test. The sample is deterministic
(`legal_coverage.sample`: the recorded games, every game with standing orders, every k-th other generated
game; of the everyday move types every 16th); `LEGAL_COVERAGE=all` checks every game.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import legal_coverage  # noqa: E402

NAMES = legal_coverage.games()
SAMPLED = legal_coverage.sample(NAMES)
CHECKED = NAMES if os.environ.get("LEGAL_COVERAGE") == "all" else SAMPLED

# game -> kind of move -> how many sampled moves of that kind are named among the dead ends, not offered: the
# 1828 mergers that fail. The engine takes the move that starts one, but only an undo can follow it, so
# legal-actions names it apart with its reason (`dead_ends`: g1828/steps/merger.py `merger_failure`) and never
# offers it (a bot offered it would strand the game); the players of these games took each one back.
DEAD_ENDS: dict[str, dict[str, int]] = {
    "generated/1828/gen1828_3p_136186": {"choose, undone later": 11},
    "generated/1828/gen1828_4p_2999273": {"choose, undone later": 3, "merge, undone later": 3},
    "generated/1828/gen1828_4p_752101": {"choose, undone later": 3, "merge, undone later": 2},
    "generated/1828/gen1828_5p_457227": {"choose, undone later": 10, "merge, undone later": 4},
    "generated/1828/gen1828_4p_519478": {"choose, undone later": 7, "merge, undone later": 1},
    "generated/1828/gen1828_5p_226194": {"choose, undone later": 35, "merge, undone later": 36},
    "generated/1828/gen1828_egp_4p_263517": {"choose, undone later": 4, "merge, undone later": 1},
    # 1840: a major short of the opening bid names a line (people's game 218809, id 736, undone at once)
    "1840/218809": {"merge, undone later": 1},
}


@pytest.mark.parametrize("name", CHECKED)
def test_every_recorded_move_is_offered(name: str) -> None:
    coverage = legal_coverage.measure(name)
    assert not coverage.missing, (
        f"{name}: offered {coverage.covered} of {coverage.moves} sampled moves; neither offered nor named as "
        f"a dead end: {dict(coverage.missing)}\n" + legal_coverage.table({name: coverage}))
    assert all(kind.endswith(", undone later") for kind in coverage.dead_ends), (
        f"{name}: a move the players kept is named as a dead end: {dict(coverage.dead_ends)}")
    if name in SAMPLED or name in DEAD_ENDS:
        assert dict(coverage.dead_ends) == DEAD_ENDS.get(name, {}), (
            f"{name}: named as dead ends {dict(coverage.dead_ends)}, expected {DEAD_ENDS.get(name, {})}")


def test_the_gap_table_names_only_games_that_are_checked() -> None:
    assert set(DEAD_ENDS) <= set(NAMES), set(DEAD_ENDS) - set(NAMES)
    assert all(counts and all(n > 0 for n in counts.values()) for counts in DEAD_ENDS.values())

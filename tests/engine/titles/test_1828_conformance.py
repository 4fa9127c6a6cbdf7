"""1828.Games against the golden traces.

No 1828 game matches to its last line yet. Each game instead has a
ratchet: the number of leading digest lines that must match. Raise the number as the title grows; a
drop means a regression.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shared.engine import GameSession
from shared.engine.session import final_active_flags

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_conformance import first_diff, load  # noqa: E402

PREFIXES = {
    "generated/1828/gen1828_3p_318877": 298,
    "1828/1828Games_game_end_bankrupt": 116,
    "1828/1828Games_game_end_stock_market": 206,
}


def replay_prefix(name: str, lines: int) -> None:
    record, trace, setup = load(name)
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"]["optional_rules"], record["id"])
    found = first_diff(setup, session.digest())
    assert found is None, f"setup differs: {found}"
    flags = final_active_flags(record["actions"])
    for i, action in enumerate(record["actions"][:lines]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
        found = first_diff(trace[i], session.digest(action))
        assert found is None, f"{name}: index {i} (id {action['id']}, {action['type']}): {found}"


@pytest.mark.parametrize(("name", "lines"), sorted(PREFIXES.items()))
def test_leading_digest_lines_match(name: str, lines: int) -> None:
    replay_prefix(name, lines)

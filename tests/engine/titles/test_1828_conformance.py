"""1828.Games against the golden traces.

Every recorded game matches to its last line: each is asserted in full (every digest line after every
action, the final result) and replayed through `from_record`, which validates every action that stays
in the log.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shared.engine import GameSession
from shared.engine.session import final_active_flags

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_conformance import first_diff, load  # noqa: E402

GAMES = [
    "generated/1828/gen1828_3p_318877",
    "1828/1828Games_game_end_bankrupt",
    "1828/1828Games_game_end_stock_market",
]


def replay(name: str) -> GameSession:
    record, trace, setup = load(name)
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"]["optional_rules"], record["id"])
    found = first_diff(setup, session.digest())
    assert found is None, f"setup differs: {found}"
    flags = final_active_flags(record["actions"])
    assert len(trace) == len(record["actions"])
    for i, action in enumerate(record["actions"]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
        found = first_diff(trace[i], session.digest(action))
        assert found is None, f"{name}: index {i} (id {action['id']}, {action['type']}): {found}"
    return session


@pytest.mark.parametrize("name", GAMES)
def test_every_digest_line_matches(name: str) -> None:
    record, _, _ = load(name)
    session = replay(name)
    assert session.result == record["result"]
    assert session.state is not None and session.state.game_end_reason == record["game_end_reason"]


@pytest.mark.parametrize("name", GAMES)
def test_from_record_validates_and_reaches_the_result(name: str) -> None:
    record, _, _ = load(name)
    session = GameSession.from_record(record)
    assert session.result == record["result"]

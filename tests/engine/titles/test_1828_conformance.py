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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_conformance import load, replay_against_trace  # noqa: E402

GAMES = [
    "generated/1828/gen1828_3p_318877",
    "1828/1828Games_game_end_bankrupt",
    "1828/1828Games_game_end_stock_market",
]


def replay(name: str) -> GameSession:
    return replay_against_trace(name)


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

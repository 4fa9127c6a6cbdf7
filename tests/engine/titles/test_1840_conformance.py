"""1840 against the golden traces: the recorded 2-player game matches every digest line and its result;
the generated 4-player game is a ratchet on its leading lines."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shared.engine import GameSession
from shared.engine.session import final_active_flags

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_conformance import first_diff, load  # noqa: E402

FULL_GAMES = ["1840/2player"]
PREFIXES = {"generated/1840/gen1840_4p_3333": 29}


def replay_prefix(name: str, lines: int) -> GameSession:
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
    return session


@pytest.mark.parametrize("name", FULL_GAMES)
def test_every_digest_line_matches(name: str) -> None:
    record, _, _ = load(name)
    session = replay_prefix(name, len(record["actions"]))
    assert session.finished
    assert session.result == {k: v for k, v in record["result"].items()}


@pytest.mark.parametrize("name", FULL_GAMES)
def test_from_record_validates_every_surviving_action(name: str) -> None:
    record, _, _ = load(name)
    session = GameSession.from_record(record)
    assert session.finished and session.game.game_end_reason == "fixed_round"
    assert session.result == record["result"]


@pytest.mark.parametrize(("name", "lines"), sorted(PREFIXES.items()))
def test_leading_digest_lines_match(name: str, lines: int) -> None:
    replay_prefix(name, lines)

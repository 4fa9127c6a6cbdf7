"""Golden conformance: replay recorded games and compare the digest after EVERY action with the trace
the reference engine produced (schema: tests/fixtures/conformance/README.md)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession
from shared.engine.session import final_active_flags

CONFORMANCE = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"

GAMES = [
    "1825/1825_game_end_bank",
    "1825/1825_game_end_stock_market",
    "generated/1825/gen1825_unit1_3p_482113",
    "generated/1825/gen1825_unit1_r1_3p_715733",
]


def first_diff(expected: Any, actual: Any, path: str = "") -> tuple[str, Any, Any] | None:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual), key=str):
            if key not in actual:
                return (f"{path}.{key}", expected[key], "<missing>")
            if key not in expected:
                return (f"{path}.{key}", "<absent>", actual[key])
            found = first_diff(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            found = first_diff(e, a, f"{path}[{i}]")
            if found:
                return found
        return (f"{path}.length", len(expected), len(actual)) if len(expected) != len(actual) else None
    if type(expected) is not type(actual) or expected != actual:
        return (path, expected, actual)
    return None


def load(name: str) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    record = json.loads((CONFORMANCE / f"{name}.json").read_text())
    with gzip.open(CONFORMANCE / f"{name}.trace.jsonl.gz", "rt") as f:
        trace = [json.loads(line) for line in f]
    setup = json.loads((CONFORMANCE / f"{name}.setup.json").read_text())
    return record, trace, setup


def replay_against_trace(name: str, lines: int | None = None) -> GameSession:
    """Replay a recorded game action by action, asserting the set-up digest and every digest line."""
    record, trace, setup = load(name)
    assert len(trace) == len(record["actions"])
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"]["optional_rules"], record["id"])
    diff = first_diff(setup, session.digest())
    assert diff is None, f"{name}: set-up differs: {diff}"
    survivors = final_active_flags(record["actions"])
    for index, action in enumerate(record["actions"][:lines]):
        session.submit(action, trusted=not survivors[index], keep_id=True, recorded=True)
        diff = first_diff(trace[index], session.digest(action))
        assert diff is None, f"{name}: action id {action['id']} ({action['type']}) index {index}: {diff}"
    return session


@pytest.mark.parametrize("name", GAMES)
def test_every_digest_line_matches_the_golden_trace(name: str) -> None:
    record, _, _ = load(name)
    session = replay_against_trace(name)
    assert session.finished
    assert session.result == record["result"]


@pytest.mark.parametrize("name", GAMES)
def test_from_record_validates_every_surviving_action_and_reaches_the_result(name: str) -> None:
    record, _, _ = load(name)
    session = GameSession.from_record(record)
    assert session.result == record["result"]
    assert session.game.game_end_reason == record["game_end_reason"]

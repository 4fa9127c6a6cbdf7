"""Golden conformance: every recorded and generated game, replayed (recorded auto actions) and played live
(every action a live move, the engine deriving the auto actions), compared with the reference's digest after
EVERY action; and every action the reference refused, refused here in the same position with the state
unchanged (schema: tests/fixtures/conformance/README.md). The checks live in `shared.conformance`, shared
with `make conformance`."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from shared.conformance import check_refusals, check_trace, discover, first_diff, fixture_paths
from shared.engine import GameSession
from shared.engine.session import final_active_flags

CONFORMANCE = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"
KNOWN = json.loads(Path(__file__).with_name("conformance_known.json").read_text(encoding="utf-8"))
ALL = [str(p.relative_to(CONFORMANCE))[: -len(".json")] for p in discover(CONFORMANCE)]
WITH_REFUSALS = [n for n in ALL if fixture_paths(CONFORMANCE / f"{n}.json")[2].exists()]
# games that replay completely in both modes, for the checks below that need a whole game
GAMES = [n for n in ALL if n not in KNOWN["replay"] and n not in KNOWN["live"]]


def _expect(mode: str, names: list[str]) -> list[Any]:
    """Each game as a parameter; a game `conformance_known.json` lists as divergent in this mode is a strict
    xfail naming its first divergence, so it fails the suite the moment it passes and the list stays true
    (`python -m bench.conformance_table --write-known` rewrites it)."""
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN[mode][n])) if n in KNOWN[mode]
            else n for n in names]


@pytest.mark.parametrize("name", _expect("replay", ALL))
def test_replay_matches_every_line_of_the_golden_trace(name: str) -> None:
    outcome = check_trace(CONFORMANCE / f"{name}.json", "replay")
    assert outcome.complete, f"{name}: {outcome.matched}/{outcome.total} lines; {outcome.note}"


@pytest.mark.parametrize("name", _expect("live", ALL))
def test_live_play_derives_the_recorded_consequences(name: str) -> None:
    """Every action a live move (recorded auto actions ignored): the digest must still match every line."""
    outcome = check_trace(CONFORMANCE / f"{name}.json", "live")
    assert outcome.complete, f"{name}: {outcome.matched}/{outcome.total} lines; {outcome.note}"


@pytest.mark.parametrize("name", _expect("refusals", WITH_REFUSALS))
def test_every_reference_refusal_is_refused_with_the_state_unchanged(name: str) -> None:
    outcome = check_refusals(CONFORMANCE / f"{name}.json")
    assert outcome.complete, f"{name}: {outcome.matched}/{outcome.total} refused; {outcome.note}"


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
def test_from_record_validates_every_surviving_action_and_reaches_the_result(name: str) -> None:
    record, _, _ = load(name)
    session = GameSession.from_record(record)
    assert session.result == record["result"]
    assert session.game.game_end_reason == record["game_end_reason"]

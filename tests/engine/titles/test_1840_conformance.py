"""1840 against the golden traces: every public 1840 game (the recorded 2-player game and the 13 generated
ones, 2-6 players and the small map) matches every digest line and its result, replays through
`from_record`, and played live derives exactly the recorded automatic actions."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shared.engine import GameSession
from shared.engine.session import final_active_flags

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_conformance import load, replay_against_trace  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"
FULL_GAMES = ["1840/2player"] + sorted(
    f"generated/1840/{p.name[: -len('.json')]}" for p in (FIXTURES / "generated" / "1840").glob("gen1840_*.json")
    if not p.name.endswith(".setup.json"))


def replay_prefix(name: str, lines: int) -> GameSession:
    return replay_against_trace(name, lines)


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


def _auto_shape(action: dict) -> dict:
    """What must agree between a generated and a recorded automatic action (routes of equal revenue may
    list their hex chains in another order)."""
    out = {"type": action["type"], "entity": action["entity"]}
    if action["type"] == "run_routes":
        out["routes"] = sorted((r["train"], r["revenue"], tuple(sorted(r["hexes"]))) for r in action["routes"])
    elif action["type"] == "reassign_trains":
        out["assignments"] = sorted((a["train"], a["corporation"]) for a in action["assignments"])
    return out


@pytest.mark.parametrize("name", FULL_GAMES)
def test_live_play_generates_the_recorded_auto_actions(name: str) -> None:
    """Submitted live (recorded auto_actions stripped), the engine runs the Stadtbahnen and hands over
    single trams itself, exactly as the recording did, and the game ends with the recorded result."""
    record, _, _ = load(name)
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"]["optional_rules"], record["id"])
    flags = final_active_flags(record["actions"])
    generated = 0
    for i, action in enumerate(record["actions"]):
        live = {k: v for k, v in action.items() if k != "auto_actions"}
        stored = session.submit(live, trusted=not flags[i], keep_id=True, recorded=False)
        want = [_auto_shape(a) for a in action.get("auto_actions") or []]
        got = [_auto_shape(a) for a in stored.get("auto_actions") or []]
        assert got == want, f"{name}: index {i} (id {action['id']}, {action['type']})"
        generated += len(got)
    assert generated > 0
    assert session.finished and session.result == record["result"]

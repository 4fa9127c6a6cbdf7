"""A public game's record replayed up to an action, for scenario tests that start from a real position.

One helper for every title's tests: the record's moves are applied as replay mode applies them (each with its
recorded id and auto actions; a move the record itself takes back later is applied trusted, as the reference
loads it), so the position is exactly the golden trace's line before action `upto`."""

from __future__ import annotations

import json
from pathlib import Path

from shared.engine import GameSession
from shared.engine.session import final_active_flags

CONFORMANCE = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"


def replayed(path: Path, upto: int) -> GameSession:
    """The game recorded at `path` after its first `upto` actions."""
    record = json.loads(path.read_text())
    settings = record["settings"]
    session = GameSession.new(record["title"], record["players"], settings["seed"],
                              settings.get("optional_rules") or [], record.get("id", 0))
    survives = final_active_flags(record["actions"])
    for i, action in enumerate(record["actions"][:upto]):
        session.submit(action, trusted=not survives[i], keep_id=True, recorded=True)
    return session

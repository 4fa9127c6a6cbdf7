"""Replay properties: the state is a pure fold of the action log.

- replaying a prefix, snapshotting, restoring and replaying the rest equals one full replay;
- a snapshot restores to an identical state (digest and legal actions);
- the same log always gives the same state (determinism).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.engine import GameSession
from shared.engine.session import final_active_flags

CONFORMANCE = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"
GAME = CONFORMANCE / "1825" / "1825_game_end_bank.json"


@lru_cache(maxsize=1)
def record() -> dict[str, Any]:
    return json.loads(GAME.read_text())


def fresh() -> GameSession:
    rec = record()
    return GameSession.new(rec["title"], rec["players"], rec["settings"]["seed"], rec["settings"]["optional_rules"],
                           rec["id"])


def feed(session: GameSession, start: int, stop: int) -> None:
    rec = record()
    flags = final_active_flags(rec["actions"])
    for i in range(start, stop):
        session.submit(rec["actions"][i], trusted=not flags[i], keep_id=True, recorded=True)


@lru_cache(maxsize=1)
def full_digests() -> tuple[str, ...]:
    session = fresh()
    rec = record()
    flags = final_active_flags(rec["actions"])
    out = []
    for i, action in enumerate(rec["actions"]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
        out.append(json.dumps(session.digest(action), sort_keys=True))
    return tuple(out)


@settings(max_examples=8, deadline=None)
@given(st.data())
def test_prefix_snapshot_then_rest_equals_full_replay(data: st.DataObject) -> None:
    total = len(record()["actions"])
    split = data.draw(st.integers(min_value=0, max_value=total), label="split")
    session = fresh()
    feed(session, 0, split)
    restored = GameSession.restore(session.snapshot())
    feed(restored, split, total)
    last = record()["actions"][-1]
    assert json.dumps(restored.digest(last), sort_keys=True) == full_digests()[-1]
    assert restored.result == record()["result"]


@settings(max_examples=8, deadline=None)
@given(st.data())
def test_snapshot_restores_an_identical_state(data: st.DataObject) -> None:
    total = len(record()["actions"])
    split = data.draw(st.integers(min_value=1, max_value=total - 1), label="split")
    session = fresh()
    feed(session, 0, split)
    action = record()["actions"][split - 1]
    restored = GameSession.restore(session.snapshot())
    assert json.dumps(restored.digest(action), sort_keys=True) == full_digests()[split - 1]
    assert restored.legal_actions() == session.legal_actions()
    assert restored.version == session.version


def test_replay_is_deterministic() -> None:
    a, b = fresh(), fresh()
    feed(a, 0, 400)
    feed(b, 0, 400)
    assert a.digest() == b.digest()
    assert a.game.legal_actions() == b.game.legal_actions()


@settings(max_examples=6, deadline=None)
@given(st.data())
def test_fast_import_equals_step_by_step_replay_and_keeps_undo_working(data: st.DataObject) -> None:
    """`from_record` folds only the surviving actions; the result must be indistinguishable."""
    rec = record()
    cut = data.draw(st.integers(min_value=1, max_value=len(rec["actions"]) - 1), label="cut")
    prefix = dict(rec, actions=rec["actions"][:cut])
    imported = GameSession.from_record(prefix)
    stepped = fresh()
    feed(stepped, 0, cut)
    assert imported.digest() == stepped.digest()
    assert [e.active for e in imported.entries] == [e.active for e in stepped.entries]
    assert imported.redo_stack == stepped.redo_stack
    for session in (imported, stepped):
        if session.version and any(e.active and e.action["type"] not in ("undo", "redo", "message")
                                   for e in session.entries):
            session.submit({"type": "undo", "entity": rec["players"][0]["id"]})
    assert imported.digest() == stepped.digest()

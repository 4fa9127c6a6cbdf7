"""A snapshot carries the whole log (undo reaches back anywhere), yet costs the same late in a long game as
early: full chunks of the log stay pickled between snapshots, and an undo or redo that flips an entry in a
chunk makes that chunk be pickled again. These tests hold the second half of that to account."""

from __future__ import annotations

import json
from pathlib import Path

from shared.engine import GameSession
from shared.engine.session import ENTRY_CHUNK

RECORD = (Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "generated" / "1825"
          / "gen1825_unit_123_5p_514468.json")


def _same(a: GameSession, b: GameSession) -> None:
    assert a.actions == b.actions
    assert [e.active for e in a.entries] == [e.active for e in b.entries]
    assert a.redo_stack == b.redo_stack
    assert a.game.digest({}) == b.game.digest({})


def test_an_undo_into_a_pickled_chunk_is_in_the_next_snapshot() -> None:
    session = GameSession.from_record(json.loads(RECORD.read_text()), limit=2 * ENTRY_CHUNK + 50)
    _same(GameSession.restore(session.snapshot()), session)
    kept = dict(session._chunks)
    assert set(kept) == {0, 1}  # the full chunks are kept pickled for the next snapshot

    target = session.entries[ENTRY_CHUNK + 20].action["id"]  # inside the second chunk
    session.submit({"type": "undo", "action_id": target})
    assert session._chunks.get(0) is kept[0]  # untouched: reused as it is
    assert 1 not in session._chunks  # its entries were flipped: pickled again at the next snapshot
    undone = GameSession.restore(session.snapshot())
    _same(undone, session)
    assert not undone.entries[ENTRY_CHUNK + 21].active

    session.submit({"type": "redo"})
    redone = GameSession.restore(session.snapshot())
    _same(redone, session)
    assert redone.entries[ENTRY_CHUNK + 21].active


def test_a_snapshot_reuses_the_log_it_pickled_before() -> None:
    """Moves after a snapshot pickle only the tail: every full chunk is the same bytes object as before."""
    record = json.loads(RECORD.read_text())
    session = GameSession.from_record(record, limit=3 * ENTRY_CHUNK + 10)
    restored = GameSession.restore(session.snapshot())
    before = dict(restored._chunks)
    assert len(before) == 3
    for action in record["actions"][3 * ENTRY_CHUNK + 10:3 * ENTRY_CHUNK + 30]:
        restored.submit(action, trusted=True, keep_id=True, recorded=True)
    again = GameSession.restore(restored.snapshot())
    assert all(restored._chunks[k] is blob for k, blob in before.items())
    _same(again, restored)


def test_a_long_live_game_keeps_few_checkpoints_and_still_undoes_far_back() -> None:
    """Checkpoints thin out with distance: a live game of 1,500 actions kept one per 32 actions (49 of 20 KB
    each, in memory and in every snapshot); now a handful per doubling of the distance. An undo of 1,100
    actions still folds from one of them to the right position."""
    record = json.loads(RECORD.read_text())
    session = GameSession.from_record(record, live=True, limit=1500)
    assert 8 < len(session._checkpoints) <= 18
    session.submit({"type": "undo", "action_id": record["actions"][399]["id"]})
    _same_position = GameSession.from_record(record, limit=400)
    assert session.game.digest({}) == _same_position.game.digest({})
    assert GameSession.restore(session.snapshot()).game.digest({}) == _same_position.game.digest({})

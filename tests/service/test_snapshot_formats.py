"""A database restored from a backup may hold snapshots an older version wrote (issue 48): a snapshot of an
older format, or one that no longer unpickles, is passed over and the game is rebuilt from its event log, to
the same state as from a current snapshot (services/play/sessions.py)."""

from __future__ import annotations

import pickle
import sqlite3
from pathlib import Path

import pytest

from bench.rest_conformance import CONFORMANCE, check_rest, embedded_call
from services.play.sessions import SessionCache
from shared.engine.session import SNAPSHOT_FORMAT, GameSession
from shared.eventstore import open_recorder


@pytest.mark.parametrize("written", ["older format", "unreadable"])
def test_an_old_snapshot_falls_back_to_replaying_the_log(tmp_path: Path, written: str) -> None:
    call, close = embedded_call(tmp_path)  # snapshots every 50 events
    try:
        outcome = check_rest(CONFORMANCE / "1840" / "2player.json", call, limit=70)
    finally:
        close()
    assert outcome.complete, outcome.note
    database = tmp_path / "rest-conformance.sqlite3"
    recorder = open_recorder(f"sqlite:///{database}")
    game = recorder.get_game(1)
    assert game is not None
    snapshot = recorder.latest_snapshot(game.id)
    assert snapshot is not None and 0 < snapshot.version < game.version
    with SessionCache(recorder, 4).use(game) as session:
        expected = session.digest()
    current = GameSession.restore(snapshot.data)
    blob = pickle.dumps((SNAPSHOT_FORMAT - 1, current)) if written == "older format" else b"\x80\x05not a pickle"
    with pytest.raises(Exception):  # noqa: B017 - whatever an old blob raises, the cache must not
        GameSession.restore(blob)
    with sqlite3.connect(database) as conn:
        conn.execute("UPDATE snapshots SET data = ? WHERE game_id = ?", (blob, game.id))
    with SessionCache(recorder, 4).use(game) as session:
        assert session.version == game.version
        assert session.digest() == expected

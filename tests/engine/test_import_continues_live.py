"""Import-then-continue is live mode (docs/service.md, "Import"): a record imported at any action goes on from
the position its table saw, and plays on as the live game did.

Rule: the actions active at the record's last undo or redo are one reload (not looked at between its moves,
then shown, as an undo leaves a game); every move after it was seen as it was made. In 1828 that matters
while a merger waits for an answer (docs/rules-1828.md, *Being watched*): bot game gen1828_5p_226194
imported at index 741 waits for 1001's answer to CPR's merger with WAB, and CPR's float, seen by the table
since the merger began (index 739), must count; the import once loaded the whole record unseen, and CPR
showed unfloated, as the live game never did.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.conformance import first_diff, fixture_paths, load_trace
from shared.engine import GameSession
from shared.engine.session import as_posted

GAME = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "generated" / "1828" / "gen1828_5p_226194.json"
SHOWN = frozenset({"action_id", "type", "acting_players"})  # what names the last action, not the position


def _position(digest: dict) -> dict:  # type: ignore[type-arg]
    return {k: v for k, v in digest.items() if k not in SHOWN}


@pytest.mark.parametrize("at", [741, 791])
def test_an_import_mid_merger_goes_on_as_the_live_game_did(at: int) -> None:
    record = json.loads(GAME.read_text())
    trace = load_trace(fixture_paths(GAME)[0])
    session = GameSession.from_record({**record, "actions": record["actions"][:at]})
    assert session.game.round.merger is not None  # a merger waits for an answer
    assert first_diff(_position(trace[at - 1]), _position(session.digest())) is None
    session = GameSession.restore(session.snapshot())  # as the service stores and reads it back
    ids = {a["id"]: a["id"] for a in record["actions"][:at]}  # an import keeps the record's ids
    for index in range(at, at + 12):  # played on live, as the API's rules worker plays each posted move
        action = record["actions"][index]
        ids[action["id"]] = session.submit(as_posted(action, ids))["id"]
        assert first_diff(_position(trace[index]), _position(session.digest())) is None, index

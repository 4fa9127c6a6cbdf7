"""A record loads as 18xx.games loads it (`GameSession.from_record`), a posted move is judged in full.

Rule (docs/conformance.md, "Loading a record"): a record is a game as its server accepted it, often under
an older version of the rules' code. 18xx.games loads one without re-judging where its tiles and stations
went; Railpost's import does the same, while the same move posted live is refused with the rule's reason.
The position: 1840, line 7 has laid its ordinary tile (F22); a second ordinary tile is refused live since
18xx.games' rule of 2025-11-29, yet games played by people before then hold such lays (docs/conflicts-1840.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.engine import GameSession
from shared.engine.errors import ReplayError

GAME = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "generated" / "1840" / "gen1840_4p_344173.json"


def record_with_a_second_lay() -> dict:  # type: ignore[type-arg]
    record = json.loads(GAME.read_text())
    actions = record["actions"][:450]
    lay = {"type": "lay_tile", "entity": "7", "entity_type": "corporation", "hex": "F20", "tile": "611-3",
           "rotation": 0, "id": max(a["id"] for a in actions) + 1}
    record["actions"] = actions + [lay]
    return record


def test_an_import_applies_a_lay_its_server_accepted() -> None:
    session = GameSession.from_record(record_with_a_second_lay())
    game = session.game
    assert game.board.hex("F20").tile.name == "611" and game.round.lays == 2
    assert [a["type"] for a in game.legal_actions("7")] == ["pass"]  # play goes on under the full rules


def test_the_same_lay_posted_live_is_refused_with_its_reason() -> None:
    with pytest.raises(ReplayError) as err:
        GameSession.from_record(record_with_a_second_lay(), live=True)
    assert err.value.index == 450
    assert "already laid its tile" in str(err.value)


def test_a_lay_the_record_takes_back_is_applied_live_as_loaded() -> None:
    """Live mode judges every move that stays; a move the record itself undoes later never shaped the game and
    is applied as replay applies it (people's games hold such moves, undone at once: 1840 game 218809, id
    898), so both modes reach the same states. Posted on its own it is still refused."""
    record = record_with_a_second_lay()
    lay_id = record["actions"][-1]["id"]
    record["actions"].append({"type": "undo", "entity": 1002, "entity_type": "player", "id": lay_id + 1})
    replayed = GameSession.from_record(record)
    live = GameSession.from_record(record, live=True)
    assert live.digest() == replayed.digest()
    assert live.game.board.hex("F20").tile.name != "611"  # taken back
    session = GameSession.from_record({**record, "actions": record["actions"][:450]})
    with pytest.raises(Exception, match="already laid its tile"):
        session.submit({k: v for k, v in record["actions"][450].items() if k != "id"})

"""A private and a minor may share a symbol (1828's C&P): a move names its `entity_type`, and a private's move
is decided by whoever controls the private's owner (`Game.controller`). Bot game gen1828_3p_318877 index 300:
MC (1001 presides) has just bought the C&P private from 1002, who still owns the C&P minor; the private's
moves are 1001's, offered to him and not to 1002 (the seat check refused 1001's pass as "does not control
'C&P'" and would have let 1002 play it: found importing the game and playing on with the seat tokens).
"""

from __future__ import annotations

import json
from pathlib import Path

from shared.engine import GameSession

GAME = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "generated" / "1828" / "gen1828_3p_318877.json"


def test_a_private_sharing_a_minors_symbol_is_decided_by_its_owners_president() -> None:
    record = json.loads(GAME.read_text())
    session = GameSession.from_record(record, limit=300)
    game = session.game
    assert game.companies["C&P"].owner == "MC" and game.controller("MC") == 1001
    assert session.controller("C&P", "company") == 1001
    assert session.controller("C&P", "minor") == 1002  # the C&P minor's owner
    assert session.controller("C&P") == 1001  # the symbol alone names what acts under it now: the private
    passing = {"type": "pass", "entity": "C&P", "entity_type": "company"}
    assert passing in game.legal_actions_of(1001, False)
    assert passing not in game.legal_actions_of(1002, False)

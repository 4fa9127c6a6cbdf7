"""A refused move leaves the game exactly as it was (GameSession.submit): in a title whose state depends on how
it was reached, not only on its log, the session restores a copy instead of folding the log again.

1828 is such a title: a merger looked at while it waits for an answer counts a corporation floated by its
share count, a reload never does (docs/rules-1828.md, the merger's "watched" float), so after an undo (a
reload) the state differs from a fold of the same log played move by move. The position is the reference
bot's game camp1828_ensure_good_privates_3p_6291447 (campaign of 2026-12-05) before its action 692, reached
through five undos: there PRR-NYC's $650 train, which the reference refused, must be refused with
nothing changed (before the copy, the refold gave OSH-B&O $670 instead of its $1,190)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.engine import GameSession
from shared.engine.errors import EngineError

RECORD = Path(__file__).resolve().parents[1] / "fixtures" / "campaign" / "1828" / \
    "camp1828_ensure_good_privates_3p_6291447.json"
REFUSED = {"type": "buy_train", "entity": "PRR-NYC", "entity_type": "system", "train": "6-2", "price": 650,
           "variant": "6", "shell": "PRR"}


def test_a_refused_move_leaves_a_state_reached_through_undos_as_it_was() -> None:
    record = json.loads(RECORD.read_text())
    # move by move, as the game was played (each undo a reload), not folded at once
    session = GameSession.from_record(record, on_action=lambda *_: None)
    assert session.game.rules.path_dependent
    before = session.digest()
    assert before["corporations"]["OSH-B&O"]["cash"] == 1190
    with pytest.raises(EngineError, match="its president pays only for a train it must have"):
        session.submit(dict(REFUSED))
    assert session.digest() == before
    assert session.version == len(record["actions"]), "a refusal stores nothing"

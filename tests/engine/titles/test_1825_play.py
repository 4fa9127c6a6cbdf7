"""1825 rules of play found in the held-back games (issue 22): one scenario per rule of docs/rules-1825.md.

Positions come from the generated games (`position(name, i)`: the game right before action i).
"""

from __future__ import annotations

import json
import pickle
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession, IllegalAction
from shared.engine.errors import EngineError
from shared.engine.game import Game

GENERATED = Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "generated" / "1825"


@lru_cache(maxsize=8)
def _record(name: str) -> dict[str, Any]:
    return json.loads((GENERATED / f"{name}.json").read_text())


@lru_cache(maxsize=16)
def _blob(name: str, index: int) -> bytes:
    session = GameSession.from_record(_record(name), limit=index)
    return pickle.dumps(session.game, pickle.HIGHEST_PROTOCOL)


def position(name: str, index: int) -> Game:
    """A private copy of the game right before recorded action `index`."""
    game: Game = pickle.loads(_blob(name, index))
    return game


# -- ending the game by agreement ------------------------------------------------------------------------
U1_2P = "gen1825_unit_1_2p_248716"


@pytest.mark.parametrize(("index", "who"), [(40, 1001), (40, 1002), (300, 1001), (300, "GER")])
def test_anyone_may_end_the_game_at_any_moment(index: int, who: Any) -> None:
    game = position(U1_2P, index)
    before = {p.id: p.cash for p in game.players}
    kind = "player" if isinstance(who, int) else "corporation"
    game.process({"type": "end_game", "entity": who, "entity_type": kind})
    assert game.finished and game.game_end_reason == "manually_ended"
    assert game.acting() == [] and game.legal_actions() == []
    assert {p.id: p.cash for p in game.players} == before
    assert set(game.result()) == {"1001", "1002"}


def test_a_player_not_acting_ends_the_game_in_a_stock_round() -> None:
    game = position(U1_2P, 300)
    assert game.round.kind == "Stock" and game.acting() == [1002]
    game.process({"type": "end_game", "entity": 1001, "entity_type": "player"})
    assert game.finished and game.game_end_reason == "manually_ended"


def test_a_stranger_or_a_private_cannot_end_the_game() -> None:
    game = position(U1_2P, 40)
    with pytest.raises(EngineError):
        game.process({"type": "end_game", "entity": 4711, "entity_type": "player"})
    company = next(iter(game.companies))
    with pytest.raises(IllegalAction):
        game.process({"type": "end_game", "entity": company, "entity_type": "company"})
    assert not game.finished
    game.process({"type": "end_game", "entity": 1001, "entity_type": "player"})
    with pytest.raises(IllegalAction):
        game.process({"type": "end_game", "entity": 1002, "entity_type": "player"})

"""Positions of the generated 1825 games for scenario tests: `position(name, i)` is a private copy of the
game right before recorded action i (each position is replayed once per test run and copied by pickle)."""

from __future__ import annotations

import json
import pickle
from functools import lru_cache
from pathlib import Path
from typing import Any

from shared.engine import GameSession
from shared.engine.game import Game

GENERATED = Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "generated" / "1825"
# Railpost's own random games (oracle reverse check), cut at the move the reference refused: `rp_1825_...`
REVERSE = Path(__file__).resolve().parents[2] / "fixtures" / "reverse" / "1825"
# oracle-bot games of the forward campaign, cut after the move a test needs: `camp1825_...`
CAMPAIGN = Path(__file__).resolve().parents[2] / "fixtures" / "campaign" / "1825"


@lru_cache(maxsize=8)
def record(name: str) -> dict[str, Any]:
    where = REVERSE if name.startswith("rp_") else CAMPAIGN if name.startswith("camp") else GENERATED
    return json.loads((where / f"{name}.json").read_text())  # type: ignore[no-any-return]


@lru_cache(maxsize=32)
def _blob(name: str, index: int) -> bytes:
    session = GameSession.from_record(record(name), limit=index)
    return pickle.dumps(session.game, pickle.HIGHEST_PROTOCOL)


def position(name: str, index: int) -> Game:
    """A private copy of the game right before recorded action `index`."""
    game: Game = pickle.loads(_blob(name, index))
    return game

"""The stock step works out its actions about once per action, not once per question.

`Round.settle` keeps what the blocking step offered and the next action's `process` uses it (while no other
action has begun); a skip before the blocking step re-asks only the steps before it. Counting calls (never
time) guards that design: before it, the 1828 stock step enumerated its actions three times per action."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession
from shared.engine.core.stock import BuySellParShares
from shared.engine.core.stockround import StockRound
from shared.engine.game import Game

GAME = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "1828" / "1828Games_game_end_bankrupt.json"


def test_stock_actions_enumerated_about_once_per_stock_action(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = {"enumerations": 0, "stock_actions": 0}
    enumerate_ = BuySellParShares.actions
    process = Game.process

    def counted_actions(self: BuySellParShares, game: Game, round_: Any, entity: Any) -> list[str]:
        counts["enumerations"] += 1
        return enumerate_(self, game, round_, entity)

    def counted_process(self: Game, action: dict[str, Any], *, trusted: bool = False) -> None:
        if isinstance(self.round, StockRound):
            counts["stock_actions"] += 1
        process(self, action, trusted=trusted)

    monkeypatch.setattr(BuySellParShares, "actions", counted_actions)
    monkeypatch.setattr(Game, "process", counted_process)
    record = json.loads(GAME.read_text())
    session = GameSession.from_record(record)
    assert session.game.finished
    assert counts["stock_actions"] > 300
    # one enumeration per action, plus one when a turn passes on to the next player
    assert counts["enumerations"] <= 1.5 * counts["stock_actions"]

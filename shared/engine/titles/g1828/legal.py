"""Concrete options of 1828's own action types (the shared ones are enumerated by engine/legal.py):
starting a merger and its choices, the partner to merge with, moving a System's train between shells,
and declaring bankruptcy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .stock import StockRound1828, merge_candidate
from .systems import is_system

if TYPE_CHECKING:
    from ...game import Game

Option = dict[str, Any]


def legal_options(game: Game, kind: str, entity: Any) -> list[Option]:
    round_ = game.round
    if kind == "choose" and isinstance(round_, StockRound1828):
        if round_.merger is not None:
            choice = round_.merger.choice
            return [{"choice": label} for label in choice.labels] if choice and choice.chooser == entity else []
        corps = [c for c in game.corporations.values() if c.kind == "major"]
        return [{"choice": c.sym} for c in corps
                if any(merge_candidate(game, round_, entity, c, other) for other in corps)]
    if kind == "merge" and isinstance(round_, StockRound1828) and round_.merger is not None:
        merger = round_.merger
        initiator = game.corporations[merger.initiator]
        return [{"corporation": c.sym} for c in game.corporations.values()
                if merge_candidate(game, round_, merger.acting_player, initiator, c)]
    if kind == "swap_train" and entity in game.corporations and is_system(game, game.corporations[entity]):
        return [{"train": t.id} for t in game.corporations[entity].trains if not t.rusted]
    if kind == "bankrupt":
        return [{}]
    return []

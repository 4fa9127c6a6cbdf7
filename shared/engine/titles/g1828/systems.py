"""Systems: two corporations merged into one share price and treasury, keeping separate train fleets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.rounds import Round, Step

if TYPE_CHECKING:
    from ...game import Game


class Merger(Step):
    handlers = {"merge": "merge", "choose": "choose"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        return []

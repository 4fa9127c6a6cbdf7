"""The 1840 stock round: the shared round, plus the private sold to the bank on its owner's turn, and the
rise of sold-out companies at its end. Its step is `steps/stock.BuySellParShares1840`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.stockround import StockRound
from ...errors import IllegalAction
from ...model import POOL
from .flow import rules_of, sale_options, sell_company
from .state import LINE

if TYPE_CHECKING:
    from ...game import Game


class StockRound1840(StockRound):
    """The shared stock round, plus: the player whose turn it is may sell a private he owns to the bank for
    its face value (rules-1840 *Selling a private*); the sale does not use up his turn."""

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        entity = action.get("entity")
        if action["type"] == "choose_ability" and entity in game.companies:
            owner = game.companies[entity].owner
            current = self.current_entity(game)
            if owner != current:
                raise IllegalAction(f"{entity} belongs to {owner}, and it is {current}'s turn", "not_your_turn")
            sell_company(game, action)
            return
        super().process(game, action, trusted)

    def extra_options(self, game: Game, entity: Any) -> list[dict[str, Any]]:
        """The private's sale, open while its owner has the turn (`process` above)."""
        company = game.companies.get(entity) if isinstance(entity, str) else None
        if company is None or company.owner != self.current_entity(game):
            return []
        return sale_options(game, entity)

    def finish_stock_round(self, game: Game) -> None:
        """Sold-out companies rise one row, one after another in operating order, so that two on one cell
        arrive on the next in the order they stood (rules-1840 *End of a stock round*)."""
        rules = rules_of(game)
        sold_out = [c for c in game.corporations.values()
                    if c.kind != LINE and c.floated and c.share_cell is not None
                    and c.treasury_percent == 0 and c.percent_owned_by(POOL) == 0]
        for corp in rules.in_operating_order(game, sold_out):
            assert corp.share_cell is not None
            rules.set_cell(game, corp, game.market.up(corp.share_cell))

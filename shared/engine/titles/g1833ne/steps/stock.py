"""1833NE's stock-round step: launching at 20% for twice the start price, buying at the current price from
the treasury or the market, selling 10% certificates.

The shared `BuySellParShares` step supplies the flow and its checks; this subclass changes only what the
1846-style finance changes: the launch (its prices, cost and receiver, a variable home in the Takeover
game), the price paid for treasury shares, who may sell and what a sale does to the price, and the privates
the bank sells.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.shares import Bundle
from ....core.stock import BuySellParShares
from ....core.stockround import StockRound
from ....errors import IllegalAction
from ....model import POOL, Company, Corporation, Player, Share
from .. import constants as K
from ..state import state
from ..stock import sell_to_market, whole_certificates
from ..takeover import check_variable_home, place_variable_home, variable_home_options

if TYPE_CHECKING:
    from ....core.market import Cell
    from ....core.rounds import Round
    from ....game import Game


class StockStep(BuySellParShares):
    """Buy, sell, launch; every share costs the current price, treasury purchases pay the corporation."""

    def setup(self, game: Game, round_: Round) -> None:
        super().setup(game, round_)
        self.turn_sales: dict[str, int] = {}  # corporation -> what its first sale this turn fetched

    def turn_sales_now(self) -> dict[str, int]:
        return self.__dict__.setdefault("turn_sales", {})  # (a step pickled mid-turn before it had them)

    def share_cost(self, game: Game, corp: Corporation, share: Share) -> int:
        price = game.share_price(corp)
        assert price is not None
        return price * share.percent // 10

    def can_buy(self, game: Game, round_: StockRound, player: Player, share: Share) -> str | None:
        if player.bankrupt:
            return f"{player.name} is bankrupt"
        return super().can_buy(game, round_, player, share)

    # -- launching --------------------------------------------------------------------------------------
    def can_start(self, game: Game, corp: Corporation) -> bool:
        """A variable-start corporation (Takeover game) may be launched only from phase II on."""
        if corp.abilities and any(a.get("type") == "variable_start" for a in corp.abilities):
            return game.phase_index >= 1
        return True

    def par_prices(self, game: Game, corp: Corporation, player: Player) -> list[Cell]:
        """The start prices the player can launch at: the $40-$150 market spaces whose launch (twice the
        price) he can pay."""
        return [c for c in game.market.par_cells()
                if K.MIN_START <= c.price <= K.MAX_START and K.LAUNCH_MULTIPLIER * c.price <= player.cash]

    def offer_par(self, game: Game, round_: StockRound, entity: int) -> list[dict[str, Any]]:
        """Each launch the player can pay, with each home a variable-start corporation may choose."""
        player = game.player(entity)
        out: list[dict[str, Any]] = []
        for corp in self.parable(game, round_, player):
            for cell in self.par_prices(game, corp, player):
                out.extend(self.launch_options(game, corp, cell, entity))
        return out

    @staticmethod
    def launch_options(game: Game, corp: Corporation, cell: Cell, entity: int) -> list[dict[str, Any]]:
        """The launch at `cell`: one for a corporation with a fixed home, one per home a variable-start one
        (Takeover game) may choose."""
        base = {"type": "par", "entity": entity, "corporation": corp.sym, "share_price": cell.id}
        if corp.home is not None:
            return [base]
        return [dict(base, **extra) for extra in variable_home_options(game, corp, cell.price)]

    @staticmethod
    def check_launch_home(game: Game, corp: Corporation, price: int, action: dict[str, Any]) -> int:
        """Standard corporations have fixed homes; variable-start ones choose (see takeover.py): what the
        chosen home costs."""
        if corp.home is not None:
            return 0
        return check_variable_home(game, corp, price, action)

    @staticmethod
    def after_launch(game: Game, corp: Corporation, action: dict[str, Any], home_cost: int) -> None:
        if corp.home is None or home_cost:
            place_variable_home(game, corp, action, home_cost)

    def par(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        player = game.player(action["entity"])
        corp = game.corporation(action.get("corporation"))
        cell = game.market.parse_cell(action.get("share_price"))
        if round_.bought():
            raise IllegalAction("only one purchase per turn", "one_share_per_turn")
        if corp.ipoed or corp.closed:
            raise IllegalAction(f"{corp.sym} has already been launched", "par_started")
        if not self.can_start(game, corp):
            raise IllegalAction(f"{corp.sym} starts anywhere and may be launched only from phase II on (Takeover "
                                "game)", "par_unavailable")
        if not K.MIN_START <= cell.price <= K.MAX_START or "par" not in cell.types:
            raise IllegalAction(f"the start price must be a ${K.MIN_START}-${K.MAX_START} market space, "
                                f"not {cell.price}", "par_price")
        if game.num_certs(player) >= game.rules.cert_limit(game):
            raise IllegalAction(f"{player.name} is at the certificate limit ({game.rules.cert_limit(game)})",
                                "cert_limit")
        cost = K.LAUNCH_MULTIPLIER * cell.price
        if player.cash < cost:
            raise IllegalAction(f"{player.name} has {player.cash}, launching at {cell.price} costs {cost}", "cash")
        home_cost = self.check_launch_home(game, corp, cell.price, action)
        corp.par_price = cell.price
        corp.share_cell = (cell.row, cell.column)
        corp.ipoed = True
        corp.floated = True
        state(game).launch_order.append(corp.sym)
        game.pay(player, corp, cost)
        game.transfer_shares(Bundle(corp, [corp.shares[0]], corp.shares[0].percent), player.id)
        self.after_launch(game, corp, action, home_cost)

    # -- selling ----------------------------------------------------------------------------------------
    def sell_allowed_this_round(self, game: Game) -> bool:
        return True

    def can_sell(self, game: Game, round_: StockRound, player: Player, corp: Corporation,
                 bundle: Bundle | None = None) -> str | None:
        if corp.share_cell is None or corp.closed:
            return f"{corp.sym} has no share price"
        if not corp.operated and corp.president != player.id:
            return f"only {corp.sym}'s president may sell before it has operated"
        limit = game.rules.market_share_limit(game)
        if bundle is None:
            if not any(s.owner == player.id and not s.president for s in corp.shares):
                return f"{player.name} holds no ordinary {corp.sym} certificate"
            if corp.percent_owned_by(POOL) + 10 > limit:
                return f"the market already holds {limit}% of {corp.sym}"
            return None
        if bundle.includes_president:
            return "the president's certificate is never sold to the market"
        if corp.percent_owned_by(POOL) + bundle.percent > limit:
            return f"the market may hold at most {limit}% of {corp.sym}"
        return None

    def offer_sell_shares(self, game: Game, round_: StockRound, entity: int) -> list[dict[str, Any]]:
        """One to all of the player's ordinary certificates of each corporation he may sell, in certificate
        order, as far as the market has room (`can_sell`): the president's certificate is never sold."""
        player = game.player(entity)
        out = []
        for corp in self.sellable_bundles(game, round_, player):
            held = [s for s in corp.shares if s.owner == player.id and not s.president]
            for n in range(1, len(held) + 1):
                bundle = Bundle(corp, held[:n], sum(s.percent for s in held[:n]))
                if self.can_sell(game, round_, player, corp, bundle) is None:
                    out.append({"shares": [s.id for s in bundle.shares], "percent": bundle.percent})
        return out

    def sale_bundle(self, game: Game, action: dict[str, Any]) -> Bundle:
        return whole_certificates(game, action)  # the president's certificate is never sold to the market

    def sell(self, game: Game, player: Player, bundle: Bundle) -> None:
        sell_to_market(game, player, bundle, self.turn_sales_now())  # only the president's sales move the price

    # -- privates from the bank (gap: the digest does not say how players get them) ------------------
    def companies_for_sale(self, game: Game) -> list[Company]:
        """Every private nobody owns yet, while corporations may still buy privates (phases I and II)."""
        if game.phase.name not in K.CORP_BUY_PHASES:
            return []
        return [c for c in game.companies.values() if c.owner is None and not c.closed]

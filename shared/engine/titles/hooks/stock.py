"""The stock round: certificate limits, buying, selling, starting and floating corporations, standing orders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.market import Cell
from ...core.rounds import Round
from ...core.stock import StockRound
from ...model import Company, Corporation, Player

if TYPE_CHECKING:
    from ...core.shares import Bundle
    from ...game import Game


class StockRules:
    # whether the title limits certificates at all (a page must not print a limit nobody applies)
    has_cert_limit = True

    @property
    def cert_limit_includes_privates(self) -> bool:
        return True

    def cert_limit(self, game: Game) -> int:
        setup = game.defn.data.setup
        return int(setup["cert_limit"][str(len(game.players))])

    def market_share_limit(self, game: Game) -> int:
        """The most of one corporation the market may hold, in percent: the title's data says (1825 and 1840
        100, 1828 80, 1833NE 50)."""
        return int(self.rule(game, "MARKET_SHARE_LIMIT", 50))

    def ipo_name(self, game: Game, corp: Corporation) -> str:
        """How the title names a corporation's unsold shares (a standing order's refusal names it)."""
        return "IPO"

    def program_survives(self, game: Game, program: dict[str, Any], round_: Round) -> bool:
        if isinstance(round_, StockRound):
            return True
        if program.get("type") == "program_share_pass" and program.get("indefinite"):
            return True
        return False

    def sell_allowed_this_round(self, game: Game) -> bool:
        return self.rule(game, "SELL_AFTER", "first") != "first" or game.turn > 1

    no_sell_after_buy_same_corp = False

    president_sales_to_market = False

    def can_sell_companies(self, game: Game, player: Player) -> bool:
        return False

    def ipo_share_buyable(self, game: Game, corp: Corporation, share: Any) -> bool:
        return True

    def can_start(self, game: Game, corp: Corporation) -> bool:
        return True

    def par_prices(self, game: Game, corp: Corporation, player: Player) -> list[Cell]:
        return game.market.par_cells()

    def companies_for_sale(self, game: Game) -> list[Company]:
        return []

    def company_purchase_open(self, game: Game, stock: StockRound, player: Player, step: Any) -> bool:
        """Whether `buy_company` is among the player's options (which keeps him in the turn order)."""
        return bool(step.buyable_companies(game, stock, player))

    def company_sale_price(self, game: Game, company: Company) -> int:
        return company.value

    def after_buy_shares(self, game: Game, corp: Corporation) -> None:
        self.check_float(game, corp)

    def after_sell_shares(self, game: Game, corp: Corporation, bundle: Bundle) -> None:
        pass

    def after_buy_company(self, game: Game, company: Company) -> None:
        pass

    def after_sell_company(self, game: Game, company: Company) -> None:
        pass

    def after_share_transfer(self, game: Game, corp: Corporation) -> None:
        pass

    def sets_priority(self, action: dict[str, Any]) -> bool:
        return True

    def turn_counts_as_action(self, stock: StockRound) -> bool:
        return bool(stock.turn_actions)

    def finish_stock_round(self, game: Game, stock: StockRound) -> None:
        pass

    def check_float(self, game: Game, corp: Corporation) -> None:
        if corp.floated or not corp.ipoed:
            return
        sold = 100 - corp.treasury_percent
        if sold < corp.float_percent:
            return
        corp.floated = True
        if corp.capitalization == "full":
            assert corp.par_price is not None
            game.pay(None, corp, corp.par_price * 10)

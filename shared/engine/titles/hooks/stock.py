"""The stock hooks that stay with the rules object: limits the title's data decides (certificates, the
market's share of a corporation), asked in several places, and what any change of hands does, whichever
step makes it. The per-action rules of the stock round are the stock step's (`core/stock.py`,
`BuySellParShares`), changed by a title's subclass of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.rounds import Round
from ...core.stockround import StockRound
from ...model import Corporation

if TYPE_CHECKING:
    from ...core.shares import Bundle
    from ...protocol import Game


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

    def after_sell_shares(self, game: Game, corp: Corporation, bundle: Bundle) -> None:
        """What a sale to the market does to the price, in the stock round and in any other step that sells
        (1828's emergency and bankruptcy sales)."""

    def after_share_transfer(self, game: Game, corp: Corporation) -> None:
        """Bookkeeping whenever certificates change hands (`Game.transfer_shares` and titles' own swaps)."""

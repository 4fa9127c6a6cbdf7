"""1840's stock-round step: the shared buy/sell/par step with the Tram Company start obligation.

Rules digest, *Round structure*: in SR1 every player must first buy the director's certificate of one TC;
lines are never traded by players; shares cost the current price; a sale drops the price a row a share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.rounds import Round
from ....core.stock import BuySellParShares
from ....core.stockround import StockRound
from ....errors import EngineError, IllegalAction
from ....model import Corporation, Player
from ..flow import rules_of
from ..state import LINE, MAJOR, state

if TYPE_CHECKING:
    from ....core.market import Cell
    from ....core.shares import Bundle
    from ....game import Game


class BuySellParShares1840(BuySellParShares):
    """Every player must start a Tram Company before anyone may pass or buy ordinary shares."""

    def can_start(self, game: Game, corp: Corporation) -> bool:
        return corp.kind == MAJOR

    def par_prices(self, game: Game, corp: Corporation, player: Player) -> list[Cell]:
        allowed = rules_of(game).extras(game)["par"]["ranges"]["major"]
        return [c for row in game.market.grid for c in row
                if c is not None and "par_2" in c.types and c.price in allowed and c.price * 5 <= player.cash]

    def ipo_share_buyable(self, game: Game, corp: Corporation, share: Any) -> bool:
        return corp.kind != LINE and rules_of(game).all_majors_started(game)

    def after_buy_shares(self, game: Game, corp: Corporation) -> None:
        """A Tram Company floats when it is started, receiving ten times its par price."""
        if corp.kind == MAJOR and not corp.floated and corp.ipoed:
            corp.floated = True
            assert corp.par_price is not None
            game.pay(None, corp, corp.par_price * 10)

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, StockRound)
        if round_.bought():
            return []  # sell, then buy: a purchase ends the turn
        out = super().actions(game, round_, entity)
        if not rules_of(game).all_majors_started(game) and "pass" in out:
            out.remove("pass")
        if not out and line_certificate_in_reach(game, game.player(entity)):
            out = ["pass"]  # rules-1840 *End of a stock turn*: he closes the turn himself
        return out

    def examines_buy_order(self, game: Game, round_: StockRound, player: Any, types: list[str]) -> bool:
        """rules-1840 *Standing buy orders*: a buy order is looked at in each of its owner's stock turns, also
        while he must start a Tram Company or has only the pass that closes his turn (18xx.games counts a
        purchase as open then); with nothing it may buy, it is cleared."""
        if "buy_shares" in types:
            return True
        return not rules_of(game).all_majors_started(game) or line_certificate_in_reach(game, player)

    def pass_turn(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        if not rules_of(game).all_majors_started(game) and not trusted:
            raise IllegalAction("every Tram Company must be started before anyone passes", "must_par")
        super().pass_turn(game, round_, action, trusted)

    def price_after_sale(self, game: Game, corp: Corporation, bundle: Bundle) -> None:
        """rules-1840 *Selling*: the price drops one row for each share sold."""
        if corp.share_cell is not None:
            rules_of(game).set_cell(game, corp, game.market.down(corp.share_cell, len(bundle.shares)))

    def can_buy(self, game: Game, round_: StockRound, player: Any, share: Any) -> str | None:
        corp = game.corporations[share.corporation]
        if corp.kind == LINE:
            return "lines are owned by Tram Companies"
        if share.owner == corp.sym and not rules_of(game).all_majors_started(game):
            return "all Tram Companies must be started first"
        return super().can_buy(game, round_, player, share)

    def share_cost(self, game: Game, corp: Corporation, share: Any) -> int:
        price = game.share_price(corp)
        assert price is not None
        return price * share.percent // 10

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        if action["type"] == "pass" and not rules_of(game).all_majors_started(game):
            return IllegalAction("every Tram Company must be started before anyone passes", "must_par")
        return super().refusal(game, round_, action)

    def par(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        super().par(game, round_, action, trusted)
        rules_of(game).mark_arrival(game, game.corporation(action.get("corporation")))

    def parable(self, game: Game, round_: StockRound, player: Any) -> list[Corporation]:
        if any(c.president == player.id for c in rules_of(game).majors(game)):
            return []
        return super().parable(game, round_, player)


def line_certificate_in_reach(game: Game, player: Any) -> bool:
    """Whether a stock turn with nothing left to do stays open (rules-1840 *End of a stock turn*): it does
    while some Tram Company owns a line, the player is below the certificate limit and his cash reaches the
    nominal price of a line's certificate, twice the market's lowest par price (the certificate itself is
    never for sale; conflicts-1840 explains why the turn waits for a pass)."""
    if not rules_of(game).all_majors_started(game):
        return False
    if not any(state(game).owned_lines.values()):
        return False
    if game.num_certs(player) >= game.rules.cert_limit(game):
        return False
    lowest = min(c["price"] for c in game.defn.data.setup["market"]["par_prices"])
    return bool(player.cash >= 2 * lowest)

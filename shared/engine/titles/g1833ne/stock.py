"""1833NE's stock round: a sale to the market (only the president's own sales drop the price, one space a
turn), and the end-of-round price moves. Its step, launching, buying and selling, is `steps/stock.StockStep`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.shares import Bundle, parse_bundle
from ...core.stockround import StockRound
from ...errors import MalformedAction
from ...model import POOL

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Player


class StockRound1833NE(StockRound):
    def finish_stock_round(self, game: Game) -> None:
        finish_stock_round(game)


def whole_certificates(game: Game, action: dict[str, Any]) -> Bundle:
    """The certificates a player's sale names (`parse_bundle`), whole: unlike the core's partial bundle, a sale
    never splits the president's certificate, which "can never be sold to the market" (digest, "Limits")."""
    bundle = parse_bundle(game.corporations, action.get("shares"), action.get("percent"))
    if bundle.percent != sum(s.percent for s in bundle.shares):
        raise MalformedAction("1833NE sells whole certificates", "shares_percent")
    return bundle


def sell_to_market(game: Game, player: Player, bundle: Bundle, turn: dict[str, int] | None = None) -> int:
    """Sell certificates to the market. Only the president's own sales drop the price, one space however many
    he sells in his turn (seed): `turn` holds the price each corporation's first sale of this turn fetched; a
    later sale of it in the same turn fetches that price too and moves nothing, as one sale of them all would.
    Returns the proceeds."""
    corp = bundle.corporation
    first = turn is None or corp.sym not in turn
    price = game.share_price(corp) if first else turn[corp.sym]  # type: ignore[index]
    assert price is not None
    if turn is not None:
        turn.setdefault(corp.sym, price)
    was_president = corp.president == player.id
    proceeds = price * bundle.percent // 10
    game.pay(None, player, proceeds)
    game.transfer_shares(bundle, POOL, seller=player.id)
    if first and was_president and corp.share_cell is not None:
        corp.share_cell = game.market.left(corp.share_cell)
        game.rules.check_price_close(game, corp)  # type: ignore[attr-defined]
    return proceeds


def finish_stock_round(game: Game) -> None:
    """Corporations with shares in the market drop one space; those wholly owned by players rise one."""
    for corp in game.corporations.values():
        if corp.closed or corp.share_cell is None:
            continue
        if corp.percent_owned_by(POOL) > 0:
            corp.share_cell = game.market.left(corp.share_cell)
        elif corp.treasury_percent == 0:
            corp.share_cell = game.market.right(corp.share_cell)
        game.rules.check_price_close(game, corp)  # type: ignore[attr-defined]

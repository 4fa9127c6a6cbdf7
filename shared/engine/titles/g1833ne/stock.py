"""1833NE stock round: launching at 20% for twice the start price, buying at the current price from the
treasury or the market, selling 10% certificates, and the end-of-round price moves.

The shared `BuySellParShares` step supplies the flow; this subclass changes only what the 1846-style
finance changes: the launch cost and its receiver, the price paid for treasury shares, who may sell and
what a sale does to the price.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from ...core.shares import Bundle, parse_bundle
from ...core.stock import BuySellParShares, StockRound
from ...errors import IllegalAction, MalformedAction
from ...model import POOL, Corporation, Player, Share
from . import constants as K
from .state import state

if TYPE_CHECKING:
    from ...core.rounds import Round
    from ...game import Game


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
    def parable(self, game: Game, round_: StockRound, player: Player) -> list[Corporation]:
        if round_.bought() or game.num_certs(player) >= game.rules.cert_limit(game):
            return []
        return [c for c in game.corporations.values()
                if not c.ipoed and not c.closed and game.rules.can_start(game, c)
                and player.cash >= K.LAUNCH_MULTIPLIER * self.min_start(game, c)]

    def min_start(self, game: Game, corp: Corporation) -> int:
        return K.MIN_START

    def par(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        player = game.player(action["entity"])
        corp = game.corporation(action.get("corporation"))
        cell = game.market.parse_cell(action.get("share_price"))
        if round_.bought():
            raise IllegalAction("only one purchase per turn", "one_share_per_turn")
        if corp.ipoed or corp.closed:
            raise IllegalAction(f"{corp.sym} has already been launched", "par_started")
        if not game.rules.can_start(game, corp):
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
        rules = game.rules
        home_cost = rules.check_launch_home(game, corp, cell.price, action)  # type: ignore[attr-defined]
        corp.par_price = cell.price
        corp.share_cell = (cell.row, cell.column)
        corp.ipoed = True
        corp.floated = True
        state(game).launch_order.append(corp.sym)
        game.pay(player, corp, cost)
        game.transfer_shares(Bundle(corp, [corp.shares[0]], corp.shares[0].percent), player.id)
        rules.after_launch(game, corp, action, home_cost)  # type: ignore[attr-defined]

    # -- selling ----------------------------------------------------------------------------------------
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

    def sell_shares(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        player = game.player(action["entity"])
        bundle = parse_bundle(game.corporations, action.get("shares"), action.get("percent"))
        corp = bundle.corporation
        if bundle.percent != sum(s.percent for s in bundle.shares):
            raise MalformedAction("1833NE sells whole certificates", "shares_percent")
        for share in bundle.shares:
            if share.owner != player.id:
                raise IllegalAction(f"{player.name} does not hold {share.id}", "sell_not_owned")
        reason = self.can_sell(game, round_, player, corp, bundle)
        if reason:
            raise IllegalAction(f"cannot sell {corp.sym}: {reason}", "sell_shares")
        sell_to_market(game, player, bundle, self.turn_sales_now())
        round_.sold.setdefault(player.id, {})[corp.sym] = "now"

    # -- privates from the bank (gap: the digest does not say how players get them) ------------------
    def buyable_companies(self, game: Game, round_: StockRound, player: Player) -> list[Any]:
        if round_.bought() or game.num_certs(player) >= game.rules.cert_limit(game):
            return []
        if game.phase.name not in K.CORP_BUY_PHASES:
            return []
        return [c for c in game.companies.values() if c.owner is None and not c.closed and c.value <= player.cash]

    def options(self, game: Game, round_: Round, entity: Any,
                kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        """Every concrete action the current player may take (for legal-action listing and the soak)."""
        assert isinstance(round_, StockRound)
        kinds = self.actions(game, round_, entity)
        if not kinds:
            return []
        player = game.player(entity)
        out: list[dict[str, Any]] = []
        if "buy_shares" in kinds:
            for share in self.buyable_shares(game, round_, player):
                out.append({"type": "buy_shares", "entity": entity, "shares": [share.id], "percent": share.percent})
        if "par" in kinds:
            for corp in self.parable(game, round_, player):
                for cell in game.market.par_cells():
                    if not K.MIN_START <= cell.price <= K.MAX_START:
                        continue
                    if K.LAUNCH_MULTIPLIER * cell.price > player.cash:
                        continue
                    out.extend(game.rules.launch_options(game, corp, cell, entity))  # type: ignore[attr-defined]
        if "buy_company" in kinds:
            for company in self.buyable_companies(game, round_, player):
                out.append({"type": "buy_company", "entity": entity, "company": company.sym, "price": company.value})
        if "sell_shares" in kinds:
            for corp in self.sellable_bundles(game, round_, player):
                held = [s for s in corp.shares if s.owner == player.id and not s.president]
                room = (game.rules.market_share_limit(game) - corp.percent_owned_by(POOL)) // 10
                for n in range(1, min(len(held), room) + 1):
                    out.append({"type": "sell_shares", "entity": entity, "shares": [s.id for s in held[:n]],
                                "percent": 10 * n})
        if "pass" in kinds:
            out.append({"type": "pass", "entity": entity})
        return out


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

"""Selling to the pool in 1825, including part of the director's certificate.

Rule (docs/rules-1825.md, "Selling part of the director's certificate"): a director may sell part of the
director's certificate (e.g. 10% of the 20% certificate). When another player then holds more than the
seller keeps, that player becomes director: he takes the director's certificate and hands his ordinary
shares of the same size over (to the seller if the seller still holds at least that much, else to the
pool), and the seller gets back from the pool the part of the certificate he did not sell. When nobody
takes over, the pool swaps the unsold part back in ordinary shares (the shared core's partial bundle).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.shares import Bundle, parse_bundle, player_percent
from ...core.stock import BuySellParShares, StockRound
from ...errors import IllegalAction
from ...model import POOL, Corporation, Player, Share

if TYPE_CHECKING:
    from ...game import Game


def new_director(game: Game, corp: Corporation, seller: int, bundle: Bundle) -> int | None:
    """Who takes over when `seller` sells `bundle`: the holder of the most shares, if he holds more than
    the seller keeps and at least the director's certificate; ties go to the first in seat order after
    the seller."""
    keeps = player_percent(corp, seller) - bundle.percent
    order = game.player_order
    start = order.index(seller) + 1 if seller in order else 0
    rotated = [pid for pid in order[start:] + order[:start] if pid != seller]
    counts = {pid: player_percent(corp, pid) for pid in rotated}
    best = max(counts.values(), default=0)
    if best <= keeps or best < corp.shares[0].percent:
        return None
    return next(pid for pid in rotated if counts[pid] == best)


def sell_to_pool(game: Game, player: Player, bundle: Bundle) -> None:
    """Move a sold bundle to the pool (the money is paid by the caller)."""
    corp = bundle.corporation
    pres = corp.shares[0]
    partial = bundle.percent < sum(s.percent for s in bundle.shares)
    successor = new_director(game, corp, player.id, bundle) if partial and pres in bundle.shares else None
    if successor is None:
        game.transfer_shares(bundle, POOL, seller=player.id)
        return
    for share in bundle.shares:
        corp.give(share, POOL)
    swap_to = player.id if player_percent(corp, player.id) >= pres.percent else POOL
    needed = pres.percent
    for share in sorted((s for s in corp.shares if s.owner == successor and not s.president), key=lambda s: s.stamp):
        if needed <= 0:
            break
        corp.give(share, swap_to)
        needed -= share.percent
    corp.give(pres, successor)
    back = sum(s.percent for s in bundle.shares) - bundle.percent
    for share in sorted((s for s in corp.shares if s.owner == POOL and not s.president), key=lambda s: s.stamp):
        if back <= 0:
            break
        if share.percent <= back:
            corp.give(share, player.id)
            back -= share.percent
    if back:
        raise IllegalAction("cannot split the director's certificate that way", "president_split")
    game.rules.after_share_transfer(game, corp)


class BuySellParShares1825(BuySellParShares):
    """The shared stock-round step, selling through `sell_to_pool`.

    Rule (docs/rules-1825.md, "No buying back a private sold this round"): a private a player sells to the
    bank in a stock round is not for sale to him again until the next stock round (others may buy it)."""

    def __init__(self) -> None:
        super().__init__()
        # player -> privates he sold to the bank in this stock round (a new step serves each stock round)
        self.sold_companies: dict[int, set[str]] = {}

    def sold_company(self, player: Player, sym: str) -> bool:
        return sym in self.sold_companies.get(player.id, ())

    def buyable_companies(self, game: Game, round_: StockRound, player: Player) -> list[Any]:
        return [c for c in super().buyable_companies(game, round_, player) if not self.sold_company(player, c.sym)]

    def buy_company(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        sym = action.get("company")
        player = game.player(action["entity"])
        if isinstance(sym, str) and self.sold_company(player, sym):
            raise IllegalAction(f"{player.name} sold {sym} in this stock round and may not buy it back before "
                                "the next one", "buy_back_company")
        super().buy_company(game, round_, action, trusted)

    def sell_company(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        super().sell_company(game, round_, action, trusted)
        self.sold_companies.setdefault(action["entity"], set()).add(str(action.get("company")))

    def move_sold(self, game: Game, player: Player, bundle: Bundle) -> None:
        sell_to_pool(game, player, bundle)

    def offer_sell_shares(self, game: Game, round_: StockRound, entity: int) -> list[dict[str, Any]]:
        """The shared step's sales, and those of part of the director's certificate (docs/rules-1825.md,
        "Selling part of the director's certificate")."""
        player = game.player(entity)
        return super().offer_sell_shares(game, round_, entity) + partial_director_sale_options(game, round_, self, player)

    # -- the director's certificate bought back from the market -------------------------------------------
    def can_buy(self, game: Game, round_: StockRound, player: Player, share: Share) -> str | None:
        if share.president and share.owner == POOL:
            return director_purchase_refusal(self, game, round_, player, share)
        return super().can_buy(game, round_, player, share)

    def buyable_shares(self, game: Game, round_: StockRound, player: Player, *, first: bool = False) -> list[Share]:
        out = super().buyable_shares(game, round_, player, first=first)
        if first and out:
            return out
        for corp in game.corporations.values():
            pres = corp.shares[0] if corp.shares else None
            if pres is not None and pres.president and pres.owner == POOL \
                    and director_purchase_refusal(self, game, round_, player, pres) is None:
                out.append(pres)
                if first:
                    return out
        return out

    def buy_shares(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        bundle = parse_bundle(game.corporations, action.get("shares"), action.get("percent"))
        share = bundle.shares[0]
        if not (len(bundle.shares) == 1 and share.president and share.owner == POOL):
            super().buy_shares(game, round_, action, trusted)
            return
        player = game.player(action["entity"])
        if bundle.percent != share.percent:
            raise IllegalAction(f"the director's certificate {share.id} is bought whole ({share.percent}%)",
                                "one_share_per_turn")
        reason = director_purchase_refusal(self, game, round_, player, share)
        if reason:
            raise IllegalAction(f"cannot buy {share.id}: {reason}", "buy_shares")
        buy_director_from_pool(game, player, bundle.corporation)


def partial_director_bundles(game: Game, corp: Corporation, player: Player) -> list[Bundle]:
    """Rule (docs/rules-1825.md, "Selling part of the director's certificate"): the sales of part of the
    director's certificate open to its holder — everything he holds of the corporation, keeping back one
    share's worth or more of the certificate (a major's 20%: 10% back; a minor's 40%: 20% back), where the
    part kept can be handed back to him in ordinary shares: from the sale itself, from a player who takes
    the certificate over, or from the market."""
    held = sorted((s for s in corp.shares if s.owner == player.id), key=lambda s: (s.president, s.stamp))
    if not held or not held[-1].president:
        return []
    pres, unit = held[-1], _unit(corp)
    total = sum(s.percent for s in held)
    pooled = any(s.owner == POOL and not s.president for s in corp.shares)
    others = max((player_percent(corp, p.id) for p in game.players if p.id != player.id), default=0)
    out = []
    for keep in range(unit, pres.percent, unit):
        if total - keep >= pres.percent or pooled or (others >= pres.percent and others > keep):
            out.append(Bundle(corp, held, total - keep))
    return out


def partial_director_sale_options(game: Game, round_: StockRound, step: BuySellParShares,
                                  player: Player) -> list[dict[str, Any]]:
    """The stock round's offers of `partial_director_bundles` that the step's own sale checks allow."""
    out = []
    for corp in game.corporations.values():
        for bundle in partial_director_bundles(game, corp, player):
            if step.can_sell(game, round_, player, corp, bundle) is None:
                out.append({"shares": [s.id for s in bundle.shares], "percent": bundle.percent})
    return out


def _unit(corp: Corporation) -> int:
    """The percent of one ordinary share (10 for a major, 20 for a minor)."""
    return min((s.percent for s in corp.shares if not s.president), default=10)


def director_purchase_refusal(step: BuySellParShares, game: Game, round_: StockRound, player: Player,
                              share: Share) -> str | None:
    """Rule (docs/rules-1825.md, "The director's certificate bought back from the market"): why `player`
    may not take the director's certificate `share` from the market now (None: he may)."""
    corp = game.corporations[share.corporation]
    if round_.bought():
        return "only one purchase per turn"
    if corp.closed:
        return f"{corp.sym} is closed"
    if round_.sold.get(player.id, {}).get(corp.sym):
        return f"{player.name} sold {corp.sym} this round and may not buy it back"
    if not any(s.owner == player.id for s in corp.shares):
        return f"only a holder of a {corp.sym} share may take its director's certificate from the market"
    whole = step.share_cost(game, corp, share)
    if player.cash < whole:
        return f"{player.name} has {player.cash}; taking the director's certificate needs its value, {whole}, in hand"
    return step.limit_refusal(game, player, corp, share)


def buy_director_from_pool(game: Game, player: Player, corp: Corporation) -> None:
    """The purchase itself: the player pays one ordinary share at the market price, takes the director's
    certificate and hands the market his longest-held ordinary shares for the rest of it (one share for a
    major's 20% certificate, one for a minor's 40%); he is director from now on (the corporation leaves
    receivership)."""
    pres = corp.shares[0]
    unit = _unit(corp)
    price = game.share_price(corp)
    assert price is not None
    game.pay(player, None, price * unit // 10)
    back = pres.percent - unit
    corp.give(pres, player.id)
    for held in sorted((s for s in corp.shares if s.owner == player.id and not s.president), key=lambda s: s.stamp):
        if back <= 0:
            break
        corp.give(held, POOL)
        back -= held.percent
    game.rules.after_share_transfer(game, corp)
    game.rules.after_buy_shares(game, corp)

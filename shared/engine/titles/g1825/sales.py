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

from ...core.shares import Bundle, player_percent
from ...core.stock import BuySellParShares, StockRound
from ...errors import IllegalAction
from ...model import POOL, Corporation, Player

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

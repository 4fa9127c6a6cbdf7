"""Selling to the pool in 1825, including part of the director's certificate.

Rule (docs/rules-1825.md, "Selling part of the director's certificate"): a director may sell part of the
director's certificate (e.g. 10% of the 20% certificate). When another player then holds more than the
seller keeps, that player becomes director: he takes the director's certificate and hands his ordinary
shares of the same size over (to the seller if the seller still holds at least that much, else to the
pool), and the seller gets back from the pool the part of the certificate he did not sell. When nobody
takes over, the pool swaps the unsold part back in ordinary shares (the shared core's partial bundle).

These sales are made in the stock round (`steps/stock.BuySellParShares1825`) and by the director in the
train step (`operating.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.shares import Bundle, player_percent
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


def partial_director_bundles(game: Game, corp: Corporation, player: Player) -> list[Bundle]:
    """Rule (docs/rules-1825.md, "Selling part of the director's certificate"): the sales of part of the
    director's certificate open to its holder — everything he holds of the corporation, keeping back one
    share's worth or more of the certificate (a major's 20%: 10% back; a minor's 40%: 20% back), where the
    part kept can be handed back to him in ordinary shares: from the sale itself, from a player who takes
    the certificate over, or from the market."""
    held = sorted((s for s in corp.shares if s.owner == player.id), key=lambda s: (s.president, s.stamp))
    if not held or not held[-1].president:
        return []
    pres, unit = held[-1], ordinary_unit(corp)
    total = sum(s.percent for s in held)
    pooled = any(s.owner == POOL and not s.president for s in corp.shares)
    others = max((player_percent(corp, p.id) for p in game.players if p.id != player.id), default=0)
    out = []
    for keep in range(unit, pres.percent, unit):
        if total - keep >= pres.percent or pooled or (others >= pres.percent and others > keep):
            out.append(Bundle(corp, held, total - keep))
    return out


def ordinary_unit(corp: Corporation) -> int:
    """The percent of one ordinary share (10 for a major, 20 for a minor)."""
    return min((s.percent for s in corp.shares if not s.president), default=10)

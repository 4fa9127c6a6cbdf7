"""Certificates changing hands: buying, selling, presidency changes, certificate counts.

A bundle is a list of certificates of one corporation plus the percent actually moved. The percent is
smaller than the certificates' sum only when a president sells part of the director's certificate: the
seller then keeps the difference as ordinary shares.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import IllegalAction, MalformedAction
from ..model import Corporation, Owner, Share


@dataclass
class Bundle:
    corporation: Corporation
    shares: list[Share]
    percent: int

    @property
    def includes_president(self) -> bool:
        return any(s.president for s in self.shares)


def share_unit(corp: Corporation) -> int:
    """The smallest certificate of a corporation: every sale is a whole number of these."""
    return min(s.percent for s in corp.shares)


def parse_bundle(corporations: dict[str, Corporation], share_ids: object, percent: object) -> Bundle:
    if not isinstance(share_ids, list) or not share_ids or not all(isinstance(s, str) for s in share_ids):
        raise MalformedAction("'shares' must be a non-empty list of share ids like 'LNWR_3'", "shares_shape")
    shares: list[Share] = []
    corp: Corporation | None = None
    for share_id in share_ids:
        sym, _, index = share_id.rpartition("_")
        found = corporations.get(sym)
        if found is None or not index.isdigit() or int(index) >= len(found.shares):
            raise MalformedAction(f"unknown share {share_id!r}", "share_id")
        if corp is not None and found is not corp:
            raise MalformedAction("all shares of one action must belong to one corporation", "shares_mixed")
        corp = found
        share = found.shares[int(index)]
        if share in shares:
            raise MalformedAction(f"share {share_id} listed twice", "share_id")
        shares.append(share)
    assert corp is not None
    total = sum(s.percent for s in shares)
    if percent is None:
        percent = total
    if not isinstance(percent, int) or percent <= 0 or percent > total:
        raise MalformedAction(f"percent {percent!r} does not fit shares totalling {total}%", "shares_percent")
    if percent < total and not any(s.president for s in shares):
        raise MalformedAction("a partial bundle must contain the president's certificate", "shares_percent")
    unit = share_unit(corp)
    if percent % unit:
        raise MalformedAction(f"percent {percent} is not a whole number of {corp.sym}'s {unit}% shares",
                              "shares_percent")
    president = next((s for s in shares if s.president), None)
    if president is not None and total - percent >= president.percent:
        # only part of the president's certificate may be kept back (a swap settles it); keeping back a whole
        # certificate's worth names a certificate that is not sold at all
        raise MalformedAction(f"percent {percent} leaves out more than part of {president.id}: name only the "
                              "certificates sold", "shares_percent")
    return Bundle(corp, shares, percent)


def holdings(corp: Corporation) -> dict[Owner, int]:
    result: dict[Owner, int] = {}
    for share in corp.shares:
        result[share.owner] = result.get(share.owner, 0) + share.percent
    return result


def player_percent(corp: Corporation, player: int) -> int:
    return sum(s.percent for s in corp.shares if s.owner == player)


def move_bundle(bundle: Bundle, to: Owner) -> None:
    """Move certificates. A partial director's bundle moves the whole certificate; the seller gets the
    difference back in ordinary shares from the receiving side (the pool swaps them)."""
    corp = bundle.corporation
    seller = bundle.shares[0].owner
    for share in bundle.shares:
        corp.give(share, to)
    keep = sum(s.percent for s in bundle.shares) - bundle.percent
    if keep <= 0:
        return
    for share in sorted(corp.shares, key=lambda s: s.stamp):
        if keep <= 0:
            break
        if share.owner == to and not share.president and share.percent <= keep:
            corp.give(share, seller)
            keep -= share.percent
    if keep:
        raise IllegalAction("cannot split the director's certificate that way", "president_split")


def change_presidency(corp: Corporation, seat_order: list[int], previous: Owner) -> None:
    """After certificates moved: the player with the most shares takes the director's certificate.

    Ties keep the current director; otherwise the first player in seat order after the previous
    director wins. The new director hands over ordinary shares of the same percent in exchange.
    """
    pres = corp.shares[0]
    if not pres.president:
        return  # a company without a director's certificate (1840's Stadtbahnen and lines)
    holder = pres.owner
    counts = {pid: player_percent(corp, pid) for pid in seat_order}
    current = counts.get(holder, 0) if isinstance(holder, int) else 0
    start = seat_order.index(previous) + 1 if previous in seat_order else 0
    rotated = seat_order[start:] + seat_order[:start]
    # only a player who can hand over ordinary shares worth the certificate can take it
    eligible = [pid for pid in rotated if pid != holder and counts[pid] >= pres.percent]
    if isinstance(holder, int):
        eligible = [pid for pid in eligible if counts[pid] > current]
    if not eligible:
        return
    best = max(eligible, key=lambda pid: counts[pid])
    _swap_president(corp, pres, best)


def _swap_president(corp: Corporation, pres: Share, new: int) -> None:
    old = pres.owner
    needed = pres.percent
    given: list[Share] = []
    for share in sorted((s for s in corp.shares if s.owner == new and not s.president), key=lambda s: s.stamp):
        if needed <= 0:
            break
        given.append(share)
        needed -= share.percent
    if needed > 0:
        return
    for share in given:
        corp.give(share, old)
    corp.give(pres, new)


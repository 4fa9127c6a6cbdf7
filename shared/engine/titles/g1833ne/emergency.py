"""1833NE emergency sales: what the president of a corporation that must buy a train may sell, of his own choice,
once its treasury, its forced issues and his cash fall short (docs/1833NE.md, issue 45, R3).

The train step (`steps/trains.TrainStep`) offers and takes these sales; this module only works out which ones the
seed's limits allow, so that the offers and the refusals ask the very same question.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.shares import Bundle
from ...errors import IllegalAction
from ...model import Corporation, Player, Share
from .finance import forced_issues, sellable_in_emergency

if TYPE_CHECKING:
    from ...game import Game


def shortfall(game: Game, corp: Corporation, price: int) -> tuple[int, int]:
    """(forced issues still to make, what the corporation and its president still lack after them and his
    cash): the seed's order, treasury, issues, the president's cash, and only then his shares."""
    issues, proceeds = forced_issues(game, corp, price - corp.cash)
    cash = game.player(corp.president).cash if corp.president is not None else 0
    return issues, price - corp.cash - proceeds - cash


def allowance(game: Game, corp: Corporation, price: int, turn: dict[str, int]) -> dict[str, tuple[list[Share], int]]:
    """Per corporation, the president's certificates he may sell now and the price each fetches (within the
    market's 50%, his operating corporation's presidency and price kept; see `sellable_in_emergency`)."""
    if corp.president is None:
        return {}
    issues, _ = shortfall(game, corp, price)
    out: dict[str, tuple[list[Share], int]] = {}
    for share, share_price in sellable_in_emergency(game, game.player(corp.president), corp, issues, turn):
        out.setdefault(share.corporation, ([], share_price))[0].append(share)
    return out


def sale_options(game: Game, corp: Corporation, price: int, turn: dict[str, int]) -> list[dict[str, Any]]:
    """Every sale the president may choose: one to n certificates of a corporation, as long as the first n-1
    still fall short (he stops once the amount is reached)."""
    issues, lack = shortfall(game, corp, price)
    if lack <= 0 or corp.president is None:
        return []
    out: list[dict[str, Any]] = []
    for shares, share_price in allowance(game, corp, price, turn).values():
        for n in range(1, len(shares) + 1):
            if sum(share_price * s.percent // 10 for s in shares[:n - 1]) >= lack:
                break
            out.append({"type": "sell_shares", "entity": corp.president, "entity_type": "player",
                        "shares": [s.id for s in shares[:n]], "percent": sum(s.percent for s in shares[:n])})
    return out


def sale_refusal(game: Game, corp: Corporation, price: int, turn: dict[str, int], player: Player,
                 bundle: Bundle) -> IllegalAction | None:
    """Why the president may not make this emergency sale, in the words of the rule (None: he may)."""
    if player.id != corp.president:
        return IllegalAction(f"only {corp.sym}'s president sells shares for its train", "emergency_sale")
    _, lack = shortfall(game, corp, price)
    if lack <= 0:
        return IllegalAction(f"{corp.sym}'s treasury, forced issues and its president's cash pay the train: "
                             "no sale is needed", "emergency_sale")
    sold = bundle.corporation
    if bundle.includes_president:
        return IllegalAction("the president's certificate is never sold to the market", "emergency_sale")
    if any(s.owner != player.id for s in bundle.shares):
        return IllegalAction(f"{player.name} does not hold all of {', '.join(s.id for s in bundle.shares)}",
                             "sell_not_owned")
    shares, share_price = allowance(game, corp, price, turn).get(sold.sym, ([], 0))
    if len(bundle.shares) > len(shares):
        return IllegalAction(f"{player.name} may sell {len(shares)} {sold.sym} certificate(s) now: the market holds "
                             f"at most 50%, only its president sells before its first run, and {corp.sym}'s "
                             "presidency and price above $0 are kept", "emergency_sale")
    smallest = min(share_price * s.percent // 10 for s in bundle.shares)
    if share_price * bundle.percent // 10 - smallest >= lack:
        return IllegalAction(f"he stops once the amount is reached: {corp.sym} lacks {lack}, which fewer "
                             f"{sold.sym} certificates raise", "emergency_sale")
    return None


__all__ = ["allowance", "sale_options", "sale_refusal", "shortfall"]

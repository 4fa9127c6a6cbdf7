"""Corporation finance in 1833NE: issuing and buying back treasury shares, the emergency train purchase
(treasury, forced issues on worse terms, the president's cash, the president's share sales) and the
bankruptcy that removes a player while the game goes on.

The emergency purchase is planned completely (`emergency_plan`) before anything moves, so a refused
purchase changes nothing; `execute_plan` then carries the plan out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...core.shares import Bundle, change_presidency
from ...errors import IllegalAction
from ...model import POOL, Corporation, Player, Share
from . import constants as K
from . import tables as T

if TYPE_CHECKING:
    from ...game import Game


def players_percent(game: Game, corp: Corporation) -> int:
    return sum(s.percent for s in corp.shares if isinstance(s.owner, int))


def issue_limit(game: Game, corp: Corporation) -> int:
    """Shares held by players minus shares already in the market, within the treasury and the 50% limit."""
    pool = corp.percent_owned_by(POOL)
    by_players = (players_percent(game, corp) - pool) // 10
    treasury = sum(1 for s in corp.shares if s.owner == corp.sym)
    room = (game.rules.market_share_limit(game) - pool) // 10
    return max(0, min(by_players, treasury, room))


def issue_price(game: Game, corp: Corporation) -> int:
    """Issued shares fetch the price some spaces below the market price (the seed says only 'below';
    how many: tables.json `finance.issue_spaces_below`)."""
    assert corp.share_cell is not None
    left = game.market.left(corp.share_cell, T.of(game).issue_spaces_below)
    return 0 if left == corp.share_cell else game.market.cell(left).price


def buyback_price(game: Game, corp: Corporation) -> int:
    """Shares are bought back at the price some spaces above the market price (the seed says only 'above';
    how many: tables.json `finance.buy_back_spaces_above`)."""
    assert corp.share_cell is not None
    return game.market.cell(game.market.right(corp.share_cell, T.of(game).buy_back_spaces_above)).price


def forced_issue_proceeds(game: Game, cell: tuple[int, int]) -> int:
    """A forced issue fetches less than the new, already lowered price (seed); how much less: tables.json
    `finance.emergency_issue_spaces_below`."""
    lower = game.market.left(cell, T.of(game).emergency_issue_spaces_below)
    return game.market.cell(lower).price if lower != cell else 0


def issue(game: Game, corp: Corporation, shares: list[Share]) -> None:
    limit = issue_limit(game, corp)
    for share in shares:
        if share.owner != corp.sym:
            raise IllegalAction(f"{share.id} is not in {corp.sym}'s treasury", "issue_not_treasury")
    if len(shares) > limit:
        raise IllegalAction(f"{corp.sym} may issue at most {limit} shares now", "issue_limit")
    price = issue_price(game, corp)
    if price <= 0:
        raise IllegalAction(f"{corp.sym}'s price is too low to issue", "issue_price")
    for share in shares:
        corp.give(share, POOL)
    game.pay(None, corp, price * len(shares))


def buy_back(game: Game, corp: Corporation, shares: list[Share]) -> None:
    for share in shares:
        if share.owner != POOL:
            raise IllegalAction(f"{share.id} is not in the market", "buyback_not_pool")
    cost = buyback_price(game, corp) * len(shares)
    if cost > corp.cash:
        raise IllegalAction(f"{corp.sym} has {corp.cash}, buying back costs {cost}", "cash")
    game.pay(corp, None, cost)
    for share in shares:
        corp.give(share, corp.sym)


# -- the emergency purchase -------------------------------------------------------------------------------
@dataclass
class Plan:
    """How a corporation raises the money for its train, in the digest's order."""

    price: int
    issues: int = 0
    issue_proceeds: int = 0
    president_cash: int = 0
    sales: list[Share] = field(default_factory=list)
    sales_total: int = 0


def sellable_in_emergency(game: Game, player: Player, operating: Corporation, issued: int = 0,
                          turn: dict[str, int] | None = None) -> list[tuple[Share, int]]:
    """The president's certificates he may sell, with what each fetches, in the order the plan counts them
    (other corporations first, dearer first; he chooses his own sales: `emergency.sale_options`). `turn`: what
    his earlier sales of a corporation this turn fetched (a later one fetches the same and moves nothing)."""
    out: list[tuple[tuple[int, int, str], Share, int]] = []
    limit = game.rules.market_share_limit(game)
    turn = turn or {}
    for corp in game.corporations.values():
        if corp.closed or corp.share_cell is None:
            continue
        price = game.share_price(corp) or 0
        cell = corp.share_cell
        if corp is operating and issued:
            # the forced issues come first and move the price and the market before he sells
            cell = game.market.left(cell, issued)
            price = game.market.cell(cell).price
        if corp.sym in turn:
            price = turn[corp.sym]
        if price <= 0:
            continue
        if not corp.operated and corp.president != player.id:
            continue
        held = sorted((s for s in corp.shares if s.owner == player.id and not s.president), key=lambda s: s.index)
        room = (limit - corp.percent_owned_by(POOL) - (10 * issued if corp is operating else 0)) // 10
        if corp is operating:
            # selling may not change the presidency, nor drop the price to 0 (closing it)
            if corp.sym not in turn and game.market.cell(game.market.left(cell)).price <= 0:
                continue
            mine = corp.percent_owned_by(player.id)
            others = max((corp.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
            room = min(room, (mine - others) // 10, len(held))
        for share in held[:max(room, 0)]:
            out.append(((1 if corp is operating else 0, -price, corp.sym), share, price))
    out.sort(key=lambda e: e[0])
    return [(share, price) for _, share, price in out]


def forced_issues(game: Game, corp: Corporation, need: int) -> tuple[int, int]:
    """How many forced issues raise `need` (all the limits allow when they cannot) and what they fetch: each
    drops the price one space, fetches less than the new price and may not take it under $20 (seed)."""
    cell = corp.share_cell
    assert cell is not None
    count = proceeds = 0
    for _ in range(issue_limit(game, corp)):
        if proceeds >= need:
            break
        new = game.market.left(cell)
        if new == cell or game.market.cell(new).price < K.EMERGENCY_ISSUE_FLOOR:
            break
        proceeds += forced_issue_proceeds(game, new)
        cell = new
        count += 1
    return count, proceeds


def make_forced_issues(game: Game, corp: Corporation, count: int) -> None:
    for _ in range(count):
        share = next(s for s in corp.shares if s.owner == corp.sym)
        assert corp.share_cell is not None
        corp.share_cell = game.market.left(corp.share_cell)
        corp.give(share, POOL)
        game.pay(None, corp, forced_issue_proceeds(game, corp.share_cell))


def emergency_plan(game: Game, corp: Corporation, price: int, turn: dict[str, int] | None = None) -> Plan | None:
    """The plan that raises `price`, or None when even all of it falls short (bankruptcy). Its sales say only
    that enough can be sold: the president chooses his own (`emergency.sale_options`)."""
    plan = Plan(price)
    need = price - corp.cash
    if need <= 0:
        return plan
    plan.issues, plan.issue_proceeds = forced_issues(game, corp, need)
    need -= plan.issue_proceeds
    if need <= 0:
        return plan
    president = game.player(corp.president) if corp.president is not None else None
    if president is None:
        return None
    if president.cash >= need:
        plan.president_cash = need
        return plan
    for share, share_price in sellable_in_emergency(game, president, corp, plan.issues, turn):
        # he sells one certificate at a time and stops once his cash and the proceeds cover the rest
        plan.sales.append(share)
        plan.sales_total += share_price
        if president.cash + plan.sales_total >= need:
            plan.president_cash = max(0, need - plan.sales_total)
            return plan
    return None


def execute_plan(game: Game, corp: Corporation, plan: Plan) -> None:
    """The forced issues, then the president's cash for the rest (his sales, of his choice, came before)."""
    assert not plan.sales, "the president sells shares of his choice before the train is bought"
    make_forced_issues(game, corp, plan.issues)
    short = plan.price - corp.cash
    if short > 0 and corp.president is not None:
        game.pay(game.player(corp.president), corp, short)


def go_bankrupt(game: Game, corp: Corporation, turn_sales: dict[str, int] | None = None) -> None:
    """The president cannot raise the train: he sells what he may, all his money goes to the corporation,
    his remaining certificates are sold to the market without moving prices, for that corporation (our
    reading of the seed's "verkocht"), and he leaves the game."""
    from .stock import sell_to_market

    pid = corp.president
    assert pid is not None
    player = game.player(pid)
    turn = turn_sales if turn_sales is not None else {}
    for share, _ in sellable_in_emergency(game, player, corp, 0, turn):
        if share.owner == player.id:
            sell_to_market(game, player, Bundle(game.corporations[share.corporation], [share], share.percent), turn)
    game.pay(player, corp, player.cash)
    order = [p for p in game.player_order if p != pid]
    touched: list[Corporation] = []
    for other in game.corporations.values():
        held = [s for s in other.shares if s.owner == pid]
        if not held:
            continue
        price = 0 if other.closed else game.share_price(other) or 0
        for share in held:
            other.give(share, POOL)
        game.pay(None, corp, price * sum(s.percent for s in held) // 10)
        touched.append(other)
    for other in touched:
        if order:
            change_presidency(other, order, pid)
        if other.shares[0].owner == POOL and not other.closed:
            game.rules.close(game, other)  # type: ignore[attr-defined]
    for sym in list(player.companies):
        company = game.companies[sym]
        company.closed = True
        company.owner = None
        game.board.remove_blocker(sym)
    player.companies = []
    player.bankrupt = True
    player.passed = True
    game.player_order = order
    if len([p for p in game.players if not p.bankrupt]) <= 1:
        game.end_game("bankrupt")


__all__ = ["Plan", "buy_back", "buyback_price", "emergency_plan", "execute_plan", "forced_issues", "go_bankrupt", "issue",
           "issue_limit", "issue_price", "make_forced_issues"]

"""Spending on credit in receivership: only what this turn's run can repay.

Rule (docs/rules-1825.md, "Credit in receivership is repaid by this turn's run"): a corporation in
receivership may pay for track, a station or a leased train beyond its treasury (up to £200 a payment), and
the run of the same operating turn must repay everything so spent. A spend is therefore allowed only when
the corporation's best run after it (with the trains it runs this turn, or the best train it could still
lease, the lease counted as spent on credit) covers the whole credit. Without this check the corporation
reaches its run with no run that may be made and nobody has a move (the reference then needs an undo).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.operating import OperatingRound
from ...errors import IllegalAction
from ...model import Corporation, Train
from .state import in_receivership

if TYPE_CHECKING:
    from ...board.tiles import TileDef
    from ...game import Game

LEASE_COST = 10


def _revenue(game: Game, round_: OperatingRound, corp: Corporation, extra: Train | None) -> int:
    trains = round_.route_trains(game, corp) + ([extra] if extra is not None else [])
    kinds = game.rules.train_kinds(game)
    by_id = {t.id: kinds[t.name] for t in trains}
    if not by_id or not game.rules.route_available(game, corp):
        return 0
    routes = game.board.best_routes(corp.sym, by_id, game.rules.revenue_colors(game), game.phase.name)
    return sum(int(r.get("revenue", 0)) for r in routes)


def repayable(game: Game, round_: OperatingRound, corp: Corporation, loan: int, cash: int) -> bool:
    """Whether this turn's best run covers `loan` spent on credit, the treasury then holding `cash`: with
    the trains the corporation runs now, or, while it has not leased this turn, with a leaseable train (its
    lease adding to the credit what the treasury cannot pay)."""
    if loan <= 0:
        return True
    if _revenue(game, round_, corp, None) >= loan:
        return True
    if round_.leased_train is not None:
        return False
    lease_loan = loan + max(0, LEASE_COST - cash)
    return any(_revenue(game, round_, corp, t) >= lease_loan for t in game.rules.leaseable_trains(game))


def lease_repayable(game: Game, round_: OperatingRound, corp: Corporation, train: Train) -> bool:
    """Whether leasing `train` now leaves a run that repays the credit (a lease paid in cash is free)."""
    loan = round_.receivership_loan + max(0, LEASE_COST - corp.cash)
    return loan <= 0 or _revenue(game, round_, corp, train) >= loan


def check_spend(game: Game, round_: OperatingRound, corp: Corporation, cost: int, what: str,
                tile: tuple[str, TileDef, int] | None = None) -> None:
    """Refuse a spend on credit the run of this turn cannot repay; `tile` (hex, tile, rotation) is the tile
    being laid, counted as laid."""
    borrow = cost - corp.cash
    if borrow <= 0:
        return
    loan = round_.receivership_loan + borrow
    if tile is None:
        ok = repayable(game, round_, corp, loan, 0)
    else:
        board = game.board
        with board.trial_lay(*tile):
            board.forget_reach()
            ok = repayable(game, round_, corp, loan, 0)
    if not ok:
        raise IllegalAction(f"{corp.sym} is in receivership with {corp.cash}: {what} costs {cost}, and the {loan} "
                            "spent on credit this turn is more than its best run can repay", "credit")


def token_options(game: Game, round_: OperatingRound, corp: Corporation, options: list[dict[str, Any]]
                  ) -> list[dict[str, Any]]:
    """The stations a corporation is offered: none while the next one would be bought on credit its run
    cannot repay (the step stays open, as the reference's, with its pass)."""
    price = corp.next_token_price()
    if (price is None or price <= corp.cash or not in_receivership(corp)
            or round_.pending_homes and round_.pending_homes[0] == corp.sym):
        return options
    return options if repayable(game, round_, corp, round_.receivership_loan + price - corp.cash, 0) else []

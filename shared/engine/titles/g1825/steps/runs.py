"""Runs and dividends: a corporation in receivership leases a train for its run (`LeaseTrain`, open in the
track step too), its run repays what it spent on credit, it pays no dividend, and the price moves by what
was paid (docs/rules-1825.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.operating import OperatingRound, SpecialBuy
from ....core.rounds import Round
from ....core.runs import Dividend, RunRoutes
from ....errors import IllegalAction
from ....model import Corporation, Train
from ..credit import LEASE_COST, lease_repayable
from ..operating import OperatingRound1825
from ..state import in_receivership

if TYPE_CHECKING:
    from ....game import Game


def leaseable_trains(game: Game) -> list[Train]:
    """The trains the bank leases now: those it sells (`Rules1825.leaseable_trains`)."""
    return game.rules.leaseable_trains(game)  # type: ignore[attr-defined, no-any-return]


def silent_receivership(game: Game, corp: Corporation) -> bool:
    """A minor in receivership in Units 1 and 2 does nothing (`Rules1825.silent_receivership`)."""
    return bool(game.rules.silent_receivership(game, corp))  # type: ignore[attr-defined]


class LeaseTrain(SpecialBuy):
    """Receivership: lease a train from the bank for this operating turn instead of buying one (the special
    purchase of the track and run steps)."""

    def special_buy(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        assert isinstance(round_, OperatingRound1825)
        corp = game.corporations[action["entity"]]
        if not in_receivership(corp):
            raise IllegalAction(f"only a corporation in receivership leases trains; {corp.sym} is not", "lease")
        if round_.leased_train is not None:
            raise IllegalAction(f"{corp.sym} already leased a train this turn", "lease")
        if action.get("cost") not in (None, LEASE_COST):
            raise IllegalAction(f"a lease costs {LEASE_COST}", "lease_cost")
        train = next((t for t in leaseable_trains(game) if t.name == action.get("description")), None)
        if train is None:
            raise IllegalAction(f"no {action.get('description')!r} train can be leased now", "lease_train")
        if not lease_repayable(game, round_, corp, train):
            raise IllegalAction(f"{corp.sym} is in receivership with {corp.cash}: a lease of a {train.name} on credit "
                                "is more than its best run this turn can repay", "credit")
        round_.leased_train = train
        if corp.cash < LEASE_COST:
            round_.receivership_loan += LEASE_COST - corp.cash
            game.pay(corp, None, corp.cash)
        else:
            game.pay(corp, None, LEASE_COST)

    def special_buy_options(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[dict[str, Any]]:
        """The leases a run repays (what the corporation spent on credit)."""
        return [{"description": t.name, "cost": LEASE_COST} for t in leaseable_trains(game)
                if lease_repayable(game, round_, corp, t)]


class RunRoutes1825(LeaseTrain, RunRoutes):
    """The shared run step: a corporation in receivership runs (a leased train if it owns none) and leases
    here; its run must repay what it spent on credit this turn."""

    def route_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        assert isinstance(round_, OperatingRound1825)
        receivership = in_receivership(corp)
        if not corp.trains and not receivership:
            return []
        if silent_receivership(game, corp) or not game.rules.route_available(game, corp):
            return []
        if receivership and round_.leased_train is None and leaseable_trains(game):
            return ["run_routes", "special_buy"]
        return ["run_routes"]

    def after_run_routes(self, game: Game, round_: OperatingRound, corp: Corporation) -> None:
        assert isinstance(round_, OperatingRound1825)
        leased = round_.leased_train
        round_.leased_run = leased is not None and any(r.get("train") == leased.id for r in round_.routes)
        if round_.revenue < round_.receivership_loan:
            raise IllegalAction(
                f"revenue {round_.revenue} does not cover {round_.receivership_loan} spent on credit", "loan"
            )


class Dividend1825(Dividend):
    """The shared payout step: no choice in receivership, withheld revenue first repays the credit, the price
    moves by what was paid, and a corporation on the market's closing cell closes. A corporation in
    receivership that ran its leased train and is removed at this payout leaves the step spent for the next
    corporation's turn (docs/rules-1825.md "The turn after a removal at the payout")."""

    def skip(self, game: Game, round_: Round) -> None:
        assert isinstance(round_, OperatingRound1825)
        corp = round_.corp(game)
        ran_leased = round_.leased_run
        super().skip(game, round_)
        if corp.closed and ran_leased:
            round_.removed_at_payout = True

    def may_choose_dividend(self, game: Game, corp: Corporation) -> bool:
        return not in_receivership(corp)

    def distribute(self, game: Game, round_: OperatingRound, corp: Corporation, kind: str, amount: Any) -> None:
        assert isinstance(round_, OperatingRound1825)
        revenue = round_.revenue
        if kind == "payout" and revenue > 0:
            per_share = revenue // 10
            self.pay_shareholders(game, corp, per_share)
        elif revenue > 0:
            # spending on credit in receivership is repaid first out of the withheld revenue
            game.pay(None, corp, revenue - round_.receivership_loan)
        paid = revenue if kind == "payout" else 0
        self.move_price(game, corp, paid)
        round_.routes = []
        if corp.share_cell is not None and "close" in game.market.cell(corp.share_cell).types:
            game.close_corporation(corp)

    @staticmethod
    def move_price(game: Game, corp: Corporation, paid: int) -> None:
        """Down one when nothing is paid; unmoved up to half the price; right by the multiples paid, at most 4."""
        if corp.share_cell is None:
            return
        price = game.share_price(corp) or 0
        if paid <= 0:
            corp.share_cell = game.market.left(corp.share_cell)
            return
        if paid <= price // 2:
            return
        steps = 1 if paid < 2 * price else min(paid // price, 4)
        corp.share_cell = game.market.right(corp.share_cell, steps)

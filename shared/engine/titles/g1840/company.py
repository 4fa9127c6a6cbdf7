"""The company round (rules digest, *Company round*): private income; each Tram Company collects its lines'
revenue boxes and pays a multiple of 10; the Stadtbahnen run and pay out (stage "routes"); then the majors
buy, scrap and reassign trams (stage "trains"). The line auction follows in `acquisition.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.operating import pay_private_income
from ...core.runs import refuse_stated_extras
from ...errors import IllegalAction
from ...model import POOL, Corporation
from .flow import FlowRound, Option, need_int, rules_of
from .routes import route_possible, route_revenue, stadtbahn_run
from .state import CITY, MAJOR, state
from .trams import (
    TramTurnOffers,
    buy_tram,
    keeps_buying,
    reassign_actions,
    reassign_trams,
    scrap_tram,
    tram_buy_actions,
)

if TYPE_CHECKING:
    from ...game import Game


# -- the company round -------------------------------------------------------------------------------------
class CompanyRound(TramTurnOffers, FlowRound):
    """Stage "routes": majors collect their lines' revenue and pay a chosen dividend, Stadtbahnen run and
    pay out. Stage "trains": majors buy, scrap and reassign trams."""

    kind = "Company"
    handlers = {"dividend": "dividend", "run_routes": "run_routes", "buy_train": "buy_train",
                "scrap_train": "scrap_train", "pass": "pass_", "reassign_trains": "reassign"}
    offers = {"dividend": "offer_dividend", "run_routes": "offer_run_routes", "buy_train": "offer_buy_train",
              "scrap_train": "offer_scrap_train", "pass": "offer_pass", "reassign_trains": "offer_reassign_trains"}
    tried = frozenset({"run_routes"})

    def __init__(self, stage: str) -> None:
        super().__init__(1)
        self.stage = stage
        self.sub = ""

    def start(self, game: Game) -> None:
        if self.stage == "routes":
            pay_private_income(game)
        self.entities = company_round_order(game, fix=self.stage == "routes")
        if self.stage == "routes":
            cities = [c for c in game.corporations.values() if c.kind == CITY and not c.closed]
            self.entities += [c.sym for c in operating_order(game, cities)]
        self.index = 0
        self.begin(game)

    def corp(self, game: Game) -> Corporation:
        return game.corporations[self.entities[self.index]]

    def begin(self, game: Game) -> None:
        """Start the current entity's turn, doing automatically whatever needs no decision."""
        rules = rules_of(game)
        while self.index < len(self.entities):
            corp = self.corp(game)
            if self.stage == "routes":
                if corp.kind == MAJOR:
                    revenue = sum(line.cash for line in rules.lines_of(game, corp))
                    if revenue > 0:
                        self.sub = "dividend"
                        return
                    rules.move_by_dividend(game, corp, 0)
                else:
                    if route_possible(game, corp):
                        self.sub = "route"
                        return
                    rules.move_by_dividend(game, corp, 0)
            else:
                self.sub = "buy"
                if self.open_actions(game):
                    return
                self.sub = "reassign"
                if self.open_actions(game):
                    return
            self.index += 1
        self.done = True

    def next_entity(self, game: Game) -> None:
        self.index += 1
        self.begin(game)

    def open_actions(self, game: Game) -> list[str]:
        corp = self.corp(game)
        if self.sub == "dividend":
            return ["dividend"]
        if self.sub == "route":
            return ["run_routes"]
        if self.sub == "buy":
            return tram_buy_actions(game, corp)
        if self.sub == "reassign":
            return reassign_actions(game, corp)
        return []

    def offer_dividend(self, game: Game, entity: Any) -> list[Option]:
        """Every multiple of 10 up to the revenue the lines' boxes hold (the checks of `dividend`)."""
        revenue = sum(line.cash for line in rules_of(game).lines_of(game, game.corporations[entity]))
        return [{"kind": "variable", "amount": amount} for amount in range(0, revenue + 1, 10)]

    def offer_run_routes(self, game: Game, entity: Any) -> list[Option]:
        """A Stadtbahn's best run (it always runs, and always pays out)."""
        return [{"routes": stadtbahn_run(game, game.corporations[entity]), "extra_revenue": 0, "subsidy": 0}]

    def dividend(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = self.corp(game)
        rules = rules_of(game)
        lines = rules.lines_of(game, corp)
        revenue = sum(line.cash for line in lines)
        if action.get("kind") != "variable":
            raise IllegalAction("1840 dividends are 'variable' with an amount", "dividend_kind")
        amount = need_int(action, "amount")
        if amount < 0 or amount > revenue or amount % 10:
            raise IllegalAction(f"pay a multiple of 10 between 0 and {revenue}", "dividend_amount")
        for line in lines:
            game.pay(line, None, line.cash)  # the revenue boxes empty into the bank, which pays it all out
        pay_shareholders(game, corp, amount, pool_pays_company=False)
        game.pay(None, corp, revenue - amount)
        rules.move_by_dividend(game, corp, amount)
        self.next_entity(game)

    def run_routes(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = self.corp(game)
        rules = rules_of(game)
        refuse_stated_extras(action)
        revenue = route_revenue(game, corp, action.get("routes")) * rules.cr_multiplier(game)
        pay_shareholders(game, corp, revenue)
        rules.move_by_dividend(game, corp, revenue)
        self.next_entity(game)

    def buy_train(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        """A purchase ends the purchase step once no further tram can be bought (rules-1840 *Tram turn*)."""
        buy_tram(game, self.corp(game), action)
        if self.sub != "buy" or not keeps_buying(game, self.corp(game)):
            self.sub = "reassign"
            if not self.open_actions(game):
                self.next_entity(game)

    def scrap_train(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        """A scrap that leaves nothing to buy or scrap ends the purchase step, not the tram turn: the
        reassignment step still follows (rules-1840 *Tram turn*, a major with lines but no tram left)."""
        scrap_tram(game, self.corp(game), action)
        if self.sub == "buy" and not self.open_actions(game):
            self.sub = "reassign"
        if not self.open_actions(game):
            self.next_entity(game)

    def pass_(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        if self.sub == "buy":
            self.sub = "reassign"
            if self.open_actions(game):
                return
        self.next_entity(game)

    def reassign(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        reassign_trams(game, self.corp(game), action)
        self.next_entity(game)


def pay_shareholders(game: Game, corp: Corporation, amount: int, pool_pays_company: bool = True) -> None:
    """Each player gets their percentage of `amount`. A Stadtbahn's shares in the market pay the Stadtbahn
    itself; a Tram Company's earn nothing (rules-1840 *Tram Company payout*: the bank pays dividends to
    players only, the company keeps just what it withholds)."""
    for player in game.players:
        pct = corp.percent_owned_by(player.id)
        if pct:
            game.pay(None, player, amount * pct // 100)
    pooled = corp.percent_owned_by(POOL)
    if pooled and pool_pays_company:
        game.pay(None, corp, amount * pooled // 100)


def company_round_order(game: Game, fix: bool = False) -> list[str]:
    """The majors' order for a whole company round is fixed when it starts, before prices move."""
    st = state(game)
    if fix or st.cr_order is None:
        st.cr_order = [c.sym for c in operating_order(game, rules_of(game).majors(game))]
    return list(st.cr_order)


def operating_order(game: Game, corps: list[Corporation]) -> list[Corporation]:
    return rules_of(game).in_operating_order(game, corps)

"""Privates bought by corporations during their operating turns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.operating import OperatingRound
from ....core.rounds import Round, Step
from ....errors import IllegalAction, MalformedAction
from ..privates import any_time_ability

if TYPE_CHECKING:
    from ....game import Game
    from ....model import Company


class BuyCompany(Step):
    """In phases with `can_buy_companies` a corporation buys a player's private for 1 to 2x face value."""

    handlers = {"buy_company": "buy_company", "pass": "pass_step"}
    offers = {"buy_company": "offer_buy_company", "pass": "offer_pass"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game) or entity not in game.corporations:
            return []
        corp = game.corporations[entity]
        if corp.kind == "minor":
            return []
        if "can_buy_companies" in game.phase.status and corp.cash >= 1 and self.purchasable(game):
            return ["buy_company", "pass"]
        if any_time_ability(game, corp) is not None:
            return ["pass"]  # the turn stays open while a private may still lay its tile
        return []

    @staticmethod
    def purchasable(game: Game) -> list[Company]:
        return [c for c in game.companies.values() if isinstance(c.owner, int) and not c.closed
                and not any(a.get("type") == "no_buy" for a in c.abilities)]

    def offer_buy_company(self, game: Game, round_: Round, entity: str) -> list[dict[str, Any]]:
        """Each purchasable private at its lowest and highest price and for all the corporation's cash (the
        price is open between those limits)."""
        corp = game.corporations[entity]
        out = []
        for company in self.purchasable(game):
            prices = {company.min_price, company.max_price, corp.cash}
            out.extend({"company": company.sym, "price": p} for p in sorted(prices)
                       if company.min_price <= p <= min(company.max_price, corp.cash))
        return out

    def buy_company(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        if "can_buy_companies" not in game.phase.status:
            raise IllegalAction("corporations buy privates from the green phase on", "buy_company")
        company = game.company(action.get("company"))
        price = action.get("price")
        if not isinstance(price, int):
            raise MalformedAction("buy_company needs an integer price", "price")
        if company not in self.purchasable(game):
            raise IllegalAction(f"{company.sym} cannot be bought by a corporation", "buy_company")
        if not company.min_price <= price <= company.max_price:
            raise IllegalAction(f"{company.sym} sells for {company.min_price} to {company.max_price}", "company_price")
        if price > corp.cash:
            raise IllegalAction(f"{corp.sym} has {corp.cash}", "cash")
        seller = game.player(company.owner)
        game.pay(corp, seller, price)
        seller.companies.remove(company.sym)
        company.owner = corp.sym
        corp.companies.append(company.sym)
        game.rules.after_corporation_buys_company(game, round_, corp, company)  # type: ignore[attr-defined]

    def pass_step(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        self.passed = True

"""1828's operating-round steps: track before stations (two separate steps), and bankruptcy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.operating import OperatingRound, TrackAndToken
from ...core.rounds import Round, Step
from ...errors import IllegalAction, MalformedAction

if TYPE_CHECKING:
    from ...game import Game


class Track1828(TrackAndToken):
    """Lay (or upgrade) track; passing ends the track step even if lays remain."""

    handlers = {"lay_tile": "lay_tile", "pass": "pass_step", "special_buy": "special_buy"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return []
        corp = game.corporations[entity]
        if not game.rules.may_build(game, corp) or self.next_lay(game, round_) is None:
            return []
        return ["lay_tile", *game.rules.extra_track_actions(game, round_, corp), "pass"]


class Token1828(TrackAndToken):
    """Place one station after the track step."""

    handlers = {"place_token": "place_token", "pass": "pass_step"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return []
        corp = game.corporations[entity]
        if corp.kind == "minor" or not self.can_place_token(game, round_, corp):
            return []
        return ["place_token", "pass"]


class Bankrupt(Step):
    """A president who cannot raise the money for a forced train purchase declares bankruptcy."""

    handlers = {"bankrupt": "bankrupt"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        return []

    def bankrupt(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        raise NotImplementedError


class OperatingRound1828(OperatingRound):
    """Adds two things the shared round lacks: a corporation may buy a private at any point of its turn,
    and privates it owns act for it (their track abilities name the private as the acting entity)."""

    def current_entity(self, game: Game) -> Any:
        pending = game.extra.get("pending_lays")
        if pending and not self.done:
            return pending[0]
        return super().current_entity(game)

    def after_process(self, game: Game, action: dict[str, Any]) -> None:
        if game.extra.get("pending_lays"):
            return  # a private's compulsory tile lay comes first
        super().after_process(game, action)

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        entity = action.get("entity")
        current = super().current_entity(game)
        company = game.companies.get(entity) if isinstance(entity, str) else None
        if company is not None and entity not in game.corporations:
            if company.owner != current or company.closed:
                raise IllegalAction(f"{entity} does not belong to {current}", "not_your_turn")
            game.rules.use_company(game, self, company, action, trusted)  # type: ignore[attr-defined]
            self.after_process(game, action)
            return
        if action.get("type") == "buy_company" and entity == current and not self.pending_homes:
            step = next(s for s in self.steps if isinstance(s, BuyCompany))
            if step.actions(game, self, entity):
                step.buy_company(game, self, action, trusted)
                self.after_process(game, action)
                return
        super().process(game, action, trusted)


class BuyCompany(Step):
    """In phases with `can_buy_companies` a corporation buys a player's private for 1 to 2x face value."""

    handlers = {"buy_company": "buy_company", "pass": "pass_step"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game) or entity not in game.corporations:
            return []
        corp = game.corporations[entity]
        if corp.kind == "minor" or "can_buy_companies" not in game.phase.status or corp.cash < 1:
            return []
        return ["buy_company", "pass"] if self.purchasable(game) else []

    @staticmethod
    def purchasable(game: Game) -> list[Any]:
        return [c for c in game.companies.values() if isinstance(c.owner, int) and not c.closed
                and not any(a.get("type") == "no_buy" for a in c.abilities)]

    def buy_company(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
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

"""1828's operating round: the shared round, with moves beside its steps (a private bought or laying its
tile at any point of the turn, the coal marker, emergency sales in the train step, bankruptcy) and the
privates that act for their corporations. The steps are in `steps/`."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from ...core.operating import OperatingRound
from ...core.rounds import Step
from ...errors import IllegalAction
from . import coal, privates
from .privates import pending_company
from .state import state
from .steps.companies import BuyCompany
from .steps.trains import Bankrupt, BuyTrain1828, DiscardTrain1828, may_sell_in_emergency

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Corporation


class OperatingRound1828(OperatingRound):
    """Adds two things the shared round lacks: a corporation may buy a private at any point of its turn,
    and privates it owns act for it (their track abilities name the private as the acting entity)."""

    def __init__(self, steps: list[Step], round_num: int) -> None:
        super().__init__(steps, round_num)
        self.private_lays: list[str] = []  # hexes of this turn's extra lays by a private (E&K)

    def new_turn(self) -> None:
        super().new_turn()
        # the buyer of C&P declined its station this turn: D&H's lay is then not offered in this turn
        # (docs/conflicts-1828.md #22, `privates.private_lays`)
        self.station_declined = False

    # -- the round's own rules: who operates, home stations, a turn's start ------------------------------------
    def operating_order(self, game: Game) -> list[str]:
        """The C&P minor first, then the majors by share price (`Rules1828.sorted_by_price`)."""
        minors = [c.sym for c in game.corporations.values() if c.kind == "minor" and c.floated and not c.closed]
        majors = [c for c in game.corporations.values() if c.kind == "major" and c.floated and not c.closed]
        return minors + [c.sym for c in game.rules.sorted_by_price(game, majors)]  # type: ignore[attr-defined]

    def place_home_token(self, game: Game, corp: Corporation, at_round_start: bool) -> None:
        """A major's home goes down as its first turn begins; a home among several cities with no track yet
        sits in the first city until a tile is laid there (`Track1828.after_lay_tile`)."""
        if at_round_start or corp.kind == "minor":
            return
        if corp.tokens_placed or corp.home is None:
            return
        homes = corp.home if isinstance(corp.home, list) else [corp.home]
        index = {raw.get("home"): raw.get("home_city_index") for raw in game.defn.data.setup["corporations"]}
        for home in homes:
            h = game.board.hex(home)
            if len(h.tile.cities) > 1 and not h.tile.paths and corp.sym in h.tile_reservations:
                # a home among several cities with no track yet: the first city until a tile is laid
                game.board.place_home_token(corp.sym, home, 0)
                state(game).loose_homes[home] = corp.sym
            elif len(h.tile.cities) > 1 and index.get(home) is None and corp.sym in h.tile_reservations:
                if corp.sym not in self.pending_homes:
                    self.pending_homes.append(corp.sym)
                continue
            else:
                game.board.place_home_token(corp.sym, home, index.get(home))
            corp.tokens_placed += 1

    def start_operating(self, game: Game, corp: Corporation) -> None:
        self.private_lays = []
        self.place_home_token(game, corp, at_round_start=False)

    def current_entity(self, game: Game) -> Any:
        pending = state(game).pending_lays or state(game).pending_token
        if pending and not self.done:
            return pending[0]
        return super().current_entity(game)

    def acting_type(self, game: Game, entity: Any) -> str | None:
        """A private acting for its corporation (its compulsory tile lay or station) acts as the private, also
        where it shares its symbol with a minor another player owns (C&P): its owner's president decides."""
        return "company" if pending_company(game, entity) is not None else None

    def actions_for(self, game: Game, entity: Any) -> list[str]:
        company = pending_company(game, entity)
        if company is not None:  # a private acting for its corporation
            if self.done or entity != self.current_entity(game):
                return []
            return privates.turn_actions(game, company)
        out = super().actions_for(game, entity)
        if out and entity in game.corporations and not self.pending_homes:
            corp = game.corporations[entity]
            if "lay_tile" not in out and privates.may_lay_with_private(game, corp):
                out.insert(0, "lay_tile")
            if may_sell_in_emergency(game, self, corp):
                out.append("sell_shares")
            # a private may be bought at any point of the turn (`process` takes it whatever step blocks)
            buying = next((s for s in self.steps if isinstance(s, BuyCompany)), None)
            if "buy_company" not in out and buying is not None and "buy_company" in buying.actions(game, self, entity):
                out.append("buy_company")
        if out and entity in game.corporations and not self.pending_homes \
                and coal.may_buy(game, game.corporations[entity]) and "special_buy" not in out:
            out.append("special_buy")
        step = next((s for s in self.steps if isinstance(s, Bankrupt)), None)
        if out and entity in game.corporations and step is not None and not self.pending_homes \
                and self.owes_train(game, entity) and step.may_go_bankrupt(game, game.corporations[entity]):
            out.append("bankrupt")
        return out

    def options(self, game: Game, entity: Any, kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        """Every move `actions_for` opens, each type offered by its step (`offering_step`), a private's own
        moves by the private (`privates.turn_options`). The corporation's moves name it as the minor or
        corporation it is: the C&P minor and the majors of the founding privates share their names with
        privates, and a record naming the private would have it act (which the reference refuses:
        'Blocking step Lay/Upgrade Track cannot process action lay_tile')."""
        open_ = [kind for kind in self.actions_for(game, entity) if kinds is None or kind in kinds]
        if not open_:
            return []
        company = pending_company(game, entity)
        own_type = None if company is not None else \
            "minor" if game.corporations[entity].kind == "minor" else "corporation"
        out: list[dict[str, Any]] = []
        for kind in open_:
            if company is not None:
                found = privates.turn_options(game, self, company, kind)
            else:
                step = self.offering_step(game, entity, kind)
                found = step.offer(game, self, entity, kind) if step is not None else []
            for option in found:
                option.setdefault("type", kind)
                if own_type is not None:
                    option.setdefault("entity_type", own_type)
                out.append(option)
        return out

    def offering_step(self, game: Game, entity: Any, kind: str) -> Step | None:
        """The step whose offers list `kind` now: the first one open to `entity` with it, else (a move the
        round opens beside the blocking step: an emergency sale, a private bought or laying its tile, a coal
        marker, bankruptcy) the first that offers it at all."""
        offering = [s for s in self.steps if kind in s.offers]
        return next((s for s in offering if not s.passed and kind in s.actions(game, self, entity)),
                    offering[0] if offering else None)

    def owes_train(self, game: Game, entity: Any) -> bool:
        """Only the operating corporation may declare bankruptcy, at any point of its turn (rules-1828
        "Bankruptcy": whether it and its president can still pay for the cheapest depot train is
        `Bankrupt.may_go_bankrupt`'s), and not while another corporation discards trains over its limit."""
        return entity == self.corp(game).sym and not isinstance(self.active_step(game), DiscardTrain1828)

    def reorder_waiting(self, game: Game) -> None:
        """A sale moves prices: the corporations still to operate this round are put in order again by
        their current prices (gen1828_5p_226194 index 361: NYH-C&O drops below IC-NW and operates after it)."""
        waiting = self.entities[self.index + 1:]
        majors = [game.corporations[sym] for sym in waiting if game.corporations[sym].kind == "major"]
        if len(majors) < 2:
            return
        minors = [sym for sym in waiting if game.corporations[sym].kind != "major"]
        ordered = game.rules.sorted_by_price(game, majors)  # type: ignore[attr-defined]
        self.entities[self.index + 1:] = minors + [c.sym for c in ordered]

    def after_process(self, game: Game, action: dict[str, Any]) -> None:
        if state(game).pending_lays or state(game).pending_token:
            return  # a private's compulsory tile lay or station choice comes first
        super().after_process(game, action)

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        entity = action.get("entity")
        current = super().current_entity(game)
        company = game.companies.get(entity) if isinstance(entity, str) else None
        if company is not None and (entity not in game.corporations or game.corporations[entity].closed):
            if company.owner != current or company.closed:
                raise IllegalAction(f"{entity} does not belong to {current}", "not_your_turn")
            game.rules.use_company(game, self, company, action, trusted)  # type: ignore[attr-defined]
            self.after_process(game, action)
            return
        if action.get("type") == "sell_shares" and isinstance(entity, int) and not self.pending_homes \
                and isinstance(self.active_step(game), BuyTrain1828):
            step = self.active_step(game)
            assert isinstance(step, BuyTrain1828)
            step.emergency_sell(game, self, action)
            self.reorder_waiting(game)
            self.after_process(game, action)
            return
        if action.get("type") == "special_buy" and entity == current and not self.pending_homes \
                and entity in game.corporations:
            coal.buy(game, game.corporations[entity], action)
            self.after_process(game, action)
            return
        if action.get("type") == "bankrupt" and entity == current and not self.pending_homes \
                and self.owes_train(game, entity):
            step = next(s for s in self.steps if isinstance(s, Bankrupt))
            step.bankrupt(game, self, action, trusted)
            self.after_process(game, action)
            return
        if action.get("type") == "buy_company" and entity == current and not self.pending_homes:
            step = next(s for s in self.steps if isinstance(s, BuyCompany))
            if step.actions(game, self, entity):
                step.buy_company(game, self, action, trusted)
                self.after_process(game, action)
                return
        super().process(game, action, trusted)

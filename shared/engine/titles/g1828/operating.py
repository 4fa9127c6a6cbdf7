"""1828's operating-round steps: track before stations (two separate steps), and bankruptcy."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ...board.routes import lookup_train, resolve_route
from ...board.tiles import NODE_BASE
from ...core.operating import BuyTrain, DiscardTrain, OperatingRound, RunRoutes, TrackAndToken
from ...core.rounds import Round, Step
from ...core.shares import parse_bundle
from ...errors import EngineError, IllegalAction, MalformedAction
from ...model import POOL
from . import coal
from .stock import sell_to_market
from .systems import add_to_shell, is_system, shells, shells_with_room

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Corporation


class Track1828(TrackAndToken):
    """Lay (or upgrade) track; passing ends the track step even if lays remain."""

    handlers = {"lay_tile": "lay_tile", "pass": "pass_step", "special_buy": "special_buy"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        corp = self.builder(game, round_, entity)
        if corp is None:
            return []
        if self.next_lay(game, round_) is None and track_ability(game, corp) is None \
                and not may_buy_track_company(game, corp):
            return []  # a private's extra lay during the track step (E&K), owned or buyable, keeps it open
        return ["lay_tile", *game.rules.extra_track_actions(game, round_, corp), "pass"]

    def next_lay(self, game: Game, round_: OperatingRound) -> dict[str, Any] | None:
        """The $40 extra lay (B&M, NYH) needs the money up front. E&K's extra yellow tile uses none of the
        corporation's lays, but counts as an upgrade for them: no upgrade and no $40 lay may follow it
        (rules-1828.md, "E&K's extra tile"; `privates._lay` marks the turn)."""
        lay = super().next_lay(game, round_)
        if lay is not None and int(lay.get("cost") or 0) > round_.corp(game).cash:
            return None  # the $40 extra lay needs the money up front
        return lay


def owned_companies(game: Game, corp: Any) -> list[Any]:
    return [game.companies[s] for s in corp.companies if not game.companies[s].closed]


def unused(game: Game, company: Any, ability: dict[str, Any]) -> bool:
    return f"{company.sym}/{ability.get('when')}" not in game.extra.setdefault("used_abilities", [])


def company_ability(game: Game, company: Any, when: str) -> dict[str, Any] | None:
    """The company's unused track ability usable at `when` ("sold", "track", "owning_corp_or_turn")."""
    for ability in company.abilities:
        if ability.get("type") == "tile_lay" and ability.get("when") == when and unused(game, company, ability):
            return ability
    return None


def track_ability(game: Game, corp: Any) -> Any:
    """The private of `corp` with an unused lay for the track step (E&K's second yellow tile)."""
    return next((c for c in owned_companies(game, corp) if company_ability(game, c, "track")), None)


def may_buy_track_company(game: Game, corp: Any) -> bool:
    """A private with a track-step lay is for sale to `corp` now (the track step waits for it)."""
    if "can_buy_companies" not in game.phase.status or corp.kind == "minor":
        return False
    return any(c.min_price <= corp.cash and any(a.get("type") == "tile_lay" and a.get("when") == "track"
                                                for a in c.abilities)
               for c in BuyCompany.purchasable(game))


def any_time_ability(game: Game, corp: Any) -> Any:
    return next((c for c in owned_companies(game, corp) if company_ability(game, c, "owning_corp_or_turn")), None)


def pending_company(game: Game, entity: Any) -> Any:
    """The private acting for its corporation (a compulsory lay when bought, a station it may place)."""
    company = game.companies.get(entity) if isinstance(entity, str) else None
    if company is None or (entity in game.corporations and not game.corporations[entity].closed):
        return None
    return company


def may_lay_with_private(game: Game, corp: Corporation) -> bool:
    """A private of `corp` could lay a tile now outside the track step (C&St.L; D&H's lay in Scranton is
    the corporation's own tile lay and waits for its track step)."""
    return any_time_ability(game, corp) is not None


def may_sell_in_emergency(game: Game, round_: OperatingRound, corp: Corporation) -> bool:
    """The corporation must buy a train its treasury and president cannot pay for without selling."""
    step = round_.active_step(game)
    if not isinstance(step, BuyTrain1828) or not step.must_buy(game, corp):
        return False
    president = game.rules.acting_player_for(game, corp)
    return president is not None and corp.cash + game.player(president).cash < step.cheapest(game, corp)


class Token1828(TrackAndToken):
    """Place one station after the track step (which slot it takes: the shared board rule,
    `Board.station_slot`)."""

    handlers = {"place_token": "place_token", "pass": "pass_step"}

    def place_token(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        if action.get("city") in own_cities(game, action.get("entity")):
            raise IllegalAction(f"{action.get('entity')} already has a station in {action.get('city')}", "token")
        if action.get("city") in coalfield_cities(game):
            raise IllegalAction("the Virginia Coalfields may not hold a station", "token")
        super().place_token(game, round_, action, trusted)

    def can_place_token(self, game: Game, round_: OperatingRound, corp: Corporation) -> bool:
        """One station per city and corporation (gen1828_3p_544675 index 654: B&M-IC, in Cincinnati
        already, has no station to place after upgrading it)."""
        if not super().can_place_token(game, round_, corp):
            return False
        # the coalfields count as a place to go (the step waits; the station itself is refused there)
        mine = own_cities(game, corp.sym)
        return any(city not in mine for city, _ in game.board.reachable_token_cities(corp.sym))

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return []
        corp = game.corporations[entity]
        if corp.kind == "minor" or not self.can_place_token(game, round_, corp):
            return []
        return ["place_token", "pass"]


def coalfield_cities(game: Game) -> set[str]:
    """The Virginia Coalfields' city takes no station (the refusals: "may not be tokened")."""
    hex_id = coal.coalfields(game)
    h = game.board.hexes.get(hex_id) if hex_id else None
    return {game.board.city_id(hex_id, i) for i in range(len(h.tokens))} if h is not None and hex_id else set()


def own_cities(game: Game, entity: Any) -> set[str]:
    """The city ids (as actions name them) holding the entity's stations."""
    board = game.board
    return {board.city_id(hex_id, index) for hex_id, h in board.hexes.items()
            for index, slots in enumerate(h.tokens) if entity in slots}


class Bankrupt(Step):
    """A president whose corporation, own cash and sellable shares cannot pay for the cheapest depot train
    may declare bankruptcy on the corporation's turn: the shares that can be sold are sold, the cash goes
    to the bank and the game ends at once. The step never blocks; the round offers it beside the others."""

    handlers = {"bankrupt": "bankrupt"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        return []

    @staticmethod
    def sellable(game: Game, player: Any, corp: Any, acting_corp: Any) -> list[Any]:
        """The largest bundle of `corp` the player could sell in an emergency (president's certificate
        kept; the acting corporation's presidency kept; the market limit respected)."""
        if corp.share_cell is None or corp.closed:
            return []
        held = [sh for sh in corp.shares if sh.owner == player.id and not sh.president]
        room = (game.rules.market_share_limit(game) - corp.percent_owned_by(POOL)) // 10
        count = min(len(held), max(room, 0))
        if corp is acting_corp:
            others = max((corp.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
            while count and corp.percent_owned_by(player.id) - 10 * count < others:
                count -= 1
        return held[:count]

    @staticmethod
    def bankruptcy_sale(game: Game, player: Any, corp: Any) -> list[Any]:
        """What a bankrupt player sells of `corp`: everything, when another player can take the presidency
        and the market has room; otherwise the ordinary shares the market can take."""
        if corp.share_cell is None or corp.closed:
            return []
        held = [sh for sh in corp.shares if sh.owner == player.id]
        room = game.rules.market_share_limit(game) - corp.percent_owned_by(POOL)
        others = max((corp.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
        if any(sh.president for sh in held) and others >= corp.shares[0].percent \
                and sum(sh.percent for sh in held) <= room:
            return held
        ordinary = [sh for sh in held if not sh.president]
        return ordinary[:max(room, 0) // 10]

    def buying_power(self, game: Game, player: Any, corp: Any) -> int:
        total = corp.cash + player.cash
        for other in game.corporations.values():
            price = game.share_price(other) or 0
            total += price * sum(sh.percent for sh in self.sellable(game, player, other, corp)) // 10
        return total

    def may_go_bankrupt(self, game: Game, corp: Any) -> bool:
        president = game.rules.acting_player_for(game, corp)
        if corp.kind == "minor" or president is None:
            return False
        return self.buying_power(game, game.player(president), corp) < BuyTrain1828.cheapest(game, corp)

    def bankrupt(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        assert isinstance(round_, OperatingRound)
        corp = round_.corp(game)
        if not self.may_go_bankrupt(game, corp):
            raise IllegalAction(f"{corp.sym} and its president can still raise the price of the cheapest train",
                                "bankrupt")
        player = game.player(game.rules.acting_player_for(game, corp))
        for other in list(game.corporations.values()):
            shares = self.bankruptcy_sale(game, player, other)
            if not shares:
                continue
            bundle = parse_bundle(game.corporations, [sh.id for sh in shares], sum(sh.percent for sh in shares))
            price = game.share_price(other) or 0
            game.pay(None, player, price * bundle.percent // 10)
            game.transfer_shares(bundle, POOL, seller=player.id)
            game.rules.after_sell_shares(game, other, bundle)
        game.pay(player, None, player.cash)
        player.bankrupt = True
        game.end_game("bankrupt")


class OperatingRound1828(OperatingRound):
    """Adds two things the shared round lacks: a corporation may buy a private at any point of its turn,
    and privates it owns act for it (their track abilities name the private as the acting entity)."""

    def __init__(self, steps: list[Step], round_num: int) -> None:
        super().__init__(steps, round_num)
        self.private_lays: list[str] = []  # hexes of this turn's extra lays by a private (E&K)

    def current_entity(self, game: Game) -> Any:
        pending = game.extra.get("pending_lays") or game.extra.get("pending_token")
        if pending and not self.done:
            return pending[0]
        return super().current_entity(game)

    def actions_for(self, game: Game, entity: Any) -> list[str]:
        company = pending_company(game, entity)
        if company is not None:  # a private acting for its corporation
            if self.done or entity != self.current_entity(game):
                return []
            return ["place_token", "pass"] if game.extra.get("pending_token") == [entity] else ["lay_tile"]
        out = super().actions_for(game, entity)
        if out and entity in game.corporations and not self.pending_homes:
            corp = game.corporations[entity]
            if "lay_tile" not in out and may_lay_with_private(game, corp):
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

    def owes_train(self, game: Game, entity: Any) -> bool:
        """Only the operating corporation, in its own train step, can fail to buy the train it must have
        (rules-1828 *Bankruptcy*): not one discarding trains over its limit meanwhile."""
        return entity == self.corp(game).sym and isinstance(self.active_step(game), BuyTrain1828)

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
        if game.extra.get("pending_lays") or game.extra.get("pending_token"):
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


class BuyCompany(Step):
    """In phases with `can_buy_companies` a corporation buys a player's private for 1 to 2x face value."""

    handlers = {"buy_company": "buy_company", "pass": "pass_step"}

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
    def purchasable(game: Game) -> list[Any]:
        return [c for c in game.companies.values() if isinstance(c.owner, int) and not c.closed
                and not any(a.get("type") == "no_buy" for a in c.abilities)]

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


class BuyTrain1828(BuyTrain):
    """Buying trains as in 1830: a corporation without a train that has a route must buy one; its
    president pays what the treasury lacks for the cheapest depot train, and during the step may sell
    shares (any time in the step, as much as he likes: gen1828_5p_286529 index 598 sells with both shells
    running; never the presidency of the buying corporation)."""

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game) or entity not in game.corporations:
            return []
        return self.own_actions(game, round_, game.corporations[entity])

    def own_actions(self, game: Game, round_: OperatingRound, corp: Any) -> list[str]:
        """What the operating corporation may still do here, even while another corporation discards the
        trains its purchase put over the limit (gen1828_4p_612537 index 442: NYC-NKP buys on after
        GT-CPR's discards)."""
        out = game.rules.buy_train_actions(game, round_, corp)
        if self.must_buy(game, corp):
            return ["buy_train"]
        if not out and self.may_contribute(game, corp) and game.rules.room_for_train(game, corp):
            # a System's empty shell may be filled with the president's help; the step waits for the
            # president's decision even when no train is within reach
            return ["buy_train", "pass"] if self.within_reach(game, corp) else ["pass"]
        if "buy_train" in out and not self.within_reach(game, corp, helped=False):
            # nothing affordable and no help from the president: the step has nothing to offer and the
            # turn goes on by itself (rules-1828.md, "The buy-train step ends by itself")
            rest = [kind for kind in out if kind not in ("buy_train", "pass")]
            return [*rest, "pass"] if rest else []
        return out

    @staticmethod
    def must_buy(game: Game, corp: Any) -> bool:
        """No train while a route exists."""
        if corp.kind == "minor" or not game.depot.upcoming() or corp.trains:
            return False
        return game.rules.route_available(game, corp)

    def may_contribute(self, game: Game, corp: Any, shell: str | None = None) -> bool:
        """The president may pay towards a train when the corporation must buy one, or when a System buys
        for a shell without a train (`shell`: the one the train goes into; None: any), and only while the
        treasury cannot pay for the cheapest depot train."""
        if corp.cash >= self.cheapest(game, corp) and game.depot.upcoming():
            return False
        if self.must_buy(game, corp):
            return True
        if not is_system(game, corp) or not game.depot.upcoming():
            return False
        fleets = shells(game, corp)
        return not fleets.get(shell) if shell is not None else not all(fleets.values())

    def within_reach(self, game: Game, corp: Any, helped: bool = True) -> bool:
        """The treasury (with the president's money when `helped`) can pay for the cheapest depot train, or
        for another corporation's train."""
        president = game.rules.acting_player_for(game, corp)
        purse = corp.cash + (game.player(president).cash if helped and president is not None else 0)
        low = game.rules.min_train_price_from_corporation(game)
        return purse >= self.cheapest(game, corp) or (purse >= low and any(
            game.rules.may_buy_from(game, corp, game.corporations[t.owner])
            for t in game.rules.other_trains(game, corp)))

    @staticmethod
    def cheapest(game: Game, corp: Any) -> int:
        return min((t.price for t in game.rules.depot_trains_for(game, corp)), default=0)

    def setup(self, game: Game, round_: Round) -> None:
        super().setup(game, round_)
        self.last_sold_price: int | None = None  # the share price of the president's last sale in the step

    def sale_range(self, game: Game, corp: Any, train: Any) -> tuple[int, int] | None:
        """After the president sold shares in this step, a train from another corporation costs at least
        what the treasury and the president hold less one share of that last sale, plus $1 (the sale was
        needed), and at most its face value and what they hold (rules-1828.md, "After an emergency sale")."""
        sold = getattr(self, "last_sold_price", None)
        president = game.rules.acting_player_for(game, corp)
        if sold is None or train.owner is None or president is None:
            return None
        purse = corp.cash + game.player(president).cash
        return purse - sold + 1, min(train.price, purse)

    def check_purchase(self, game: Game, round_: OperatingRound, corp: Any, action: dict[str, Any],
                       purse: int | None = None) -> tuple[Any, Any]:
        """The shared checks, with the president's help counted in the purse, and a System's shell."""
        if is_system(game, corp):
            self.shell(game, corp, action)
        train = game.depot.by_id(str(action.get("train")))
        price = action.get("price")
        limits = self.sale_range(game, corp, train) if train is not None else None
        if limits is not None and isinstance(price, int) and not limits[0] <= price <= limits[1]:
            raise IllegalAction(f"after the sale {corp.sym} may spend only between {limits[0]} and {limits[1]} "
                                f"on {train.id}", "train_price")
        if purse is None and train is not None and isinstance(price, int) and price > corp.cash:
            shell = self.shell(game, corp, action) if is_system(game, corp) else None
            purse = corp.cash + self._contribution(game, corp, train, price, shell)
        return super().check_purchase(game, round_, corp, action, purse)

    @staticmethod
    def shell(game: Game, corp: Any, action: dict[str, Any]) -> str:
        room = shells_with_room(game, corp)
        shell = action.get("shell") or (room[0] if room else None)
        if shell not in room:
            raise IllegalAction(f"{corp.sym}'s shell {shell} has no room for a train", "train_limit")
        return shell

    def buy_train(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        train, _ = self.check_purchase(game, round_, corp, action)
        shell = self.shell(game, corp, action) if is_system(game, corp) else None
        price = action["price"]
        if price > corp.cash:
            president = game.player(game.rules.acting_player_for(game, corp))
            game.pay(president, corp, price - corp.cash)
        super().buy_train(game, round_, action, trusted)
        if shell is not None:
            add_to_shell(game, corp, shell, train.id)
        self.passed = not self.own_actions(game, round_, corp)

    def _contribution(self, game: Game, corp: Any, train: Any, price: int, shell: str | None = None) -> int:
        """What the president must pay towards `price`, or why they may not."""
        if not self.may_contribute(game, corp, shell):
            raise IllegalAction(f"{corp.sym} has {corp.cash}, train {train.id} costs {price}; its president "
                                "pays only for a train it must have (a System: for a shell without one)", "cash")
        if train.owner is None and price != self.cheapest(game, corp):
            raise IllegalAction("with the president's money only the cheapest train may be bought", "ebuy_cheapest")
        if train.owner is not None and price > train.price:
            raise IllegalAction("with the president's money a train is bought at most at face value", "train_price")
        president = game.player(game.rules.acting_player_for(game, corp))
        need = price - corp.cash
        if president.cash < need:
            raise IllegalAction(f"{president.name} has {president.cash}, {need} is needed", "cash")
        return need

    def emergency_sell(self, game: Game, round_: OperatingRound, action: dict[str, Any]) -> None:
        corp = round_.corp(game)
        player = game.player(action["entity"])
        if player.id != game.rules.acting_player_for(game, corp):
            raise IllegalAction(f"only {corp.sym}'s president may sell shares now", "not_your_turn")
        bundle = parse_bundle(game.corporations, action.get("shares"), action.get("percent"))
        sold = bundle.corporation
        if any(s.owner != player.id for s in bundle.shares):
            raise IllegalAction(f"{player.name} does not hold all of {action.get('shares')}", "sell_not_owned")
        if not sold.ipoed or game.share_price(sold) is None:
            # a share of a corporation not yet started (M&H's exchange) has no price: it cannot be sold
            raise IllegalAction(f"{sold.sym} has no share price yet", "sell_shares")
        if bundle.includes_president:
            # another corporation's certificate may go when another player can take the presidency over
            # (gen1828_3p_544675 index 344); the train buyer's presidency is kept below
            others = max((sold.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
            if sold is corp or others < sold.shares[0].percent:
                raise IllegalAction("a president's certificate goes only to a player who can take it over",
                                    "sell_shares")
        if sold.percent_owned_by(POOL) + bundle.percent > game.rules.market_share_limit(game):
            raise IllegalAction(f"the market may hold at most {game.rules.market_share_limit(game)}% of {sold.sym}",
                                "sell_shares")
        if sold is corp:
            others = max((sold.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
            if sold.percent_owned_by(player.id) - bundle.percent < others:
                raise IllegalAction(f"{player.name} may not give up the presidency of {corp.sym}", "sell_shares")
        price = game.share_price(sold)
        assert price is not None
        value = price * bundle.percent // 10
        sell_to_market(game, bundle, player.id)
        game.pay(None, player, value)
        self.last_sold_price = price
        game.rules.after_sell_shares(game, sold, bundle)


def discardable(game: Game, corp: Any) -> list[Any]:
    """The trains a corporation over its limit may discard. A System is over it when a shell is, and then
    discards any of its trains until no shell is (gen1828_4p_612537 index 440: GT-CPR, its CPR shell one
    over, discards GT's only train first, then one of CPR's)."""
    crowded = game.rules.limit_trains(game, corp)
    if is_system(game, corp) and len(crowded) > game.train_limit(corp):
        return [t for shell in shells(game, corp).values() for t in shell]
    return crowded


class DiscardTrain1828(DiscardTrain):
    """Trains over the limit leave the game (they do not return to the depot); a System discards from
    its crowded shell."""

    def crowded(self, game: Game) -> list[Corporation]:
        if getattr(game.round, "ignore_train_limit", False):
            return []  # a System arranging its trains between shells (SwapTrain) mends a crowded shell itself
        return super().crowded(game)

    def discard_train(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        crowded = discardable(game, corp)
        train = next((t for t in crowded if t.id == action.get("train")), None)
        if train is None:
            raise IllegalAction(f"{corp.sym} has no train {action.get('train')} over the limit", "discard_train")
        corp.trains.remove(train)
        train.owner = None
        train.rusted = True


class RunRoutes1828(RunRoutes):
    """Routes through the Virginia coalfields need a coal marker; the C&P minor's run goes over the tile it
    laid this turn and may start anywhere on its network (see `minor_network`)."""

    def check_run(self, game: Game, round_: OperatingRound, corp: Any, action: dict[str, Any]) -> list[int]:
        coal.check_routes(game, corp, action.get("routes"))
        if corp.kind != "minor":
            return super().check_run(game, round_, corp, action)
        check_uses_laid_tile(game, round_, corp, action.get("routes"))
        with minor_network(game, corp):
            return super().check_run(game, round_, corp, action)


@contextmanager
def minor_network(game: Game, corp: Any) -> Iterator[None]:
    """The C&P minor counts every stop its track reaches from Peterborough as its own station: its 2-train
    need not touch the C&P token, only run on its network (gen1828_5p_226194 index 89: Ottawa-Kingston,
    far from Peterborough, after a tile in Ottawa)."""
    board = game.board
    saved = dict(getattr(board, "virtual_stations", {}))
    reach = board.reach(corp.sym)
    board.set_virtual_stations({**saved, corp.sym: frozenset(reach.nodes)})
    try:
        yield
    finally:
        board.set_virtual_stations(saved)


def stops_by_tile(game: Game, hex_id: str) -> set[str]:
    """The stops ("HEX-i") the tile in `hex_id` serves: its own, or for plain track the first stops its
    track leads to (followed across hex edges, never through a stop)."""
    board = game.board
    tile = board.hexes[hex_id].tile
    if tile.nodes:
        return {f"{hex_id}-{i}" for i in range(len(tile.nodes))}
    found: set[str] = set()
    seen: set[tuple[str, int]] = set()
    stack = [(hex_id, pi) for pi in range(len(tile.rpaths[board.hexes[hex_id].rotation]))]
    while stack:
        here, pi = stack.pop()
        if (here, pi) in seen:
            continue
        seen.add((here, pi))
        state = board.hexes[here]
        path = state.tile.rpaths[state.rotation][pi]
        for end in (path.a, path.b):
            if end >= NODE_BASE:
                found.add(f"{here}-{end - NODE_BASE}")
                continue
            nb = state.neighbors.get(end)
            if nb is None:
                continue
            nb_state = board.hexes[nb]
            stack.extend((nb, qi) for qi in nb_state.tile.by_end[nb_state.rotation].get((end + 3) % 6, ()))
    return found


def check_uses_laid_tile(game: Game, round_: OperatingRound, corp: Any, routes: Any) -> None:
    """The C&P's run must use the tile it laid this turn: one of its stops is on that tile or, for plain
    track, at an end of the track the tile is part of (bankrupt index 271: a tile in C13 leading to
    Peterborough; the run C15-A15 passes elsewhere)."""
    if not isinstance(routes, list) or not routes or not round_.laid_hexes or not isinstance(routes[0], dict):
        return
    hex_id = round_.laid_hexes[0]
    served = stops_by_tile(game, hex_id)
    record = routes[0]
    # the stops the run visits, as its track says: a record need not list them ("nodes" is optional and
    # only a hint), so they are read off the route itself
    try:
        kind = lookup_train(game.rules.train_kinds(game), str(record.get("train")))
        route = resolve_route(game.board, record, kind, set())
    except EngineError:
        return  # a run that does not fit the track is refused by the run's own checks, with their reason
    if served & {f"{hex_}-{code - NODE_BASE}" for hex_, code in route.stops}:
        return
    raise IllegalAction(f"{corp.sym}'s run must use the tile it laid in {hex_id}", "route_laid_tile")

"""The operating round: each corporation in turn lays track, places a station, runs trains, pays or
withholds, and buys trains. Titles choose and order the steps; the steps here are the shared ones."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..board.suggest import offered_run
from ..errors import EngineError, IllegalAction, MalformedAction, accepts
from ..model import POOL, Corporation, Train
from .rounds import Round, Step

if TYPE_CHECKING:
    from ..game import Game


class OperatingRound(Round):
    kind = "Operating"
    several_per_set = True

    def __init__(self, steps: list[Step], round_num: int) -> None:
        super().__init__(steps, round_num)
        self.pending_homes: list[str] = []  # corporations that must choose the city of their home token
        self.new_turn()

    def new_turn(self) -> None:
        """What one corporation's turn starts from (a title's round adds what its own turns keep)."""
        self.laid_hexes: list[str] = []
        self.upgraded = False
        self.tokened = False
        self.routes: list[dict[str, Any]] = []
        self.revenue = 0

    def current_entity(self, game: Game) -> Any:
        if self.done:
            return None
        if self.pending_homes:
            return self.pending_homes[0]
        for step in self._discarders():
            crowded = step.crowded_now(game)
            if crowded:
                return crowded[0].sym  # a corporation over its train limit discards before play goes on
        return super().current_entity(game)

    def _discarders(self) -> tuple[DiscardTrain, ...]:
        """The round's train-limit steps (its steps never change; asked on every `current_entity`)."""
        found: tuple[DiscardTrain, ...] | None = self.__dict__.get("_discard_steps")
        if found is None:
            found = self._discard_steps = tuple(s for s in self.steps if isinstance(s, DiscardTrain))
        return found

    def start(self, game: Game) -> None:
        game.rules.pay_private_income(game)
        self.entities = game.rules.operating_order(game)
        for sym in self.entities:
            game.rules.place_home_token(game, game.corporations[sym], at_round_start=True)
        self.index = 0
        if not self.entities:
            self.done = True
            return
        self._start_operating(game)

    def corp(self, game: Game) -> Corporation:
        return game.corporations[self.entities[self.index]]

    def active_step(self, game: Game) -> Step | None:
        if not self.pending_homes and self.corp(game).closed and not self.crowded(game):
            return None  # a corporation that closed mid-turn does nothing more
        return super().active_step(game)

    def settle(self, game: Game) -> Step | None:
        if not self.pending_homes and self.corp(game).closed and not self.crowded(game):
            return None
        return super().settle(game)

    def crowded(self, game: Game) -> bool:
        """Some corporation holds trains over its limit and must discard before the turn goes on."""
        return any(s.crowded_now(game) for s in self._discarders())

    def skip_steps(self, game: Game) -> None:
        if not self.pending_homes and self.corp(game).closed and not self.crowded(game):
            return
        super().skip_steps(game)

    def _start_operating(self, game: Game) -> None:
        while True:
            corp = self.corp(game)
            self.new_turn()
            for train in corp.trains:
                train.operated = False
            game.rules.start_operating(game, corp)
            for step in self.steps:
                step.setup(game, self)
            step = self.settle(game)
            if self.done or game.finished or step is not None:
                return
            if not self._advance(game):
                return

    def _advance(self, game: Game) -> bool:
        """Move to the next corporation; False when the round is over."""
        self.corp(game).operated = True
        self.index += 1
        if self.index >= len(self.entities):
            self.done = True
            return False
        return True

    def after_process(self, game: Game, action: dict[str, Any]) -> None:
        self.move_on(game)

    def move_on(self, game: Game) -> None:
        """Settle the turn in play and, when nothing is left in it, start the next corporation's turn.

        After every action; also for a title whose round changes the turn's steps outside an action (a turn
        that takes over steps another corporation's turn left spent), so that both end a turn the same way."""
        if game.finished:
            return
        if self.settle(game) is None and not self.done and self._advance(game):
            self._start_operating(game)


class HomeToken(Step):
    """A home on a hex with several cities and no named city: the corporation picks one first."""

    handlers = {"place_token": "place_token"}
    offers = {"place_token": "offer_home"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        return ["place_token"] if round_.pending_homes and entity == round_.pending_homes[0] else []

    def blocking(self, game: Game, round_: Round) -> bool:
        assert isinstance(round_, OperatingRound)
        return bool(round_.pending_homes)

    def skip(self, game: Game, round_: Round) -> None:
        pass

    def offer_home(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """One free slot per city of each home hex (which slot of a city a station takes is the board's)."""
        corp = game.corporations[entity]
        out = []
        for home in corp.home if isinstance(corp.home, list) else [corp.home]:
            for index, slots in enumerate(game.board.hex(home).tokens):
                for slot, holder in enumerate(slots):
                    city = game.board.city_id(home, index)
                    if holder is None and accepts(game.board.check_token, entity, city, slot, must_connect=False):
                        out.append({"city": city, "slot": slot})
                        break
        return out

    def place_token(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        city, slot = action.get("city"), action.get("slot")
        if not isinstance(city, str) or not isinstance(slot, int):
            raise MalformedAction("place_token needs city and slot", "place_token_shape")
        homes = corp.home if isinstance(corp.home, list) else [corp.home]
        if game.board.city_hex(city) not in homes:
            raise IllegalAction(f"{corp.sym}'s home token goes on {', '.join(homes)}", "home")
        slot = game.board.station_slot(corp.sym, city, slot)
        game.board.check_token(corp.sym, city, slot, must_connect=False)
        game.board.place_token(corp.sym, city, slot)
        corp.tokens_placed += 1
        round_.pending_homes.pop(0)


class SpecialBuy(Step):
    """Steps during which the title sells something special (1825: a leased train; 1828: the coal marker)."""

    def offer_special_buy(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        return game.rules.special_buy_options(game, round_, game.corporations[entity])

    def special_buy(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        game.rules.special_buy(game, round_, game.corporations[action["entity"]], action)


class TrackAndToken(SpecialBuy):
    """1825-style combined step: lay up to the allowed tiles and place one station, in any order."""

    handlers = {"lay_tile": "lay_tile", "place_token": "place_token", "pass": "pass_step",
                "special_buy": "special_buy"}
    offers = {"lay_tile": "offer_lay_tile", "place_token": "offer_place_token", "pass": "offer_pass",
              "special_buy": "offer_special_buy"}

    def builder(self, game: Game, round_: Round, entity: Any) -> Corporation | None:
        """The corporation that may build now, if `entity` is it."""
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return None
        corp = game.corporations[entity]
        return corp if game.rules.may_build(game, corp) else None

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        corp = self.builder(game, round_, entity)
        if corp is None:
            return []
        out = []
        if self.next_lay(game, round_) is not None:
            out.append("lay_tile")
            out.extend(game.rules.extra_track_actions(game, round_, corp))
        if self.can_place_token(game, round_, corp):
            out.append("place_token")
        if out:
            out.append("pass")
        return out

    def next_lay(self, game: Game, round_: OperatingRound) -> dict[str, Any] | None:
        lays = game.rules.tile_lays(game)
        count = len(round_.laid_hexes)
        if count >= len(lays):
            return None
        lay = dict(lays[count])
        # the data's "not_if_upgraded": this lay (or upgrade) is allowed only if no upgrade came before it
        for part in ("lay", "upgrade"):
            if lay.get(part) == "not_if_upgraded":
                lay[part] = not round_.upgraded
        if not lay.get("lay") and not lay.get("upgrade"):
            return None
        return lay

    def can_place_token(self, game: Game, round_: OperatingRound, corp: Corporation) -> bool:
        # a corporation's first station is its home: while that one is not down (a home hex still without
        # track), it places no other (docs/rules-1825.md, "A minor building its own home hex")
        if round_.tokened or self.home_first(corp) is not None:
            return False
        price = corp.next_token_price()
        if price is None or price > game.rules.buying_power(game, corp):
            return False
        return game.board.can_place_token(corp.sym)

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        assert isinstance(round_, OperatingRound)
        if action["type"] == "lay_tile" and self.next_lay(game, round_) is None:
            return IllegalAction("no more track may be laid this turn (one upgrade, or two yellow tiles)", "tile_lays")
        if action["type"] == "place_token" and round_.tokened:
            return IllegalAction("only one station may be placed per turn", "token")
        if action["type"] == "place_token" and action.get("entity") in game.corporations:
            return self.home_first(game.corporations[action["entity"]])
        return None

    @staticmethod
    def home_first(corp: Corporation) -> IllegalAction | None:
        """A corporation's first station is its home; one whose home is not down yet (its home hex still
        without track) places no other."""
        if corp.home is None or corp.tokens_placed:
            return None
        home = corp.home if isinstance(corp.home, str) else ", ".join(corp.home)
        return IllegalAction(f"{corp.sym}'s first station is its home on {home}, placed once that hex has "
                             "track: lay a tile there first", "home_first")

    def offer_lay_tile(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """Every tile, hex and rotation `lay_tile` takes now: the board lists the placements it allows (by
        hex, after the checks that depend on the hex alone), then the title's restrictions and the price."""
        corp = game.corporations[entity]
        lay = self.next_lay(game, round_)
        if lay is None:
            return []

        def hex_open(hex_id: str) -> bool:
            try:
                upgrade = game.rules.is_upgrade(game, hex_id)
                if (upgrade and not lay.get("upgrade")) or (not upgrade and not lay.get("lay")):
                    return False
                if round_.laid_hexes:
                    game.rules.check_second_lay(game, round_, hex_id)
            except EngineError:
                return False
            return True

        out = []
        for hex_id, name, rotation, result in game.board.legal_lay_results(entity, set(game.phase.tiles), hex_open):
            try:
                game.rules.check_track_restrictions(game, round_, corp, hex_id, result, rotation)
            except EngineError:
                continue
            if result.cost <= game.rules.buying_power(game, corp):
                out.append({"hex": hex_id, "tile": f"{name}-{game.board.supply.free_copy(name)}",
                            "rotation": rotation})
        return out

    def offer_place_token(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        out = []
        for city, _ in game.board.reachable_token_cities(entity):
            h, index = game.board.locate_city(city)
            for slot in range(len(h.tokens[index])):
                if accepts(game.board.check_token, entity, city, slot):
                    out.append({"city": city, "slot": slot, "tokener": entity})
        return out

    def lay_tile(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        hex_id, tile_id, rotation = action.get("hex"), action.get("tile"), action.get("rotation")
        if not isinstance(hex_id, str) or not isinstance(tile_id, str) or not isinstance(rotation, int):
            raise MalformedAction("lay_tile needs hex, tile and rotation", "lay_tile_shape")
        lay = self.next_lay(game, round_)
        if lay is None:
            raise IllegalAction(f"{corp.sym} may not lay more track this turn", "tile_lays")
        result = game.board.check_lay(corp.sym, hex_id, tile_id, rotation, set(game.phase.tiles),
                                      must_connect=not trusted and game.rules.lay_must_connect(game, corp, hex_id))
        upgrade = game.rules.is_upgrade(game, hex_id, result)
        if upgrade and not lay.get("upgrade"):
            raise IllegalAction("no upgrade is allowed now (one upgrade, or two yellow tiles)", "tile_lays")
        if not upgrade and not lay.get("lay"):
            raise IllegalAction("no further yellow tile may be laid after an upgrade", "tile_lays")
        if round_.laid_hexes:
            game.rules.check_second_lay(game, round_, hex_id)
        if not trusted:
            game.rules.check_track_restrictions(game, round_, corp, hex_id, result, rotation)
        cost = result.cost
        game.rules.pay_for_track(game, round_, corp, cost)
        game.board.lay(hex_id, tile_id, rotation)
        round_.laid_hexes.append(hex_id)
        round_.upgraded = round_.upgraded or upgrade
        game.rules.after_lay_tile(game, round_, corp, hex_id)

    def place_token(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        city, slot = action.get("city"), action.get("slot")
        if not isinstance(city, str) or not isinstance(slot, int):
            raise MalformedAction("place_token needs city and slot", "place_token_shape")
        if not trusted and (why := self.home_first(corp)) is not None:
            raise why
        if not self.can_place_token(game, round_, corp) and not trusted:
            raise IllegalAction(f"{corp.sym} cannot place a station now", "token")
        if round_.tokened:
            raise IllegalAction(f"{corp.sym} already placed a station this turn", "token")
        price = corp.next_token_price()
        if price is None:
            raise IllegalAction(f"{corp.sym} has no station tokens left", "token")
        slot = game.board.station_slot(corp.sym, city, slot)
        game.board.check_token(corp.sym, city, slot, must_connect=not trusted)
        game.rules.pay_for_token(game, round_, corp, price)
        game.board.place_token(corp.sym, city, slot)
        corp.tokens_placed += 1
        round_.tokened = True

    def pass_step(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        self.passed = True


class RunRoutes(SpecialBuy):
    handlers = {"run_routes": "run_routes", "special_buy": "special_buy"}
    offers = {"run_routes": "offer_run", "special_buy": "offer_special_buy"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return []
        corp = game.corporations[entity]
        return game.rules.route_actions(game, round_, corp)

    def check_run(self, game: Game, round_: OperatingRound, corp: Corporation, action: dict[str, Any]) -> list[int]:
        """Every reason to refuse a run, asked before anything is recorded (and by `legal_actions` for the
        run it offers). Returns each route's revenue."""
        routes = action.get("routes")
        if not isinstance(routes, list):
            raise MalformedAction("run_routes needs a list of routes", "routes_shape")
        refuse_stated_extras(action)
        own = {t.id for t in game.rules.route_trains(game, round_, corp)}
        seen: set[str] = set()
        for route in routes:
            if not isinstance(route, dict) or not isinstance(route.get("train"), str):
                raise MalformedAction("each route names its train", "routes_shape")
            if route["train"] not in own:
                raise IllegalAction(f"{corp.sym} does not own train {route['train']}", "route_train")
            if route["train"] in seen:
                raise IllegalAction(f"train {route['train']} runs twice", "route_train")
            seen.add(route["train"])
        kinds = game.rules.train_kinds(game)
        return game.board.route_revenues(corp.sym, routes, kinds, game.rules.revenue_colors(game),
                                         game.phase.name) if routes else []

    def offer_run(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """A good run, found within a bound (`board.suggest`; what a run may contain is the caller's to vary);
        none when even the full search's best run is refused (it cannot repay spending on credit), so that
        undo is what is left."""
        corp = game.corporations[entity]
        kinds = game.rules.train_kinds(game)
        by_id = {t.id: kinds[t.name] for t in game.rules.route_trains(game, round_, corp)}
        extras = {"extra_revenue": 0, "subsidy": 0}
        routes = offered_run(game.board, entity, by_id, tuple(game.rules.revenue_colors(game)), game.phase.name,
                             lambda r: game.accepts({"type": "run_routes", "entity": entity, "routes": r, **extras}))
        return [] if routes is None else [{"routes": routes, **extras}]

    def run_routes(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        revenues = self.check_run(game, round_, corp, action)
        routes = action["routes"]
        own = {t.id: t for t in game.rules.route_trains(game, round_, corp)}
        round_.routes = [dict(r, revenue=rev) for r, rev in zip(routes, revenues, strict=True)]
        round_.revenue = sum(revenues) + game.rules.extra_revenue(game, round_, corp)
        for route in routes:
            own[route["train"]].operated = True
        game.rules.after_run_routes(game, round_, corp)
        self.passed = True


def refuse_stated_extras(action: dict[str, Any]) -> None:
    """A run states its routes; what they earn, and any bonus beside them, the engine works out. A record's
    `extra_revenue` and `subsidy` are therefore 0 (the reference adds a stated extra to the revenue as it
    comes: a client could pay itself more), and a run stating other amounts is refused."""
    for field in ("extra_revenue", "subsidy"):
        stated = action.get(field)
        if stated not in (None, 0):
            raise IllegalAction(f"a run states no {field.replace('_', ' ')} ({stated!r} stated): the engine works "
                                "out what the routes earn", "route_revenue")


class Dividend(Step):
    handlers = {"dividend": "dividend"}
    offers = {"dividend": "offer_dividend"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return []
        corp = game.corporations[entity]
        if not round_.routes or not game.rules.may_choose_dividend(game, corp):
            return []
        return ["dividend"]

    def skip(self, game: Game, round_: Round) -> None:
        assert isinstance(round_, OperatingRound)
        self.passed = True
        corp = round_.corp(game)
        game.rules.distribute(game, round_, corp, "withhold", None)

    def offer_dividend(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        return [{"kind": kind} for kind in game.rules.dividend_kinds(game, game.corporations[entity])]

    def dividend(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        kind = action.get("kind")
        if kind not in game.rules.dividend_kinds(game, corp):
            raise IllegalAction(f"dividend kind {kind!r} not allowed; choose {game.rules.dividend_kinds(game, corp)}",
                                "dividend_kind")
        game.rules.distribute(game, round_, corp, kind, action.get("amount"))
        self.passed = True


class DiscardTrain(Step):
    handlers = {"discard_train": "discard_train"}
    offers = {"discard_train": "offer_discard"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        crowded = self.crowded_now(game)
        return ["discard_train"] if crowded and entity == crowded[0].sym else []

    def blocking(self, game: Game, round_: Round) -> bool:
        return bool(self.crowded_now(game))

    def crowded_now(self, game: Game) -> list[Corporation]:
        """`crowded`, asked once per stretch of `Round.settle` (every step asks who acts, and who acts
        depends on it)."""
        asking = game.asking
        if asking is None:
            return self.crowded(game)
        found: list[Corporation] | None = asking.get(self)
        if found is None:
            found = asking[self] = self.crowded(game)
        return found

    def skip(self, game: Game, round_: Round) -> None:
        pass  # stays watching: a later purchase can crowd a corporation again

    def crowded(self, game: Game) -> list[Corporation]:
        # asked after every action: where every limit is the phase's, the cards are counted first (nobody
        # holds more than the limit: nobody is crowded) and the limit is read once
        uniform = game.rules.uniform_train_limit(game)
        limit = game.phase.train_limit
        if uniform:
            for corp in game.corporations.values():
                if len(corp.trains) > limit:
                    break
            else:
                return []
        out = []
        for corp in game.corporations.values():
            trains = corp.trains
            if not trains or corp.closed:
                continue
            cap = limit if uniform else game.train_limit(corp)
            # `limit_trains` (the cards the limit counts) is a subset of the cards: count those first
            if len(trains) > cap and len(game.rules.limit_trains(game, corp)) > cap:
                out.append(corp)
        return out

    def offer_discard(self, game: Game, round_: Round, entity: str) -> list[dict[str, Any]]:
        return [{"train": t.id} for t in game.corporations[entity].trains]

    def discard_train(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        train = next((t for t in corp.trains if t.id == action.get("train")), None)
        if train is None:
            raise IllegalAction(f"{corp.sym} has no train {action.get('train')}", "discard_train")
        corp.trains.remove(train)
        train.owner = None
        game.depot.discarded.append(train)


class BuyTrain(Step):
    handlers = {"buy_train": "buy_train", "pass": "pass_step"}
    offers = {"buy_train": "offer_buy_train", "pass": "offer_pass"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return []
        corp = game.corporations[entity]
        return game.rules.buy_train_actions(game, round_, corp)

    def skip(self, game: Game, round_: Round) -> None:
        assert isinstance(round_, OperatingRound)
        self.passed = True
        game.rules.skip_buy_train(game, round_, round_.corp(game))

    def pass_step(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        self.passed = True

    def offer_buy_train(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """The bank's trains it may pay for, and each other corporation's train it may buy at the lowest
        price allowed, at face value and for all its cash (the price is open between those limits)."""
        corp = game.corporations[entity]
        out: list[dict[str, Any]] = [{"train": t.id, "price": t.price, "variant": t.name}
                                     for t in game.rules.depot_trains_for(game, corp) if t.price <= corp.cash]
        if game.rules.receivership_blocks_other_trains(game, corp):
            return out
        low = game.rules.min_train_price_from_corporation(game)
        step = game.rules.train_price_multiple(game)
        for train in game.rules.other_trains(game, corp):
            seller = game.corporations[train.owner]  # type: ignore[index]
            if game.rules.may_buy_from(game, corp, seller):
                for price in sorted({p - p % step for p in (low, min(train.price, corp.cash), corp.cash)}):
                    if low <= price <= corp.cash:
                        out.append({"train": train.id, "price": price})
        return out

    def check_purchase(self, game: Game, round_: OperatingRound, corp: Corporation, action: dict[str, Any],
                       purse: int | None = None) -> tuple[Train, Corporation | None]:
        """Every reason to refuse a purchase, asked before anything changes hands, so that `legal_actions`
        can ask the same question of each candidate without playing it. `purse` is what the buyer may
        spend when a title lets someone else help (its treasury otherwise). Returns the train and the
        selling corporation (None for the bank)."""
        purse = corp.cash if purse is None else purse
        train_id, price = action.get("train"), action.get("price")
        if not isinstance(train_id, str) or not isinstance(price, int):
            raise MalformedAction("buy_train needs train and price", "buy_train_shape")
        train = game.depot.by_id(train_id)
        if train is None:
            raise MalformedAction(f"unknown train {train_id!r}", "train_id")
        if not game.rules.room_for_train(game, corp):
            raise IllegalAction(f"{corp.sym} is at its train limit ({game.train_limit(corp)})", "train_limit")
        if train.owner is None:
            if train not in game.rules.depot_trains_for(game, corp):
                raise IllegalAction(f"train {train_id} is not for sale by the bank now", "train_unavailable")
            if price != train.price:
                raise IllegalAction(f"train {train_id} costs {train.price}, not {price}", "train_price")
            if purse < price:
                raise IllegalAction(f"{corp.sym} has {purse}, train {train_id} costs {price}", "cash")
            return train, None
        seller = game.corporations.get(train.owner) if isinstance(train.owner, str) else None
        if seller is None or seller is corp or not game.rules.may_buy_from(game, corp, seller):
            raise IllegalAction(f"train {train_id} cannot be bought from {train.owner}", "train_owner")
        game.rules.check_train_from_corporation(game, corp, seller, train, price, purse)
        return train, seller

    def buy_train(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        train, seller = self.check_purchase(game, round_, corp, action)
        if seller is None:
            game.buy_train_from_depot(corp, train, action["price"])
        else:
            game.move_train(train, seller, corp, action["price"])
        game.rules.after_buy_train(game, round_, corp, train)
        if not game.rules.buy_train_actions(game, round_, corp):
            self.passed = True


__all__ = ["HomeToken", "OperatingRound", "TrackAndToken", "RunRoutes", "Dividend", "DiscardTrain", "BuyTrain", "POOL"]

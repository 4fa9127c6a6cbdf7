"""The line round (rules digest, *Line round*): lines in number order lay one tile, one orange-framed
Stadtbahn tile with the extra action it grants, place one station, then run their tram into the owning
Tram Company's revenue box."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...board.tiles import NODE_BASE, parse_tile_id
from ...core.runs import refuse_stated_extras
from ...errors import EngineError, IllegalAction, MalformedAction, accepts
from ...model import Corporation
from .flow import MAX_LAYS, REMOVE_TOKEN_COST, FlowRound, Option, need_int, rules_of
from .routes import best_run, route_possible, route_revenue
from .state import CITY, state
from .stations import (
    check_hex_reservation,
    home_is_a_choice,
    home_spots,
    lifted_entry,
    lifted_stations,
    place_line_home,
    station_spots,
)
from .track import (
    check_centre_lay,
    check_extends_stadtbahn,
    check_frame,
    check_stadtbahn_exits,
    framed_tiles,
    is_orange,
    orange_icon,
)
from .trams import scrap_tram

if TYPE_CHECKING:
    from ...game import Game


# -- line rounds ----------------------------------------------------------------------------------------
class LineRound(FlowRound):
    """Lines in number order: track (one ordinary and one orange-framed lay, plus the extra lay or free
    station an orange yellow tile grants), a station, then trams run into the line's revenue box."""

    kind = "Line"
    several_per_set = True
    handlers = {"lay_tile": "lay_tile", "place_token": "place_token", "remove_token": "remove_token",
                "pass": "pass_", "run_routes": "run_routes", "buy_company": "buy_company",
                "scrap_train": "scrap_train"}
    offers = {"lay_tile": "offer_lay_tile", "place_token": "offer_place_token", "remove_token": "offer_remove_token",
              "pass": "offer_pass", "run_routes": "offer_run_routes", "buy_company": "offer_buy_company",
              "scrap_train": "offer_scrap_train"}
    tried = frozenset({"run_routes"})

    def start(self, game: Game) -> None:
        owned = [s for lines in state(game).owned_lines.values() for s in lines]
        self.entities = sorted((s for s in owned if not game.corporations[s].closed), key=int)
        self.index = 0
        self.begin(game)

    def corp(self, game: Game) -> Corporation:
        return game.corporations[self.entities[self.index]]

    def major(self, game: Game) -> Corporation:
        major = rules_of(game).owner_major(game, self.corp(game))
        assert major is not None
        return major

    def begin(self, game: Game) -> None:
        while self.index < len(self.entities):
            corp = self.corp(game)
            self.stage = "track"
            self.normal_laid = False
            self.stadtbahn_laid = False
            self.lays = 0
            self.tokened = False
            self.pending: list[str] = []  # extra lay colours or "token"
            self.removed: str | None = None
            if not corp.tokens_placed:
                if home_is_a_choice(game, corp):
                    self.pending.append("home")
                else:
                    place_line_home(game, corp)
            return
        self.done = True

    def settle(self, game: Game) -> None:
        """A home station with no free city left to go to is not placed (the line then has none). The last
        chance to buy a private after the run ends by itself once nothing is left that the major could buy
        (rules-1840 *Buying a private*): the purchase of the last affordable private ends the turn."""
        if not self.done and self.stage == "company" and not self.may_buy_company(game):
            self.next_stage(game)
        while not self.done and self.pending and not self.placeable(game, self.pending[0]):
            self.pending.pop(0)

    def placeable(self, game: Game, pending: str) -> bool:
        """A pending home or lifted station that has no free city left to go to is not placed."""
        if pending == "home":
            return bool(home_spots(game, self.corp(game)))
        lifted = lifted_entry(pending)
        if lifted is None:
            return True
        owner, hex_id = lifted
        return bool(station_spots(game, game.corporations[owner], hex_id))

    def after_sale(self, game: Game) -> None:
        """A private sold to the bank may leave the line nothing more to buy."""
        self.settle(game)

    def open_actions(self, game: Game) -> list[str]:
        """A line may buy a private for its major at any moment of its turn except while an extra lay or
        station is pending (rules-1840 *Buying a private*); after its run it gets one last chance, which it
        ends by passing, or which ends by itself when nothing is left it could buy."""
        buy = ["buy_company"] if self.may_buy_company(game) else []
        if self.pending:
            if self.pending[0] == "home":
                return [*buy, "place_token"]
            if lifted_entry(self.pending[0]) is not None:
                return ["place_token"]
            # an extra lay or station a Stadtbahn tile granted comes first: no purchase until it is made
            return ["place_token", "pass"] if self.pending[0] == "token" else ["lay_tile", "pass"]
        if self.stage == "track":
            out = [*buy, "lay_tile"]
            if not self.tokened:
                out.append("place_token")
            return [*out, "remove_token", "pass"]
        if self.stage == "route":
            return [*buy, "run_routes", "scrap_train"]
        if self.stage == "company":
            return [*buy, "pass"]
        return []

    def may_buy_company(self, game: Game) -> bool:
        return "can_buy_companies" in game.phase.status and bool(self.companies_for_sale(game))

    def next_stage(self, game: Game) -> None:
        corp = self.corp(game)
        if self.stage == "track":
            self.stage = "route"
            if corp.trains:
                return
        if self.stage == "route":
            self.stage = "company"
            if self.may_buy_company(game):
                return
        self.index += 1
        self.begin(game)

    def companies_for_sale(self, game: Game) -> list[str]:
        """Privates the owning major may buy from their player owners and can afford."""
        cash = self.major(game).cash
        return [c.sym for c in game.companies.values()
                if isinstance(c.owner, int) and not c.closed and c.min_price <= cash]

    def lay_tile(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = self.corp(game)
        hex_id, tile_id, rotation = action.get("hex"), action.get("tile"), action.get("rotation")
        if not isinstance(hex_id, str) or not isinstance(tile_id, str) or not isinstance(rotation, int):
            raise MalformedAction("lay_tile needs hex, tile and rotation", "lay_tile_shape")
        if self.pending:
            self.special_lay(game, corp, hex_id, tile_id, rotation, trusted)
            return
        cost, stadtbahn = self.check_own_lay(game, corp, hex_id, tile_id, rotation, trusted)
        game.pay(self.major(game), None, cost)
        lifted = lifted_stations(game, hex_id)
        game.board.lay(hex_id, tile_id, rotation)
        self.lift(game, hex_id, lifted)
        self.lays = getattr(self, "lays", 0) + 1
        if stadtbahn:
            self.stadtbahn_laid = True
            state(game).stadtbahn_built.append(hex_id)
            icon = orange_icon(game, hex_id)
            if icon:
                self.pending.append(icon)
        else:
            self.normal_laid = True

    def check_own_lay(self, game: Game, corp: Corporation, hex_id: str, tile_id: str, rotation: int,
                      trusted: bool = False, stadtbahn_checked: bool = False) -> tuple[int, bool]:
        """Refuse a lay of the line's own that `lay_tile` would not make (changes nothing); otherwise its
        cost and whether it is a Stadtbahn tile."""
        board = game.board
        tile = board.catalogue.get(parse_tile_id(tile_id)[0])
        if tile is None:
            raise MalformedAction(f"unknown tile {tile_id!r}", "tile_id")
        orange_hex = is_orange(game, hex_id)
        stadtbahn = orange_hex and tile.color == "yellow"
        if not trusted:  # a recorded lay taken back later: the reference accepted it (conflicts-1840)
            self.check_lay_allowed(corp, stadtbahn)
        check_frame(game, hex_id, tile.name)
        if stadtbahn and not trusted:
            check_stadtbahn_exits(game, hex_id, tile_id, rotation)
            if not stadtbahn_checked:
                check_extends_stadtbahn(game, hex_id)
        result = board.check_lay(corp.sym, hex_id, tile_id, rotation, list(game.phase.tiles),
                                 must_connect=not trusted and not stadtbahn)
        major = self.major(game)
        if result.cost > major.cash:
            raise IllegalAction(f"{major.sym} cannot pay {result.cost} (has {major.cash})", "cash")
        return result.cost, stadtbahn

    def check_lay_allowed(self, corp: Corporation, stadtbahn: bool) -> None:
        """A line's own lays in a turn (rules-1840 *Tile lays*): one tile — an ordinary lay or upgrade, or an
        upgrade of an orange-framed hex — and one yellow Stadtbahn tile on an orange-framed hex, in either
        order. The seed counts an orange-hex upgrade as the turn's one tile (step 1), not as a Stadtbahn tile
        (step 2), so a Stadtbahn tile before it does not use it up."""
        if getattr(self, "lays", 0) >= MAX_LAYS:
            raise IllegalAction(f"{corp.sym} already laid {MAX_LAYS} tiles", "tile_lays")
        if stadtbahn:
            if getattr(self, "stadtbahn_laid", False):
                raise IllegalAction(f"{corp.sym} already laid a Stadtbahn tile", "tile_lays")
            return
        if self.normal_laid:
            raise IllegalAction(f"{corp.sym} already laid its tile", "tile_lays")

    def special_lay(self, game: Game, corp: Corporation, hex_id: str, tile_id: str, rotation: int,
                    trusted: bool) -> None:
        """The extra lay an orange yellow tile grants: red centre tiles and purple tiles go on their own
        hexes in any rotation; a yellow or green one is an ordinary connected lay of that colour."""
        cost = self.check_special_lay(game, corp, hex_id, tile_id, rotation, trusted)
        game.pay(self.major(game), None, cost)  # the hex's own cost (an orange frame 20, water 40)
        self.pending.pop(0)
        lifted = lifted_stations(game, hex_id)
        game.board.lay(hex_id, tile_id, rotation)
        self.lift(game, hex_id, lifted)

    def lift(self, game: Game, hex_id: str, owners: list[str]) -> None:
        """The first track on a hex of several cities lifts every station there (rules-1840 *Home
        station*, *Stations lifted by the first track*): the line that laid the tile places each again,
        free, on the city of its choice on that hex, before anything else — its own as its home station,
        another company's for that company."""
        if not owners:
            return
        h = game.board.hex(hex_id)
        for slots in h.tokens:
            for i, owner in enumerate(slots):
                if owner in owners:
                    slots[i] = None
        game.board.forget_reach()
        own = self.corp(game).sym
        for owner in owners:
            game.corporations[owner].tokens_placed -= 1
        self.pending[:0] = ["home" if owner == own else f"lifted:{owner}:{hex_id}" for owner in owners]

    def check_special_lay(self, game: Game, corp: Corporation, hex_id: str, tile_id: str, rotation: int,
                          trusted: bool = False) -> int:
        """Refuse an extra lay `special_lay` would not make (changes nothing); its cost otherwise."""
        color = self.pending[0]
        extras = rules_of(game).extras(game)
        board = game.board
        h = board.hex(hex_id)
        name, copy = parse_tile_id(tile_id)
        tile = board.catalogue.get(name)
        if tile is None:
            raise MalformedAction(f"unknown tile {name!r}", "tile_id")
        if not 0 <= rotation <= 5:
            raise MalformedAction(f"rotation {rotation!r} is not 0-5", "rotation")
        if color in ("red", "purple"):
            if is_orange(game, hex_id):
                raise IllegalAction(f"the {color} tile does not go on an orange-framed hex", "special_lay")
            problem = board.supply.check_copy(name, copy)
            if problem:
                raise IllegalAction(problem, "tile_supply")
            if tile.color != color:
                raise IllegalAction(f"the extra lay must be a {color} tile", "special_lay")
            if color == "red":
                if hex_id not in extras["red_tiles"]["hexes"] or h.tile.color != "red":
                    raise IllegalAction(f"red tiles go on {extras['red_tiles']['hexes']}", "special_lay")
            else:
                if h.tile.color != "purple":
                    raise IllegalAction("purple tiles go on purple hexes", "special_lay")
            if h.tile is not h.preprinted:
                raise IllegalAction(f"{hex_id} already has its {color} tile", "special_lay")
            if not trusted:
                check_centre_lay(game, corp, hex_id, tile, rotation, color)
                special = extras["purple_special_tiles"].get(hex_id)
                fixed = extras["tiles_fixed_rotation"]
                if special is not None and (name not in special or rotation != 0):
                    raise IllegalAction(f"{hex_id} takes only {special}, unrotated", "special_lay")
                if special is None and name in fixed:
                    raise IllegalAction(f"tile {name} belongs on another hex", "special_lay")
            return 0
        else:
            check_frame(game, hex_id, name)
            cost = board.check_lay(corp.sym, hex_id, tile_id, rotation, [color], must_connect=not trusted).cost
            major = self.major(game)
            if cost > major.cash:
                raise IllegalAction(f"{major.sym} cannot pay {cost} (has {major.cash})", "cash")
            return cost

    def place_token(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = self.corp(game)
        major = self.major(game)
        city, slot = action.get("city"), action.get("slot")
        if not isinstance(city, str) or not isinstance(slot, int):
            raise MalformedAction("place_token needs city and slot", "place_token_shape")
        lifted = lifted_entry(self.pending[0]) if self.pending else None
        if lifted is not None:
            self.place_lifted(game, lifted, city, slot)
            return
        free = bool(self.pending) and self.pending[0] in ("token", "home")
        home = bool(self.pending) and self.pending[0] == "home"
        if corp.next_token_price() is None and not home:
            # an extra station granted to a line with none left is lost: only a pass is open
            raise IllegalAction(f"{corp.sym} has no stations left" + (": the extra station is lost, pass"
                                                                       if free else ""), "token")
        price = 0 if free else corp.next_token_price()
        assert price is not None
        if home and game.board.city_hex(city) != corp.home:
            raise IllegalAction(f"{corp.sym}'s home station goes on {corp.home}", "home")
        slot = game.board.station_slot(corp.sym, city, slot)
        game.board.check_token(corp.sym, city, slot, must_connect=not trusted and not home)
        check_hex_reservation(game, corp, game.board.city_hex(city))
        game.pay(major, None, price)
        game.board.place_token(corp.sym, city, slot)
        corp.tokens_placed += 1
        if free:
            self.pending.pop(0)
        else:
            self.tokened = True

    def place_lifted(self, game: Game, lifted: tuple[str, str], city: str, slot: int) -> None:
        """Another company's station lifted by this line's tile goes back on a city of that hex, free."""
        owner, hex_id = lifted
        if game.board.city_hex(city) != hex_id:
            raise IllegalAction(f"{owner}'s lifted station goes back on {hex_id}", "home")
        slot = game.board.station_slot(owner, city, slot)
        game.board.check_token(owner, city, slot, must_connect=False)
        check_hex_reservation(game, game.corporations[owner], hex_id)
        game.board.place_token(owner, city, slot)
        game.corporations[owner].tokens_placed += 1
        self.pending.pop(0)

    def remove_token(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        city, slot = action.get("city"), action.get("slot")
        if not isinstance(city, str) or not isinstance(slot, int):
            raise MalformedAction("remove_token needs city and slot", "remove_token_shape")
        h, ci = game.board.locate_city(city)
        if h.id in rules_of(game).extras(game)["no_token_remove_hexes"]:
            raise IllegalAction(f"tokens on {h.id} stay", "remove_token")
        if not 0 <= slot < len(h.tokens[ci]) or h.tokens[ci][slot] is None:
            raise IllegalAction(f"no token in {city} slot {slot}", "remove_token")
        owner = h.tokens[ci][slot]
        if owner not in game.corporations or game.corporations[owner].kind != CITY:
            raise IllegalAction("only Stadtbahn tokens may be removed", "remove_token")
        game.pay(self.major(game), None, REMOVE_TOKEN_COST)
        h.tokens[ci][slot] = None
        game.board.forget_reach()
        self.removed = h.id

    def pass_(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        if self.pending:
            self.pending.pop(0)
            return
        self.next_stage(game)

    def run_routes(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = self.corp(game)
        rules = rules_of(game)
        refuse_stated_extras(action)
        records = action.get("routes")
        revenue = route_revenue(game, corp, records)
        if records:
            revenue += rules.maintenance_of(game, corp)  # running no route at all costs no maintenance
        if revenue >= 0:
            game.pay(None, corp, revenue)
        else:
            major = self.major(game)
            need = -revenue
            if major.cash < need:
                director = game.player(major.president)
                rules.take_loans(game, director, need - major.cash)
                game.pay(director, major, need - major.cash)
            game.pay(major, None, need)
        self.next_stage(game)

    def buy_company(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        major = self.major(game)
        company = game.company(action.get("company"))
        price = need_int(action, "price")
        if company.sym not in self.companies_for_sale(game):
            raise IllegalAction(f"{company.sym} is not for sale", "buy_company")
        if not company.min_price <= price <= company.max_price:
            raise IllegalAction(f"price must be between {company.min_price} and {company.max_price}",
                                "company_price")
        seller = game.player(company.owner)
        game.pay(major, seller, price)
        seller.companies.remove(company.sym)
        company.owner = major.sym
        major.companies.append(company.sym)

    def scrap_train(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        """A line may scrap its tram (to shed maintenance) instead of running it."""
        corp = self.corp(game)
        if action.get("train") not in {t.id for t in corp.trains}:
            raise IllegalAction(f"{corp.sym} has no tram {action.get('train')}", "scrap_train")
        scrap_tram(game, self.major(game), action)
        if not route_possible(game, corp):
            self.next_stage(game)

    # -- the concrete moves of each open type (the handlers' own checks, made without acting) -----------------
    def offer_lay_tile(self, game: Game, entity: Any) -> list[Option]:
        """Candidates from the hexes the lay could use, each checked by the handler's own check
        (`check_own_lay` / `check_special_lay`), the cheap connection test first."""
        board = game.board
        extras = rules_of(game).extras(game)
        pending = self.pending[0] if self.pending else None
        colors = [pending] if pending else list(game.phase.tiles)
        corp = game.corporations[entity]
        reach = board.reach(entity)
        candidates: list[tuple[str, str]] = []
        stadtbahn_open: dict[str, bool] = {}
        if pending in ("red", "purple"):
            hexes = extras["red_tiles"]["hexes"] if pending == "red" else \
                [h.id for h in board.hexes.values() if h.tile.color == "purple"]
            names = sorted(n for n, t in board.catalogue.items() if t.color == pending)
            candidates = [(hex_id, name) for hex_id in hexes for name in names]
        else:
            hexes = set(reach.edges)
            if pending is None:
                hexes |= {h.id for h in board.hexes.values() if is_orange(game, h.id)}
            for hex_id in sorted(hexes):
                for name in sorted(board.upgrade_targets(board.hexes[hex_id])):
                    tile = board.catalogue.get(name)
                    if tile is not None and tile.color in colors:
                        candidates.append((hex_id, name))
        out: list[Option] = []
        track_exits = extras["stadtbahn"]["track_exits"]
        framed = framed_tiles(game)
        for hex_id, name in candidates:
            copy = board.supply.free_copy(name)
            if copy is None:
                continue
            orange = is_orange(game, hex_id)
            if pending not in ("red", "purple") and orange != (name in framed):
                continue  # `check_frame`, before any rotation
            stadtbahn = pending is None and orange and board.catalogue[name].color == "yellow"
            if pending is None and not accepts(self.check_lay_allowed, corp, stadtbahn):
                continue
            if stadtbahn and hex_id not in stadtbahn_open:
                stadtbahn_open[hex_id] = accepts(check_extends_stadtbahn, game, hex_id)
            if stadtbahn and not stadtbahn_open[hex_id]:
                continue
            needed = set(track_exits.get(hex_id) or []) if stadtbahn else set()
            for rotation in range(6):
                option = {"hex": hex_id, "tile": f"{name}-{copy}", "rotation": rotation}
                if stadtbahn and not needed <= set(board.catalogue[name].rexits[rotation]):
                    continue  # `check_stadtbahn_exits`
                if pending not in ("red", "purple") and not stadtbahn and \
                        not board.catalogue[name].rexits[rotation] & reach.edges.get(hex_id, set()):
                    continue  # not connected: the cheap part of `check_lay` first
                try:
                    if pending is not None:
                        self.check_special_lay(game, corp, hex_id, option["tile"], rotation)
                    else:
                        self.check_own_lay(game, corp, hex_id, option["tile"], rotation, stadtbahn_checked=True)
                except EngineError:
                    continue
                out.append(option)
        return out

    def offer_place_token(self, game: Game, entity: Any) -> list[Option]:
        """The checks `place_token` makes, without placing: a free slot, a connected city (not for the home
        station), a station left and the money for it; a lifted station goes back on its own hex."""
        corp = game.corporations[entity]
        board = game.board
        pending = self.pending[0] if self.pending else None
        lifted = lifted_entry(pending) if pending else None
        if lifted is not None:  # another company's station lifted by this line's tile
            owner = game.corporations[lifted[0]]
            return [{"city": city, "slot": si} for city, si in station_spots(game, owner, lifted[1])
                    if accepts(check_hex_reservation, game, owner, lifted[1])]
        if pending == "home" and isinstance(corp.home, str):
            hex_cities = [(corp.home, ci, False) for ci in range(len(board.hex(corp.home).tokens))]
        else:
            hex_cities = []
            for hex_id, code in sorted(board.reach(entity).nodes):
                node = board.hexes[hex_id].tile.nodes[code - NODE_BASE]
                if node.is_city:
                    hex_cities.append((hex_id, node.index, True))
        if corp.next_token_price() is None and pending != "home":
            return []  # no station left: not even a granted extra one (rules-1840 *Extra station*)
        price = 0 if pending in ("token", "home") else corp.next_token_price()
        if price is None or price > self.major(game).cash:
            return []
        out: list[Option] = []
        for hex_id, ci, connect in hex_cities:
            city = board.city_id(hex_id, ci)
            for si in range(len(board.hexes[hex_id].tokens[ci])):
                try:
                    board.check_token(entity, city, si, must_connect=connect)
                    check_hex_reservation(game, corp, hex_id)
                except EngineError:
                    continue
                out.append({"city": city, "slot": si})
        return out

    def offer_remove_token(self, game: Game, entity: Any) -> list[Option]:
        """Stadtbahn stations outside the protected hexes, if the owning major can pay for the removal."""
        if self.major(game).cash < REMOVE_TOKEN_COST:
            return []
        board = game.board
        protected = set(rules_of(game).extras(game)["no_token_remove_hexes"])
        out: list[Option] = []
        for h in board.hexes.values():
            if h.id in protected:
                continue
            for ci, slots in enumerate(h.tokens):
                for si, owner in enumerate(slots):
                    if owner in game.corporations and game.corporations[owner].kind == CITY:
                        out.append({"city": board.city_id(h.id, ci), "slot": si})
        return out

    def offer_buy_company(self, game: Game, entity: Any) -> list[Option]:
        """Each private for sale at its lowest price and at the most the major can pay (up to its highest)."""
        cash = self.major(game).cash
        out: list[Option] = []
        for sym in self.companies_for_sale(game):
            company = game.companies[sym]
            for price in sorted({company.min_price, min(company.max_price, cash)}):
                out.append({"company": sym, "price": price})
        return out

    def offer_scrap_train(self, game: Game, entity: Any) -> list[Option]:
        return [{"train": t.id} for t in game.corporations[entity].trains]

    def offer_run_routes(self, game: Game, entity: Any) -> list[Option]:
        """A good run (`best_run(quick=True)`: bounded on a large network), and declining to run (a line may,
        to save its maintenance)."""
        best = best_run(game, game.corporations[entity], quick=True)
        options: list[Option] = [{"routes": best, "extra_revenue": 0, "subsidy": 0}]
        if best:
            options.append({"routes": [], "extra_revenue": 0, "subsidy": 0})
        return options

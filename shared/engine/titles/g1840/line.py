"""The line round (rules digest, *Line round*): lines in number order lay one tile, one orange-framed
Stadtbahn tile with the extra action it grants, place one station, then run their tram into the owning
Tram Company's revenue box."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...board.tiles import parse_tile_id
from ...errors import IllegalAction, MalformedAction
from ...model import Corporation
from .flow import MAX_LAYS, ORANGE, REMOVE_TOKEN_COST, FlowRound, need_int, rules_of
from .routes import route_possible, route_revenue, stadtbahn_config
from .rules import CITY
from .trams import scrap_tram

if TYPE_CHECKING:
    from ...board.tiles import TileDef
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

    def start(self, game: Game) -> None:
        owned = [s for lines in game.extra["owned_lines"].values() for s in lines]
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
            self.orange_laid = False
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

    def options(self, game: Game) -> list[str]:
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
        if is_orange(game, hex_id):
            self.orange_laid = True
        if stadtbahn:
            self.stadtbahn_laid = True
            game.extra["stadtbahn_built"].append(hex_id)
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
            self.check_lay_allowed(corp, orange_hex, stadtbahn)
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

    def check_lay_allowed(self, corp: Corporation, orange_hex: bool, stadtbahn: bool) -> None:
        """A line's own lays in a turn (rules-1840 *Tile lays*): one tile — an ordinary lay or upgrade, or an
        upgrade of an orange-framed hex, which may not follow a Stadtbahn tile — and one yellow Stadtbahn
        tile on an orange-framed hex, in either order."""
        if getattr(self, "lays", 0) >= MAX_LAYS:
            raise IllegalAction(f"{corp.sym} already laid {MAX_LAYS} tiles", "tile_lays")
        if stadtbahn:
            if getattr(self, "stadtbahn_laid", False):
                raise IllegalAction(f"{corp.sym} already laid a Stadtbahn tile", "tile_lays")
            return
        if self.normal_laid:
            raise IllegalAction(f"{corp.sym} already laid its tile", "tile_lays")
        if orange_hex and self.orange_laid:
            raise IllegalAction(f"{corp.sym} already laid an orange-framed tile", "tile_lays")

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
        if slot >= len(h.tokens[ci]) or h.tokens[ci][slot] is None:
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


def is_orange(game: Game, hex_id: str) -> bool:
    raw = orange_codes(game)
    return hex_id in raw


def orange_codes(game: Game) -> dict[str, str]:
    cached = game.defn.__dict__.get("_orange_1840")
    if cached is None:
        cached = {}
        for h in game.defn.data.map.get("hexes") or []:
            code = h.get("code") or ""
            if ORANGE in code:
                icon = ""
                if "icon=image:1840/" in code:
                    icon = code.split("icon=image:1840/")[1].split(";")[0].split("_")[0]
                cached[h["id"]] = icon
        game.defn.__dict__["_orange_1840"] = cached
    return cached


def orange_icon(game: Game, hex_id: str) -> str:
    return orange_codes(game).get(hex_id, "")


def framed_tiles(game: Game) -> frozenset[str]:
    """Tiles with an orange frame (the tile data's `frame=color:#ffa500`)."""
    cached = game.defn.__dict__.get("_framed_1840")
    if cached is None:
        cached = frozenset(t["name"] for t in game.defn.data.tiles["tiles"] if ORANGE in (t.get("code") or ""))
        game.defn.__dict__["_framed_1840"] = cached
    return cached


def check_frame(game: Game, hex_id: str, name: str) -> None:
    """Orange-framed hexes take only orange-framed tiles, and only they do (data: `tile_restrictions`)."""
    if is_orange(game, hex_id) != (name in framed_tiles(game)):
        raise IllegalAction(f"tile {name} does not go on {hex_id}: orange-framed tiles go on orange-framed "
                            "hexes only, and only they do", "tile_frame")


def check_centre_lay(game: Game, corp: Corporation, hex_id: str, tile: TileDef, rotation: int,
                     color: str) -> None:
    """The red and purple extra lays (rules-1840 *Red and purple tiles*): the hex must be connected to the
    line's track; a red tile must not point track across an impassable side, and one of its exits must
    meet the line's track. Purple tiles may face any way (the fixed ones are checked by the caller)."""
    edges = game.board.reach(corp.sym).edges.get(hex_id)
    if not edges:
        raise IllegalAction(f"{hex_id} is not connected to {corp.sym}'s track", "special_lay_connect")
    if color != "red":
        return
    exits = set(tile.rexits[rotation])
    blocked = sorted(e for e in exits if e not in game.board.hex(hex_id).neighbors)
    if blocked:
        raise IllegalAction(f"{tile.name} in rotation {rotation} leads track across {hex_id}'s impassable "
                            f"side(s) {blocked}", "special_lay_rotation")
    if not exits & edges:
        raise IllegalAction(f"{tile.name} in rotation {rotation} does not meet {corp.sym}'s track",
                            "special_lay_rotation")


def check_stadtbahn_exits(game: Game, hex_id: str, tile_id: str, rotation: int) -> None:
    """A Stadtbahn tile joins the hex's required exits (`stadtbahn.track_exits`)."""
    needed = set(rules_of(game).extras(game)["stadtbahn"]["track_exits"].get(hex_id) or [])
    tile = game.board.catalogue[parse_tile_id(tile_id)[0]]
    if not 0 <= rotation <= 5 or not needed <= set(tile.rexits[rotation]):
        raise IllegalAction(f"the Stadtbahn tile on {hex_id} must join exits {sorted(needed)}", "stadtbahn_exits")


def stadtbahn_of(game: Game, hex_id: str) -> str | None:
    """The Stadtbahn whose track runs through an orange-framed hex (the data's track_hexes)."""
    for sym in rules_of(game).extras(game)["stadtbahn"]["by_configuration"]:
        if sym in game.corporations and hex_id in (stadtbahn_config(game, sym).get("track_hexes") or []):
            return sym
    return None


def check_extends_stadtbahn(game: Game, hex_id: str) -> None:
    """A Stadtbahn tile continues its Stadtbahn's track (rules-1840 *Tile lays*): the Stadtbahn's hexes
    (`track_hexes`, in order from one starting city to the other) are built from both ends inwards, so the
    tile goes on the first or the last of them not yet built. A line's broad track is irrelevant, and so is
    a station of the Stadtbahn half-way along. Only a line's own Stadtbahn lay builds a hex of the chain: a
    framed tile put there as an extra lay fills the hex but leaves that end where it was, so the chain goes
    on from its other end only (rules-1840 *Tile lays*; docs/conflicts-1840.md)."""
    sym = stadtbahn_of(game, hex_id)
    chain = (stadtbahn_config(game, sym).get("track_hexes") or []) if sym is not None else []
    board = game.board
    built = set(game.extra.get("stadtbahn_built") or [])
    unbuilt = [h for h in chain if h not in built]
    ends = [h for h in dict.fromkeys(unbuilt[:1] + unbuilt[-1:]) if board.hex(h).tile is board.hex(h).preprinted]
    if hex_id not in ends:
        raise IllegalAction(f"the Stadtbahn tile on {hex_id} must continue {sym}'s track "
                            f"(next: {' or '.join(ends) or 'none'})", "stadtbahn_track")


def home_spots(game: Game, corp: Corporation) -> list[tuple[str, int]]:
    """(city, slot) pairs the line's home station may take now."""
    return station_spots(game, corp, str(corp.home))


def station_spots(game: Game, corp: Corporation, hex_id: str) -> list[tuple[str, int]]:
    """(city, slot) pairs on `hex_id` where `corp` could put a station, connection aside."""
    board = game.board
    h = board.hex(hex_id)
    out = []
    for ci, slots in enumerate(h.tokens):
        city = board.city_id(h.id, ci)
        for si in range(len(slots)):
            try:
                board.check_token(corp.sym, city, si, must_connect=False)
            except IllegalAction:
                continue
            out.append((city, si))
    return out


def check_hex_reservation(game: Game, corp: Corporation, hex_id: str) -> None:
    """A hex reserved as a whole (D18 for lines 1 and 2, E17 for line 3) keeps a free city for every line
    still in the game that reserved it and has no station there yet (rules-1840 *Home station*)."""
    h = game.board.hex(hex_id)
    present = {owner for slots in h.tokens for owner in slots}
    waiting = [sym for sym in h.tile_reservations if sym != corp.sym and sym not in present
               and sym in game.corporations and not game.corporations[sym].closed]
    free = sum(1 for slots in h.tokens for owner in slots if owner is None)
    if waiting and free <= len(waiting):
        raise IllegalAction(f"{hex_id} keeps its free cities for line(s) {', '.join(waiting)}", "reserved")


def home_is_a_choice(game: Game, corp: Corporation) -> bool:
    """A line whose start stop is a two-city hex reserved for it as a whole (D18, E17: the board data's
    tile-level reservations) chooses the city once the hex has track; on the bare hex the station goes on
    the first free city by itself."""
    home = corp.home
    if not isinstance(home, str):
        return False
    h = game.board.hex(home)
    return corp.sym in h.tile_reservations and bool(h.tile.rpaths[h.rotation])


def lifted_stations(game: Game, hex_id: str) -> list[str]:
    """Whose stations a lay on `hex_id` lifts: all of them, in slot order, when the hex has several cities
    and no track yet."""
    h = game.board.hex(hex_id)
    if h.tile.rpaths[h.rotation] or len(h.tile.cities) < 2:
        return []
    return [owner for slots in h.tokens for owner in slots if owner is not None]


def lifted_entry(pending: str) -> tuple[str, str] | None:
    """(owner, hex) of a pending placement of another company's lifted station."""
    if not pending.startswith("lifted:"):
        return None
    _, owner, hex_id = pending.split(":")
    return owner, hex_id


def place_line_home(game: Game, corp: Corporation) -> None:
    """A line's first station goes on its home stop when it first operates (free)."""
    home = corp.home
    if not isinstance(home, str):
        return
    h = game.board.hex(home)
    for ci, slots in enumerate(h.tokens):
        reserved = h.reservations[ci] if ci < len(h.reservations) else []
        for si, owner in enumerate(slots):
            if owner is None and (si >= len(reserved) or reserved[si] in (None, corp.sym)):
                game.board.place_token(corp.sym, game.board.city_id(home, ci), si)
                corp.tokens_placed += 1
                return

"""Track before stations, as two separate steps: the track step (with the privates that lay tiles in it)
and the station step (one station per city, none in the Virginia coalfields)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.operating import OperatingRound
from ....core.rounds import Round
from ....core.track import TrackAndToken
from ....errors import IllegalAction
from .. import coal, privates
from ..state import state
from .companies import BuyCompany

if TYPE_CHECKING:
    from ....game import Game
    from ....model import Corporation

EXTRA_LAY_CORPS = ("B&M", "NYH")
EXTRA_LAY_COST = 40


class Track1828(TrackAndToken):
    """Lay (or upgrade) track; passing ends the track step even if lays remain."""

    handlers = {"lay_tile": "lay_tile", "pass": "pass_step", "special_buy": "special_buy"}
    offers = {"lay_tile": "offer_lay_tile", "pass": "offer_pass", "special_buy": "offer_special_buy"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        corp = self.builder(game, round_, entity)
        if corp is None:
            return []
        if self.next_lay(game, round_) is None and privates.track_ability(game, corp) is None \
                and not may_buy_track_company(game, corp):
            return []  # a private's extra lay during the track step (E&K), owned or buyable, keeps it open
        return ["lay_tile", *self.extra_track_actions(game, round_, corp), "pass"]

    def next_lay(self, game: Game, round_: OperatingRound) -> dict[str, Any] | None:
        """The $40 extra lay (B&M, NYH) needs the money up front. E&K's extra yellow tile uses none of the
        corporation's lays, but counts as an upgrade for them: no upgrade and no $40 lay may follow it
        (rules-1828.md, "E&K's extra tile"; `privates._lay` marks the turn)."""
        lay = super().next_lay(game, round_)
        if lay is not None and int(lay.get("cost") or 0) > round_.corp(game).cash:
            return None  # the $40 extra lay needs the money up front
        return lay

    def offer_lay_tile(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """The corporation's own lays while this step is the one open (a lay with its own price, B&M's and
        NYH's $40 extra one, tried on a copy), and the lays its privates may make now (C&St.L's at any
        point of the turn: the round opens lay_tile for it outside this step too)."""
        corp = game.corporations[entity]
        lays: list[dict[str, Any]] = []
        if round_.active_step(game) is self:
            lays = super().offer_lay_tile(game, round_, entity)
            lay_rules = self.tile_lays(game, round_)
            index = len(round_.laid_hexes)
            if index < len(lay_rules) and int(lay_rules[index].get("cost") or 0):
                lays = [o for o in lays if game.accepts({"type": "lay_tile", "entity": entity, **o})]
        return lays + privates.private_lays(game, round_, corp)

    def tile_lays(self, game: Game, round_: OperatingRound) -> list[dict[str, Any]]:
        """The data's lays, and a System's extra yellow lay (or upgrade, if none came before), and the $40
        extra yellow lay of B&M and NYH, also as part of a System (rules-1828.md)."""
        lays = list(game.rules.rule(game, "TILE_LAYS", []))
        corp = round_.corp(game)
        members = state(game).systems.get(corp.sym, [corp.sym])
        if corp.sym in state(game).systems:
            lays.append({"lay": True, "upgrade": "not_if_upgraded", "cannot_reuse_same_hex": True, "cost": 0})
        for sym in members:
            if sym in EXTRA_LAY_CORPS:
                lays.append({"lay": "not_if_upgraded", "upgrade": False, "cannot_reuse_same_hex": True,
                             "cost": EXTRA_LAY_COST})
        return lays

    def pay_for_track(self, game: Game, round_: OperatingRound, corp: Corporation, cost: int) -> None:
        super().pay_for_track(game, round_, corp, self.track_cost(game, round_, cost))

    def track_cost(self, game: Game, round_: OperatingRound, cost: int) -> int:
        """A lay's cost with the price of this turn's lay slot (the second lay costs extra in some phases)."""
        lays = self.tile_lays(game, round_)
        index = len(round_.laid_hexes)
        return cost + (int(lays[index].get("cost") or 0) if index < len(lays) else 0)

    def after_lay_tile(self, game: Game, round_: OperatingRound, corp: Corporation, hex_id: str) -> None:
        """The first tile on a home put down among several cities before any track (`OperatingRound1828.
        place_home_token`) lifts the station; its owner places it again in a city of its choice. The tunnel's
        tile pays its layer (`coal`). A private's lay is followed by this too (`privates` asks the round's
        track step)."""
        if hex_id == coal.tunnel(game):
            coal.tunnel_laid(game, corp)
        owner = state(game).loose_homes.pop(hex_id, None)
        if owner is None or owner not in game.corporations:
            return
        h = game.board.hex(hex_id)
        for slots in h.tokens:
            for i, entity in enumerate(slots):
                if entity == owner:
                    slots[i] = None
        game.board.forget_reach()
        game.corporations[owner].tokens_placed -= 1
        round_.pending_homes.append(owner)

    def special_buy_options(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[dict[str, Any]]:
        """The coal marker (the round takes the purchase itself, at any point of the turn, and offers it
        through this step: `OperatingRound1828.offering_step`, the first step offering it)."""
        return [{"description": coal.DESCRIPTION, "cost": coal.cost(game)}] if coal.may_buy(game, corp) else []


def may_buy_track_company(game: Game, corp: Any) -> bool:
    """A private with a track-step lay is for sale to `corp` now (the track step waits for it)."""
    if "can_buy_companies" not in game.phase.status or corp.kind == "minor":
        return False
    return any(c.min_price <= corp.cash and any(a.get("type") == "tile_lay" and a.get("when") == "track"
                                                for a in c.abilities)
               for c in BuyCompany.purchasable(game))


class Token1828(TrackAndToken):
    """Place one station after the track step (which slot it takes: the shared board rule,
    `Board.station_slot`)."""

    handlers = {"place_token": "place_token", "pass": "pass_step"}
    offers = {"place_token": "offer_place_token", "pass": "offer_pass"}

    def place_token(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        if action.get("city") in own_cities(game, action.get("entity")):
            raise IllegalAction(f"{action.get('entity')} already has a station in {action.get('city')}", "token")
        if action.get("city") in coalfield_cities(game):
            raise IllegalAction("the Virginia Coalfields may not hold a station", "token")
        city = action.get("city")
        if isinstance(city, str) and city in reserved_cities(game, action.get("entity")):
            raise IllegalAction(f"{city}: the hex is reserved for the home station of "
                                f"{', '.join(game.board.hex(game.board.city_hex(city)).tile_reservations)}",
                                "token_reserved")
        super().place_token(game, round_, action, trusted)

    def offer_place_token(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """The shared stations, never in the coalfields nor in a city already holding one of its own."""
        closed = coalfield_cities(game) | own_cities(game, entity) | reserved_cities(game, entity)
        return [o for o in super().offer_place_token(game, round_, entity) if o.get("city") not in closed]

    def can_place_token(self, game: Game, round_: OperatingRound, corp: Corporation) -> bool:
        """One station per city and corporation (gen1828_3p_544675 index 654: B&M-IC, in Cincinnati
        already, has no station to place after upgrading it)."""
        if not super().can_place_token(game, round_, corp):
            return False
        # the coalfields count as a place to go (the step waits; the station itself is refused there)
        closed = own_cities(game, corp.sym) | reserved_cities(game, corp.sym)
        return any(city not in closed for city in game.board.token_city_candidates(corp.sym))

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


def reserved_cities(game: Game, entity: Any) -> set[str]:
    """The cities of a hex holding another corporation's home reservation not yet tied to one of its cities
    (an OO hex, E15 or H22, before its corporation's home is placed): no other corporation places a station
    on that hex (rules-1828.md, "Stations"; the reference: "remaining token slots are reserved")."""
    board = game.board
    return {board.city_id(hex_id, index) for hex_id, h in board.hexes.items()
            if h.tile_reservations and any(r != entity for r in h.tile_reservations)
            for index in range(len(h.tokens))}


def own_cities(game: Game, entity: Any) -> set[str]:
    """The city ids (as actions name them) holding the entity's stations."""
    board = game.board
    return {board.city_id(hex_id, index) for hex_id, index in board.station_cities(entity)}

"""The operating round's track and station steps: a home token whose city is chosen, and laying tiles and
placing a station in one step."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import EngineError, IllegalAction, MalformedAction, accepts
from ..model import Corporation
from .operating import OperatingRound, SpecialBuy
from .rounds import Round, Step

if TYPE_CHECKING:
    from ..game import Game


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
        return corp if self.may_build(game, corp) else None

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        corp = self.builder(game, round_, entity)
        if corp is None:
            return []
        out = []
        if self.next_lay(game, round_) is not None:
            out.append("lay_tile")
            out.extend(self.extra_track_actions(game, round_, corp))
        if self.can_place_token(game, round_, corp):
            out.append("place_token")
        if out:
            out.append("pass")
        return out

    def next_lay(self, game: Game, round_: OperatingRound) -> dict[str, Any] | None:
        lays = self.tile_lays(game, round_)
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
        if price is None or price > self.buying_power(game, corp):
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
                upgrade = self.is_upgrade(game, hex_id)
                if (upgrade and not lay.get("upgrade")) or (not upgrade and not lay.get("lay")):
                    return False
                if round_.laid_hexes:
                    self.check_second_lay(game, round_, hex_id)
            except EngineError:
                return False
            return True

        out = []
        for hex_id, name, rotation, result in game.board.legal_lay_results(entity, set(game.phase.tiles), hex_open):
            try:
                self.check_track_restrictions(game, round_, corp, hex_id, result, rotation)
            except EngineError:
                continue
            if result.cost <= self.buying_power(game, corp):
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
                                      must_connect=not trusted and self.lay_must_connect(game, corp, hex_id))
        upgrade = self.is_upgrade(game, hex_id, result)
        if upgrade and not lay.get("upgrade"):
            raise IllegalAction("no upgrade is allowed now (one upgrade, or two yellow tiles)", "tile_lays")
        if not upgrade and not lay.get("lay"):
            raise IllegalAction("no further yellow tile may be laid after an upgrade", "tile_lays")
        if round_.laid_hexes:
            self.check_second_lay(game, round_, hex_id)
        if not trusted:
            self.check_track_restrictions(game, round_, corp, hex_id, result, rotation)
        cost = result.cost
        self.pay_for_track(game, round_, corp, cost)
        game.board.lay(hex_id, tile_id, rotation)
        round_.laid_hexes.append(hex_id)
        round_.upgraded = round_.upgraded or upgrade
        self.after_lay_tile(game, round_, corp, hex_id)

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
        self.pay_for_token(game, round_, corp, price)
        game.board.place_token(corp.sym, city, slot)
        corp.tokens_placed += 1
        round_.tokened = True

    def pass_step(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        self.passed = True

    # -- what a title's step changes (`lay_tile`, `place_token` and what opens them) ---------------------------
    def may_build(self, game: Game, corp: Corporation) -> bool:
        """Whether `corp` lays track and places stations this turn at all."""
        return True

    def extra_track_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        """Action types the title opens beside the lays (handled by this step)."""
        return []

    def tile_lays(self, game: Game, round_: OperatingRound) -> list[dict[str, Any]]:
        """The lays of a turn, in order (the data's `TILE_LAYS`): whether each may lay, upgrade, at what cost."""
        return list(game.rules.rule(game, "TILE_LAYS", [{"lay": True, "upgrade": True}]))

    def buying_power(self, game: Game, corp: Corporation) -> int:
        """What `corp` may spend on track and stations."""
        return corp.cash

    def lay_must_connect(self, game: Game, corp: Corporation, hex_id: str) -> bool:
        return True

    def is_upgrade(self, game: Game, hex_id: str, result: Any = None) -> bool:
        """Whether a lay on this hex counts as an upgrade: a question about the hex alone, so that tile-lay
        enumeration can skip a hex before trying tiles on it."""
        return game.board.hex(hex_id).tile.color != "white"

    def check_second_lay(self, game: Game, round_: OperatingRound, hex_id: str) -> None:
        if hex_id in round_.laid_hexes:
            raise IllegalAction(f"{hex_id} already had a tile laid this turn", "same_hex")

    def check_track_restrictions(self, game: Game, round_: OperatingRound, corp: Corporation, hex_id: str,
                                 result: Any, rotation: int) -> None:
        """The title's own limits on a lay the board allows (none by default)."""

    def pay_for_track(self, game: Game, round_: OperatingRound, corp: Corporation, cost: int) -> None:
        if cost > corp.cash:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, the terrain costs {cost}", "cash")
        game.pay(corp, None, cost)

    def after_lay_tile(self, game: Game, round_: OperatingRound, corp: Corporation, hex_id: str) -> None:
        """What a laid tile brings about (nothing by default)."""

    def pay_for_token(self, game: Game, round_: OperatingRound, corp: Corporation, price: int) -> None:
        if price > corp.cash:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, the station costs {price}", "cash")
        game.pay(corp, None, price)



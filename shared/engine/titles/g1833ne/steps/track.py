"""1833NE's build step: up to two tile lays of which at most one upgrade ($20 each on top of the terrain), the
second station, and (`steps/finance.py`) the corporation's finance and shopping, open while it builds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.operating import OperatingRound
from ....core.rounds import Round
from ....core.track import TrackAndToken
from ....errors import EngineError, IllegalAction, MalformedAction
from ....model import Corporation
from .. import bonuses, p3
from .. import constants as K
from ..operating import Operating1833
from ..state import state
from .finance import FINANCE_HANDLERS, FINANCE_OFFERS, CorporationFinance
from .trains import TrainStep

if TYPE_CHECKING:
    from ....game import Game


class BuildStep(CorporationFinance, TrackAndToken):
    """Lay up to two tiles (one may be an upgrade), place the second station, and run the corporation's
    finances: issue or buy back, buy a private from its president, buy a ferry."""

    handlers = {"lay_tile": "lay_tile", "place_token": "place_token", "pass": "pass_step", **FINANCE_HANDLERS}
    offers = {"lay_tile": "offer_lay_tile", "place_token": "offer_place_token", "pass": "offer_pass",
              **FINANCE_OFFERS}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, Operating1833)
        if entity != round_.current_entity(game) or entity not in game.corporations:
            return []
        corp = game.corporations[entity]
        out: list[str] = []
        if self.may_build(game, corp) and corp.cash >= K.TILE_COST and (
                self.next_lay(game, round_) is not None or p3.lays_left(game, corp)):
            out.append("lay_tile")
        if self.can_place_token(game, round_, corp):
            out.append("place_token")
        out.extend(self.finance_actions(game, round_, corp))
        out.extend(self.shopping_actions(game, corp))
        if out:
            out.append("pass")
        return out

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        """Why a track, station, private or ferry move is closed now, in the words of the rule."""
        assert isinstance(round_, Operating1833)
        kind, sym = action["type"], action.get("entity")
        if sym not in game.corporations or sym != round_.current_entity(game):
            return None
        corp = game.corporations[sym]
        if kind in ("buy_company", "special_buy") and self.passed and TrainStep.must_buy_train(game, corp):
            return IllegalAction(f"{corp.sym} has no train and must buy one before anything else", "must_buy_train")
        if kind == "buy_company":
            return self.refuse_private(game, corp, action)
        if kind == "special_buy":
            return self.ferry_refusal(game, corp)
        if kind == "choose":
            return bonuses.luxury_refusal(game, corp, action)
        if kind not in ("lay_tile", "place_token"):
            return None
        if kind == "lay_tile" and action.get("ability") != K.P3:
            if not self.may_build(game, corp):
                return IllegalAction("the Boston & Lowell lays no track in phase I until a corporation has bought "
                                     "the Lowell Merchants (P2)", "may_not_build")
            if not round_.laid_hexes and corp.cash < K.TILE_COST:
                return IllegalAction(f"{corp.sym} has {corp.cash}; every tile costs at least {K.TILE_COST}", "cash")
        if self.passed:
            return IllegalAction(f"{corp.sym} has finished building this turn: track and its station come "
                                 "before running trains", "build_over")
        if kind == "lay_tile":
            if self.next_lay(game, round_) is None:
                return IllegalAction("no more track this turn: one yellow tile and a second yellow tile or one "
                                     "upgrade", "tile_lays")
            if corp.cash < K.TILE_COST:
                return IllegalAction(f"{corp.sym} has {corp.cash}; every tile costs at least {K.TILE_COST}", "cash")
            return None
        if round_.tokened:
            return IllegalAction(f"{corp.sym} has already placed a station this turn", "token")
        if corp.next_token_price() is None:
            return IllegalAction(f"{corp.sym} has both its stations (home and one more) on the map", "token")
        if not game.board.reachable_token_cities(corp.sym):
            return IllegalAction(f"{corp.sym} reaches no city with a free station slot", "token")
        return IllegalAction(f"{corp.sym} has {corp.cash}; a station costs {K.STATION_PRICE} "
                             f"(the Boston & Worcester's in Worcester {K.WORCESTER_PRICE})", "cash")

    def next_lay(self, game: Game, round_: OperatingRound) -> dict[str, Any] | None:
        count = len(round_.laid_hexes)
        if count >= 2:
            return None
        return {"lay": True, "upgrade": not round_.upgraded}

    def can_place_token(self, game: Game, round_: OperatingRound, corp: Corporation) -> bool:
        if round_.tokened or corp.next_token_price() is None:
            return False
        return bool(self.token_options(game, corp))

    def may_build(self, game: Game, corp: Corporation) -> bool:
        """The Boston & Lowell lays no track in phase I until a corporation has bought P2."""
        return not (corp.sym == "B&L" and not state(game).p2_bought and game.phase.name == "I")

    def pay_for_track(self, game: Game, round_: OperatingRound, corp: Corporation, cost: int) -> None:
        """Every tile costs its price on top of the terrain; P2's buyer lays its first tile in Lowell free."""
        total = K.TILE_COST + cost
        hex_id = getattr(round_, "pending_lay", None)
        if hex_id == K.LOWELL and state(game).p2_free == (corp.sym, game.turn, round_.round_num):
            total = 0
        if total > corp.cash:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, the tile costs {total}", "cash")
        game.pay(corp, None, total)

    def after_lay_tile(self, game: Game, round_: OperatingRound, corp: Corporation, hex_id: str) -> None:
        if isinstance(round_, Operating1833):
            round_.pending_lay = None
        if hex_id == K.LOWELL and state(game).p2_free and state(game).p2_free[0] == corp.sym:
            state(game).p2_free = None
        self.tile_placed(game, hex_id)

    @staticmethod
    def tile_placed(game: Game, hex_id: str) -> None:
        """Sherbrooke's shared token and B&P's Boston reservation appear with the tiles that make room."""
        h = game.board.hex(hex_id)
        if hex_id == K.SHERBROOKE and h.tile.color == "yellow" and h.tokens:
            city = game.board.city_id(hex_id, 0)
            slots = h.tokens[0]
            for sym in ("StL&A", "A&StL"):
                if sym in game.corporations and not game.corporations[sym].closed and sym not in slots:
                    free = next((i for i, s in enumerate(slots) if s is None), len(slots))
                    game.board.place_token(sym, city, free)
        if hex_id == K.BOSTON and h.tile.color == "green" and game.phase_index < 3:
            bp = game.corporations.get("B&P")
            if bp is not None and not bp.closed and not any("B&P" in s for s in h.tokens) \
                    and not any("B&P" in r for r in h.reservations):
                for ci, slots in enumerate(h.tokens):
                    free = next((i for i, s in enumerate(slots) if s is None and h.reservations[ci][i] is None), None)
                    if free is not None:
                        h.reservations[ci][free] = "B&P"
                        break

    def lay_tile(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        assert isinstance(round_, Operating1833)
        corp = game.corporations[action["entity"]]
        if action.get("ability") == K.P3:
            p3.lay(game, corp, action)  # P3's lays are its own, beside the turn's two
            return
        if not self.may_build(game, corp):
            raise IllegalAction(f"{corp.sym} may not lay track now", "may_not_build")
        round_.pending_lay = action.get("hex") if isinstance(action.get("hex"), str) else None
        try:
            super().lay_tile(game, round_, action, trusted)
        finally:
            round_.pending_lay = None

    def place_token(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        city, slot = action.get("city"), action.get("slot")
        if not isinstance(city, str) or not isinstance(slot, int):
            raise MalformedAction("place_token needs city and slot", "place_token_shape")
        if round_.tokened:
            raise IllegalAction(f"{corp.sym} already placed a station this turn", "token")
        if corp.next_token_price() is None:
            raise IllegalAction(f"{corp.sym} has both its stations on the map", "token")
        game.board.check_token(corp.sym, city, slot, must_connect=not trusted)
        price = self.station_price(game, corp, city)
        if price > corp.cash:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, the station costs {price}", "cash")
        game.pay(corp, None, price)
        game.board.place_token(corp.sym, city, slot)
        corp.tokens_placed += 1
        round_.tokened = True

    # -- offers --------------------------------------------------------------------------------------------
    def offer_lay_tile(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """Every lay the turn still allows that the treasury pays, and P3's lays (`lay_options`)."""
        corp = game.corporations[entity]
        lay = self.next_lay(game, round_) if self.may_build(game, corp) else None
        return self.lay_options(game, round_, corp, lay)

    @staticmethod
    def lay_options(game: Game, round_: OperatingRound, corp: Corporation,
                    lay: dict[str, Any] | None) -> list[dict[str, Any]]:
        """The lays `lay` (`next_lay`: whether an upgrade is still open) allows that the treasury pays, P2's
        free lay in Lowell included, and P3's own lays."""
        out: list[dict[str, Any]] = []
        if lay is not None:  # None too when the corporation may not build (`may_build`)
            for hex_id, name, rot in game.board.legal_lays(corp.sym, set(game.phase.tiles)):
                if hex_id in round_.laid_hexes:
                    continue
                h = game.board.hex(hex_id)
                upgrade = h.tile.color != "white"
                if upgrade and not lay.get("upgrade"):
                    continue
                copy = game.board.supply.free_copy(name)
                tile_id = f"{name}-{copy}"
                cost = K.TILE_COST + game.board.check_lay(corp.sym, hex_id, tile_id, rot, set(game.phase.tiles)).cost
                if hex_id == K.LOWELL and state(game).p2_free == (corp.sym, game.turn, round_.round_num):
                    cost = 0
                if cost <= corp.cash:
                    out.append({"type": "lay_tile", "entity": corp.sym, "hex": hex_id, "tile": tile_id,
                                "rotation": rot})
        out.extend(p3.options(game, corp))
        return out

    def offer_place_token(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """Each free slot of a reachable city whose station the treasury pays (`token_options`)."""
        corp = game.corporations[entity]
        return [{"city": city, "slot": slot} for city, slot in self.token_options(game, corp)]

    # -- stations ------------------------------------------------------------------------------------------
    @staticmethod
    def station_price(game: Game, corp: Corporation, city: str) -> int:
        """The second station's price: $80, the Boston & Worcester's in Worcester $40."""
        if corp.sym == "BW" and game.board.city_hex(city) == K.WORCESTER:
            return K.WORCESTER_PRICE
        price = corp.next_token_price()
        return K.STATION_PRICE if price is None else price

    @classmethod
    def token_options(cls, game: Game, corp: Corporation) -> list[tuple[str, int]]:
        """(city, slot) of each free slot of a reachable city whose station the treasury pays."""
        if corp.next_token_price() is None:
            return []
        return [(city, slot) for city, slot in game.board.reachable_token_cities(corp.sym)
                if cls.station_price(game, corp, city) <= corp.cash]

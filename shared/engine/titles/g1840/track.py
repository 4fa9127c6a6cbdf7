"""1840's track rules beside the shared lay checks: orange-framed hexes and tiles, the Stadtbahn chains built
from both ends, and the red and purple centre lays an orange tile grants (rules digest, *Line round*)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...board.tiles import parse_tile_id
from ...errors import IllegalAction
from .flow import ORANGE, rules_of
from .routes import stadtbahn_config
from .state import state

if TYPE_CHECKING:
    from ...board.tiles import TileDef
    from ...game import Game
    from ...model import Corporation


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
    built = set(state(game).stadtbahn_built)
    unbuilt = [h for h in chain if h not in built]
    ends = [h for h in dict.fromkeys(unbuilt[:1] + unbuilt[-1:]) if board.hex(h).tile is board.hex(h).preprinted]
    if hex_id not in ends:
        raise IllegalAction(f"the Stadtbahn tile on {hex_id} must continue {sym}'s track "
                            f"(next: {' or '.join(ends) or 'none'})", "stadtbahn_track")

"""P3, Champlain & St. Lawrence: two extra free yellow tiles on C4 and C6, joined to each other and C4's to
Montreal, without the owner's own stations reaching them (seed). Hexes, tiles and count are the board data's
`tile_lay` ability of P3; the board's lay check fits the town tiles to St. Jean (C4) and plain track to C6.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import IllegalAction, MalformedAction
from . import constants as K
from .state import state

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Corporation


def ability(game: Game) -> dict[str, Any]:
    """P3's extra lays as the board data gives them: hexes, tiles, count."""
    raw = next((c for c in game.defn.data.setup["companies"] if c["sym"] == K.P3), {})
    return next((a for a in raw.get("abilities") or [] if a.get("type") == "tile_lay"), {})


def lays_left(game: Game, corp: Corporation) -> bool:
    return K.P3 in corp.companies and state(game).p3_left > 0 and any(
        game.board.hex(h).tile.color == "white" for h in ability(game).get("hexes", ()))


def lay(game: Game, corp: Corporation, action: dict[str, Any]) -> None:
    hex_id, tile_id, rotation = action.get("hex"), action.get("tile"), action.get("rotation")
    if not isinstance(hex_id, str) or not isinstance(tile_id, str) or not isinstance(rotation, int):
        raise MalformedAction("lay_tile needs hex, tile and rotation", "lay_tile_shape")
    if not lays_left(game, corp):
        raise IllegalAction(f"{corp.sym} has no Champlain & St. Lawrence lays left", "p3")
    lays = ability(game)
    if hex_id not in lays["hexes"]:
        raise IllegalAction(f"the Champlain & St. Lawrence lays go on {' and '.join(lays['hexes'])}, "
                            f"not {hex_id}", "p3_hex")
    name = tile_id.rpartition("-")[0] or tile_id
    if name not in lays["tiles"]:
        raise IllegalAction(f"tile {name} is not allowed on {hex_id}", "p3_tile")
    result = game.board.check_lay(corp.sym, hex_id, tile_id, rotation, set(game.phase.tiles), must_connect=False)
    if result.upgrade:
        raise IllegalAction("the Champlain & St. Lawrence lays are yellow tiles on empty hexes", "p3_tile")
    refusal = connection_refusal(game, hex_id, name, rotation)
    if refusal:
        raise IllegalAction(refusal, "p3_connect")
    game.board.lay(hex_id, tile_id, rotation)
    state(game).p3_left -= 1


def options(game: Game, corp: Corporation) -> list[dict[str, Any]]:
    if not lays_left(game, corp):
        return []
    out = []
    lays = ability(game)
    for hex_id in lays["hexes"]:
        if game.board.hex(hex_id).tile.color != "white":
            continue
        for name in lays["tiles"]:
            copy = game.board.supply.free_copy(name)
            if copy is None:
                continue
            for rot in range(6):
                trial = {"type": "lay_tile", "entity": corp.sym, "hex": hex_id, "tile": f"{name}-{copy}",
                         "rotation": rot, "ability": K.P3}
                if _fits(game, corp, trial):
                    out.append(trial)
    return out


def _fits(game: Game, corp: Corporation, action: dict[str, Any]) -> bool:
    name = action["tile"].rpartition("-")[0]
    try:
        game.board.check_lay(corp.sym, action["hex"], action["tile"], action["rotation"], set(game.phase.tiles),
                             must_connect=False)
    except IllegalAction:
        return False
    return connection_refusal(game, action["hex"], name, action["rotation"]) is None


def connection_refusal(game: Game, hex_id: str, name: str, rotation: int) -> str | None:
    """The two lays join each other and C4's joins Montreal. When the other hex already has a tile (the
    first P3 lay, or any tile laid there since the blockers went), it must face this one too."""
    board = game.board
    exits = board.catalogue[name].rexits[rotation]
    toward = {nb: e for e, nb in board.hex(hex_id).neighbors.items()}
    other = next(h for h in ability(game)["hexes"] if h != hex_id)
    if hex_id == K.P3_MONTREAL_HEX and toward.get(K.MONTREAL) not in exits:
        return f"the tile on {hex_id} must connect to Montreal"
    if toward.get(other) not in exits:
        return f"the tile on {hex_id} must connect to {other}"
    there = board.hex(other)
    if there.tile.color != "white":
        back = {nb: e for e, nb in there.neighbors.items()}[hex_id]
        if back not in there.tile.rexits[there.rotation]:
            return f"the tile on {other} does not connect to {hex_id}"
    return None


__all__ = ["ability", "connection_refusal", "lay", "lays_left", "options"]

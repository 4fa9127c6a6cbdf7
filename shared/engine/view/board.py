"""The map as a client draws it: every hex with its place on the page, terrain, the tile on it (with the
track already turned to the tile's rotation), its stops with revenues, city slots with tokens and
reservations, labels and borders.

Geometry is given for a hex whose corners lie at distance 1 from its centre, so a client only scales. The
engine keeps doubled coordinates (`x`, `y`, see data/games/conventions.json); a pointy hex's centre is
(x * sqrt3/2, y * 3/2), a flat hex's (x * 3/2, y * sqrt3/2). Edge e of a pointy hex faces the direction
120 + 60e degrees (y grows downwards), of a flat hex 90 + 60e: the directions of DIRECTIONS in
board/hexes.py.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..board.board import HexState
from ..board.tiles import NODE_BASE, Node, TileDef

if TYPE_CHECKING:
    from ..game import Game

SQRT3 = math.sqrt(3)
EDGE_ANGLE0 = {"pointy": 120.0, "flat": 90.0}
CORNER_ANGLE0 = {"pointy": 30.0, "flat": 0.0}


def center(layout: str, x: int, y: int) -> tuple[float, float]:
    if layout == "flat":
        return x * 1.5, y * SQRT3 / 2
    return x * SQRT3 / 2, y * 1.5


def edge_point(layout: str, edge: int, scale: float = SQRT3 / 2) -> tuple[float, float]:
    """Midpoint of an edge (scaled towards the centre by `scale`, 1 = on the hex side)."""
    a = math.radians(EDGE_ANGLE0[layout] + 60 * edge)
    return round(math.cos(a) * scale, 4), round(math.sin(a) * scale, 4)


def corners(layout: str) -> list[tuple[float, float]]:
    out = []
    for k in range(6):
        a = math.radians(CORNER_ANGLE0[layout] + 60 * k)
        out.append((round(math.cos(a), 4), round(math.sin(a), 4)))
    return out


def node_locations(parse: dict[str, Any]) -> list[Any]:
    """The data's drawing position (`loc`) of each node, in the engine's node order (cities, towns,
    off-boards): an edge number of the unrotated tile (halves are corners) or "center"; None if unset."""
    return [raw.get("loc") for key in ("cities", "towns", "offboards") for raw in parse.get(key) or []]


def _loc_point(layout: str, loc: Any, rotation: int) -> tuple[float, float] | None:
    if loc == "center":
        return (0.0, 0.0)
    if isinstance(loc, (int, float)):
        a = math.radians(EDGE_ANGLE0[layout] + 60 * (float(loc) + rotation))
        return round(math.cos(a) * 0.5, 4), round(math.sin(a) * 0.5, 4)
    return None


def _node_positions(layout: str, tile: TileDef, rotation: int,
                    locs: list[Any] | None = None) -> list[tuple[float, float]]:
    """Where each node sits inside the hex: where the data draws it (`loc`) if it says; else a lone stop
    sits in the middle and, with several, each moves towards the edges its track leaves by, so the
    drawing shows which track belongs to which stop."""
    nodes = tile.nodes
    stops = [i for i, n in enumerate(nodes) if n.is_stop]
    pos: list[tuple[float, float]] = [(0.0, 0.0)] * len(nodes)
    given = [(_loc_point(layout, locs[i], rotation) if locs and i < len(locs) else None) for i in range(len(nodes))]
    if len(stops) <= 1:
        return [g or p for g, p in zip(given, pos, strict=True)]
    paths = tile.rpaths[rotation] if tile.rpaths else ()
    placed: list[tuple[float, float]] = []
    for order, i in enumerate(stops):
        code = NODE_BASE + i
        edges = [p.other(code) for p in paths if code in p.ends() and p.other(code) < NODE_BASE]
        px = py = 0.0
        for e in edges:
            ex, ey = edge_point(layout, e, 1.0)
            px, py = px + ex, py + ey
        norm = math.hypot(px, py)
        if not edges or norm < 0.2 or any(math.hypot(px / max(norm, 1e-9) * 0.45 - qx, py / max(norm, 1e-9) * 0.45 - qy)
                                         < 0.35 for qx, qy in placed):
            a = math.radians(CORNER_ANGLE0[layout] + 90 + 360 * order / len(stops))
            p = (round(math.cos(a) * 0.45, 4), round(math.sin(a) * 0.45, 4))
        else:
            p = (round(px / norm * 0.45, 4), round(py / norm * 0.45, 4))
        if given[i] is not None:
            p = given[i]  # type: ignore[assignment]
        placed.append(p)
        pos[i] = p
    return pos


def _end(code: int) -> dict[str, int]:
    return {"edge": code} if code < NODE_BASE else {"node": code - NODE_BASE}


def _revenue(node: Node, phase_colors: tuple[str, ...], phase_name: str) -> dict[str, Any]:
    out: dict[str, Any] = {"revenue": node.revenue_for(phase_colors, phase_name)}
    if isinstance(node.revenue, dict):
        out["revenues"] = dict(node.revenue)
    return out


def hex_view(game: Game, h: HexState, raw: dict[str, Any] | None,
             tile_locs: dict[str, list[Any]] | None = None) -> dict[str, Any]:
    layout = game.board.rules.layout
    tile = h.tile
    rotation = 0 if tile.preprinted else h.rotation
    locs = node_locations((raw or {}).get("tile") or {}) if tile.preprinted else (tile_locs or {}).get(tile.name)
    positions = _node_positions(layout, tile, rotation, locs)
    phase = game.phase
    nodes = []
    city_no = 0
    for i, node in enumerate(tile.nodes):
        entry: dict[str, Any] = {"node": i, "kind": node.kind, "index": node.index,
                                 "x": positions[i][0], "y": positions[i][1]}
        if node.is_stop:
            entry.update(_revenue(node, phase.tiles, phase.name))
        if node.is_city:
            tokens = h.tokens[city_no] if city_no < len(h.tokens) else []
            reserved = h.reservations[city_no] if city_no < len(h.reservations) else []
            slots = max(node.slots, len(tokens))
            entry["slots"] = slots
            entry["tokens"] = [tokens[s] if s < len(tokens) else None for s in range(slots)]
            entry["reserved"] = [reserved[s] if s < len(reserved) else None for s in range(slots)]
            entry["city_id"] = f"{tile.name}-{h.copy}-{node.index}"
            city_no += 1
        nodes.append(entry)
    paths = [{"a": _end(p.a), "b": _end(p.b), "track": p.track, **({"terminal": True} if p.terminal else {}),
              **({"lanes": [p.lane_a, p.lane_b]} if p.lane_a or p.lane_b else {})}
             for p in (tile.rpaths[rotation] if tile.rpaths else ())]
    cx, cy = center(layout, h.x, h.y)
    parse = (raw or {}).get("tile") or {}
    terrain = [{"cost": t.get("cost", 0), "terrains": list(t.get("terrains") or [])}
               for t in parse.get("terrain_upgrades") or []]
    out: dict[str, Any] = {
        "id": h.id, "x": h.x, "y": h.y, "cx": round(cx, 4), "cy": round(cy, 4),
        "location": h.location, "color": tile.color, "preprinted_color": h.preprinted.color,
        "tile": None if tile.preprinted else {"name": tile.name, "copy": h.copy, "rotation": h.rotation,
                                              "id": f"{tile.name}-{h.copy}"},
        "labels": list(tile.labels or h.preprinted.labels), "terrain": terrain,
        "upgrade_cost": h.preprinted.terrain_cost if tile.preprinted else 0,
        "borders": [dict(b) for b in h.preprinted.borders], "nodes": nodes, "paths": paths,
        "reserved_for": list(h.tile_reservations), "blocked_by": list(h.blockers),
        "neighbors": {str(e): nb for e, nb in sorted(h.neighbors.items())},
    }
    if tile.stripes:
        out["stripes"] = tile.stripes
    return out


def _bounds(hexes: list[dict[str, Any]]) -> dict[str, float]:
    if not hexes:
        return {"min_x": 0, "min_y": 0, "max_x": 0, "max_y": 0}
    return {"min_x": min(h["cx"] for h in hexes) - 1, "min_y": min(h["cy"] for h in hexes) - 1,
            "max_x": max(h["cx"] for h in hexes) + 1, "max_y": max(h["cy"] for h in hexes) + 1}


def entity_colors(game: Game) -> dict[str, dict[str, str | None]]:
    """Each corporation's and minor's colours as the title data gives them, and those of corporations the
    title adds itself."""
    setup = game.defn.data.setup
    out: dict[str, dict[str, str | None]] = {}
    for raw in (setup.get("corporations") or []) + (setup.get("minors") or []):
        out[str(raw["sym"])] = {"color": raw.get("color"), "text_color": raw.get("text_color")}
    out.update(game.rules.entity_colors(game))
    return out


def tile_locations(game: Game) -> dict[str, list[Any]]:
    """Tile name -> the data's node drawing positions, for the tiles that give any."""
    out = {}
    for entry in game.defn.data.tiles.get("tiles") or []:
        locs = node_locations(entry.get("tile") or {})
        if any(loc is not None for loc in locs):
            out[str(entry.get("name"))] = locs
    return out


def preview_hex(game: Game, hex_id: str, tile_name: str, rotation: int) -> dict[str, Any]:
    """A hex as it would be drawn with `tile_name` laid at `rotation`, its tokens kept (cities keep their
    order, as an upgrade keeps them). Raises KeyError for an unknown hex or tile. Draws only: whether the
    lay is legal is the engine's question."""
    h = game.board.hexes[hex_id]
    tile = game.board.catalogue[tile_name]
    trial = h.with_state(tile, rotation % 6, h.copy, [list(s) for s in h.tokens],
                         [list(s) for s in h.reservations], list(h.tile_reservations), list(h.blockers))
    while len(trial.tokens) < len(tile.cities):
        trial.tokens.append([])
        trial.reservations.append([])
    raw = {r.get("id"): r for r in game.defn.data.map.get("hexes") or []}.get(hex_id)
    out = hex_view(game, trial, raw, tile_locations(game))
    out["tile"] = {"name": tile.name, "copy": None, "rotation": rotation % 6, "id": ""}
    return out


def map_view(game: Game, hexes: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The whole map of a live game (or only the hexes named in `hexes`)."""
    layout = game.board.rules.layout
    raw_hexes = {h.get("id"): h for h in game.defn.data.map.get("hexes") or []}
    locs = tile_locations(game)
    hexes_ = [hex_view(game, h, raw_hexes.get(hid), locs) for hid, h in game.board.hexes.items()
              if hexes is None or hid in hexes]
    return {
        "layout": layout,
        "edge_angle0": EDGE_ANGLE0[layout],
        "corners": [list(c) for c in corners(layout)],
        "edges": {str(e): list(edge_point(layout, e)) for e in range(6)},
        "bounds": _bounds(hexes_),
        "phase": game.phase.name,
        "phase_colors": list(game.phase.tiles),
        "hexes": hexes_,
        "entities": entity_colors(game),
    }


def tile_tray(game: Game) -> list[dict[str, Any]]:
    """The tiles not yet on the map, each drawn alone (rotation 0, no place, no tokens) with how many copies
    are left of how many: the players' tray, in the order of the data's colours (yellow before green ...)."""
    supply = game.board.supply
    blank = next(iter(game.board.hexes.values()))
    locs = tile_locations(game)
    out = []
    for name, total in supply.counts.items():
        tile = game.board.catalogue.get(name)
        if tile is None or tile.preprinted:
            continue
        left = None if total is None else supply.available(name)
        alone = blank.with_state(tile, 0, 0, [[] for _ in tile.cities], [[] for _ in tile.cities], [], [])
        drawn = hex_view(game, alone, None, locs)
        drawn.update(id=f"tray-{name}", location=None, labels=list(tile.labels or ()), terrain=[], upgrade_cost=0,
                     borders=[], reserved_for=[], blocked_by=[], cx=0.0, cy=0.0)
        out.append({"name": name, "color": tile.color, "total": total, "left": left, "hex": drawn})
    order = {c: i for i, c in enumerate(("yellow", "green", "brown", "gray", "grey", "purple", "red", "blue"))}
    return sorted(out, key=lambda t: (order.get(t["color"], 99), _tile_sort_key(t["name"])))


def _tile_sort_key(name: str) -> tuple[int, str]:
    digits = "".join(ch for ch in name if ch.isdigit())
    return (int(digits) if digits else 1 << 30, name)

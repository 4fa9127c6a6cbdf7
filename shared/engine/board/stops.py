"""Stop to stop along track, for a title's counts of the stops a train passes (1825's reach of an upgraded
station): which stops the track from one stop leads to without passing another, walked a hex at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .grid import NodeRef
from .tiles import NODE_BASE

if TYPE_CHECKING:
    from .routes import Grid


def adjacent_stops(board: Grid, hex_id: str, code: int) -> list[NodeRef]:
    """Stops reachable from a stop along track without passing another stop (each once, the stop itself left
    out)."""
    return stops_beside(board, hex_id, code)[0]


def stops_beside(board: Grid, hex_id: str, code: int) -> tuple[list[NodeRef], frozenset[str]]:
    """`adjacent_stops`, with the hexes whose track the walk read: the answer stays the same while their tiles
    do (a trial lay elsewhere leaves it). What the track from one end of a tile reaches inside its hex is read
    off the tile's table (`_stop_table`), so only the hexes beyond are looked up."""
    hexes = board.hexes
    state = hexes[hex_id]
    stops, sides = _stop_table(state.tile, state.rotation).get(code, ((), ()))
    found = dict.fromkeys((hex_id, c) for c in stops)
    seen = {(hex_id, code)}
    stack = []
    for side in sides:
        nb = state.neighbors.get(side)
        if nb is not None and (nb, (side + 3) % 6) not in seen:
            seen.add((nb, (side + 3) % 6))
            stack.append((nb, (side + 3) % 6))
    while stack:
        h_id, end = stack.pop()
        state = hexes[h_id]
        stops, sides = _stop_table(state.tile, state.rotation).get(end, ((), ()))
        for c in stops:
            found[(h_id, c)] = None
        for side in sides:
            nb = state.neighbors.get(side)
            if nb is not None and (nb, (side + 3) % 6) not in seen:
                seen.add((nb, (side + 3) % 6))
                stack.append((nb, (side + 3) % 6))
    found.pop((hex_id, code), None)
    return list(found), frozenset(h for h, _ in seen)


def _stop_table(tile: Any, rotation: int) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Per end of the tile in this rotation: the stops (node codes) and the hex sides its track reaches without
    passing a stop, through junctions (tile 60's) any way. Worked out once per tile (as `_walk_table`)."""
    tables = tile.__dict__.get("_stop_tables")
    if tables is None:
        tables = []
        for rot in range(6):
            by_end, paths = tile.by_end[rot], tile.rpaths[rot]
            table: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
            for start in by_end:
                stops: dict[int, None] = {}
                sides: dict[int, None] = {}
                todo, seen = [start], {start}
                while todo:
                    end = todo.pop()
                    for pi in by_end.get(end, ()):
                        other = paths[pi].other(end)
                        if other < NODE_BASE:
                            sides[other] = None
                        elif tile.nodes[other - NODE_BASE].is_stop:
                            stops[other] = None
                        elif other not in seen:  # a junction: the track goes on
                            seen.add(other)
                            todo.append(other)
                table[start] = (tuple(stops), tuple(sides))
            tables.append(table)
        tile.__dict__["_stop_tables"] = tables
    return tables[rotation]

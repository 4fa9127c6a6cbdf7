"""Hex geometry: edge numbering and neighbour directions.

Edges are numbered 0-5 clockwise (see `data/games/conventions.json`); edge e of one hex faces edge
(e + 3) % 6 of its neighbour on every layout, so most of the engine never needs the layout at all.
The layout only matters to compute neighbours from coordinates, which the map data already lists.
"""

from __future__ import annotations

EDGES = range(6)

# edge -> (dx, dy) in the engine's doubled coordinates, per layout
DIRECTIONS: dict[str, dict[int, tuple[int, int]]] = {
    "pointy": {0: (-1, 1), 1: (-2, 0), 2: (-1, -1), 3: (1, -1), 4: (2, 0), 5: (1, 1)},
    "flat": {0: (0, 2), 1: (-1, 1), 2: (-1, -1), 3: (0, -2), 4: (1, -1), 5: (1, 1)},
}


def invert(edge: int) -> int:
    """The edge of the neighbouring hex that faces `edge`."""
    return (edge + 3) % 6


def rotate(edge: int, rotation: int) -> int:
    """Where edge `edge` of an unrotated tile lies once the tile is turned by `rotation` steps."""
    return (edge + rotation) % 6

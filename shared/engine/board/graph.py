"""Connectivity from an entity's station tokens: which edges it may build from, which nodes it reaches.

The walk follows track from every city holding one of the entity's tokens; it does not continue through a
city whose slots are all filled by other companies, nor past a terminal path (off-boards). Results are
cached on the Board and dropped whenever a tile or token changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .hexes import invert
from .tiles import NODE_BASE

if TYPE_CHECKING:
    from .board import Board

NodeRef = tuple[str, int]  # (hex id, node code)
PathRef = tuple[str, int]  # (hex id, path index in the current rotation table)


@dataclass
class Reach:
    """What one entity can reach. `edges[hex]` = edges of that hex its track touches (lay legality)."""

    edges: dict[str, set[int]] = field(default_factory=dict)
    nodes: set[NodeRef] = field(default_factory=set)
    paths: set[PathRef] = field(default_factory=set)
    token_nodes: set[NodeRef] = field(default_factory=set)


def compute_reach(board: Board, entity: str) -> Reach:
    reach = Reach()
    hexes = board.hexes
    edges = reach.edges
    stack: list[tuple[str, int]] = []  # (hex, end code) arrivals: a node, or an edge entered from outside
    for hex_id, state in hexes.items():
        for ci, slots in enumerate(state.tokens):
            if entity in slots:
                code = state.tile.city_code(ci)
                reach.token_nodes.add((hex_id, code))
                reach.nodes.add((hex_id, code))
                edges.setdefault(hex_id, set()).update(state.neighbors)
                stack.append((hex_id, code))
    if not stack:  # no token yet: the home hexes stand in for it
        for hex_id, city_index in board.homes.get(entity, ()):
            state = hexes[hex_id]
            edges.setdefault(hex_id, set()).update(state.neighbors)
            for i, node in enumerate(state.tile.nodes):
                if node.is_city and (city_index is None or node.index == city_index):
                    reach.nodes.add((hex_id, NODE_BASE + i))
                    stack.append((hex_id, NODE_BASE + i))
    allowed = getattr(board, "allowed_track", {}).get(entity)
    seen_arrivals: set[tuple[str, int]] = set(stack)
    walked: set[tuple[str, int, int]] = set()  # (hex, path, entry end): a path may be walked both ways
    while stack:
        hex_id, end = stack.pop()
        state = hexes[hex_id]
        tile, rot = state.tile, state.rotation
        paths = tile.rpaths[rot]
        for pi in tile.by_end[rot].get(end, ()):
            if (hex_id, pi, end) in walked:
                continue
            walked.add((hex_id, pi, end))
            path = paths[pi]
            if allowed is not None and path.track not in allowed:
                continue
            reach.paths.add((hex_id, pi))
            for e in path.ends():
                if e < NODE_BASE:
                    edges.setdefault(hex_id, set()).add(e)
                    nb = state.neighbors.get(e)
                    if nb is not None:
                        edges.setdefault(nb, set()).add(invert(e))
            other = path.other(end)
            if other >= NODE_BASE:
                reach.nodes.add((hex_id, other))
                if path.terminal or board.node_blocks(hex_id, other, entity):
                    continue
                arrival = (hex_id, other)
            else:
                nb = state.neighbors.get(other)
                if nb is None:
                    continue
                arrival = (nb, invert(other))
            if arrival not in seen_arrivals:
                seen_arrivals.add(arrival)
                stack.append(arrival)
    return reach

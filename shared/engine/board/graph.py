"""Connectivity from an entity's station tokens: which edges it may build from, which nodes it reaches.

The walk follows track from every city holding one of the entity's tokens; it does not continue through a
city whose slots are all filled by other companies, nor past a terminal path, nor (`BoardRules.
offboards_end_track`) through an off-board area: an off-board is reached but ends the track; the map data
draws its paths as ordinary track into the node, so the node's kind decides, as it does for routes. Results
are cached on the Board and dropped whenever a tile or token changes.
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
    # (hex, end code, path arrived by) arrivals: a node (and the path that led to it, never walked back: track
    # does not reverse at a town or city), or an edge entered from outside (path -1)
    stack: list[tuple[str, int, int]] = []
    for hex_id, state in hexes.items():
        for ci, slots in enumerate(state.tokens):
            if entity in slots:
                code = state.tile.city_code(ci)
                reach.token_nodes.add((hex_id, code))
                reach.nodes.add((hex_id, code))
                edges.setdefault(hex_id, set()).update(state.neighbors)
                stack.append((hex_id, code, -1))
    if not stack:  # no token yet: the home hexes stand in for it
        for hex_id, city_index in board.homes.get(entity, ()):
            state = hexes[hex_id]
            edges.setdefault(hex_id, set()).update(state.neighbors)
            for i, node in enumerate(state.tile.nodes):
                if node.is_city and (city_index is None or node.index == city_index):
                    reach.nodes.add((hex_id, NODE_BASE + i))
                    stack.append((hex_id, NODE_BASE + i, -1))
    for hex_id, code in sorted(getattr(board, "virtual_stations", {}).get(entity, ())):
        # a stop the entity builds and runs from as if it had a station there (1833NE P4/P6)
        reach.token_nodes.add((hex_id, code))
        reach.nodes.add((hex_id, code))
        stack.append((hex_id, code, -1))
    allowed = getattr(board, "allowed_track", {}).get(entity)
    # each (hex, end) arrival is expanded once, so each path is walked at most once from each of its ends
    seen_arrivals: set[tuple[str, int, int]] = set(stack)
    nodes_add, paths_add = reach.nodes.add, reach.paths.add
    offboards_end = board.rules.offboards_end_track
    while stack:
        hex_id, end, via = stack.pop()
        state = hexes[hex_id]
        tile, rot = state.tile, state.rotation
        ends = tile.by_end[rot].get(end)
        if not ends:
            continue
        paths = tile.rpaths[rot]
        neighbors = state.neighbors
        hex_edges = edges.get(hex_id)
        for pi in ends:
            if pi == via:
                continue
            path = paths[pi]
            if allowed is not None and path.track not in allowed:
                continue
            paths_add((hex_id, pi))
            a, b = path.a, path.b
            for e in (a, b):
                if e < NODE_BASE:
                    if hex_edges is None:
                        hex_edges = edges[hex_id] = set()
                    hex_edges.add(e)
                    nb = neighbors.get(e)
                    if nb is not None:
                        nb_edges = edges.get(nb)
                        if nb_edges is None:
                            nb_edges = edges[nb] = set()
                        nb_edges.add((e + 3) % 6)
            other = b if a == end else a
            if other >= NODE_BASE:
                nodes_add((hex_id, other))
                if path.terminal:
                    continue
                node = tile.nodes[other - NODE_BASE]
                kind = node.kind
                if kind == "city":  # Board.node_blocks: every slot holds another company's token
                    slots = state.tokens[node.index]
                    if slots and entity not in slots and None not in slots:
                        continue
                elif offboards_end and kind == "offboard":
                    continue
                arrival = (hex_id, other, pi)
            else:
                nb = neighbors.get(other)
                if nb is None:
                    continue
                arrival = (nb, (other + 3) % 6, -1)
            if arrival not in seen_arrivals:
                seen_arrivals.add(arrival)
                stack.append(arrival)
    return reach


def _adjacent_stops(board: Board, hex_id: str, code: int) -> list[NodeRef]:
    """Stops reachable from a stop along track without passing another stop."""
    out: list[NodeRef] = []
    stack = [(hex_id, code)]
    seen = {(hex_id, code)}
    while stack:
        h_id, end = stack.pop()
        state = board.hexes[h_id]
        tile, rot = state.tile, state.rotation
        for pi in tile.by_end[rot].get(end, ()):
            other = tile.rpaths[rot][pi].other(end)
            if other >= NODE_BASE:
                if tile.nodes[other - NODE_BASE].is_stop:
                    if (h_id, other) != (hex_id, code):
                        out.append((h_id, other))
                    continue
                arrival = (h_id, other)  # a junction: keep walking
            else:
                nb = state.neighbors.get(other)
                if nb is None:
                    continue
                arrival = (nb, invert(other))
            if arrival not in seen:
                seen.add(arrival)
                stack.append(arrival)
    return out

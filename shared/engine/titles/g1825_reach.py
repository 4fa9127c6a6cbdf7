"""How far a corporation's trains reach, for 1825's "an upgraded station must be reachable" rule.

Rule (docs/rules-1825.md, "Upgrading a station needs a train that reaches it"): the distance to a stop is
the number of stops a train passes before it, counting the station it starts from and not the stop itself.
A halt (a town with visit cost 0, tile 11) is passed without counting; for a U3 only cities count. A city
full of other companies' stations is reached but not passed.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from ..board.graph import NodeRef, _adjacent_stops
from ..board.tiles import NODE_BASE

if TYPE_CHECKING:
    from ..board import Board


def passed_stops(board: Board, entity: str, *, cities_only: bool = False) -> dict[NodeRef, int]:
    """Fewest counted stops passed from one of the entity's stations to each stop it reaches."""
    hexes = board.hexes
    dist: dict[NodeRef, int] = {}
    starts: set[NodeRef] = set()
    queue: deque[NodeRef] = deque()
    for hex_id, state in hexes.items():
        for ci, slots in enumerate(state.tokens):
            if entity in slots:
                ref = (hex_id, state.tile.city_code(ci))
                dist[ref] = 0
                starts.add(ref)
                queue.append(ref)
    done: set[NodeRef] = set()
    while queue:
        ref = queue.popleft()
        if ref in done:
            continue
        done.add(ref)
        hex_id, code = ref
        if ref not in starts and board.node_blocks(hex_id, code, entity):
            continue
        node = hexes[hex_id].tile.nodes[code - NODE_BASE]
        weight = 1 if node.visit_cost > 0 and (node.is_city or not cities_only) else 0
        for nxt in _adjacent_stops(board, hex_id, code):
            d = dist[ref] + weight
            if d < dist.get(nxt, 1 << 30):
                dist[nxt] = d
                if weight:
                    queue.append(nxt)
                else:
                    queue.appendleft(nxt)
    return dist

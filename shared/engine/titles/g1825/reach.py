"""How far a corporation's trains reach, for 1825's "an upgraded station must be reachable" rule.

Rule (docs/rules-1825.md, "Upgrading a station needs a train that reaches it"): the distance to a stop is
the number of stops a train passes before it, counting the station it starts from and not the stop itself,
along a route a train may run (no track twice, no stop twice). A halt (a town with visit cost 0, tile 11) is
passed without counting; for a U3 only cities count. A city full of other companies' stations is reached but
not passed.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from ...board.graph import NodeRef, adjacent_stops
from ...board.tiles import NODE_BASE

if TYPE_CHECKING:
    from ...board import Board


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
        for nxt in adjacent_stops(board, hex_id, code):
            d = dist[ref] + weight
            if d < dist.get(nxt, 1 << 30):
                dist[nxt] = d
                if weight:
                    queue.append(nxt)
                else:
                    queue.appendleft(nxt)
    return dist


def reaches(board: Board, entity: str, hex_id: str, limit: int, *, cities_only: bool = False) -> bool:
    """Whether a train could get from one of the entity's stations to a stop on `hex_id` having passed
    fewer than `limit` counted stops, along a route a train may run: no piece of track (hex edge) used
    twice, no stop visited twice, never back out of a stop along the track it came in on.

    The fewest-stops count (`passed_stops`) is a lower bound of this: it is asked first, and the search
    of routes runs only when the bound leaves the answer open.
    """
    bound = passed_stops(board, entity, cities_only=cities_only)
    if not any(d < limit for (h, _), d in bound.items() if h == hex_id):
        return False
    hexes = board.hexes

    def weight(ref: NodeRef) -> int:
        node = hexes[ref[0]].tile.nodes[ref[1] - NODE_BASE]
        return 1 if node.visit_cost > 0 and (node.is_city or not cities_only) else 0

    def legs(start: NodeRef, used: frozenset[frozenset[tuple[str, int]]]
             ) -> list[tuple[NodeRef, frozenset[frozenset[tuple[str, int]]]]]:
        """The stops one leg of track leads to from `start`, with the hex edges it used."""
        out: list[tuple[NodeRef, frozenset[frozenset[tuple[str, int]]]]] = []
        stack = [(start[0], start[1], -1, used)]
        while stack:
            h_id, end, via, edges = stack.pop()
            state = hexes[h_id]
            tile, rot = state.tile, state.rotation
            for pi in tile.by_end[rot].get(end, ()):
                if pi == via:
                    continue
                other = tile.rpaths[rot][pi].other(end)
                if other >= NODE_BASE:
                    if tile.nodes[other - NODE_BASE].is_stop:
                        out.append(((h_id, other), edges))
                    else:
                        stack.append((h_id, other, pi, edges))  # a junction: the track goes on
                    continue
                nb = state.neighbors.get(other)
                if nb is None:
                    continue
                key = frozenset({(h_id, other), (nb, (other + 3) % 6)})
                if key not in edges:
                    stack.append((nb, (other + 3) % 6, -1, edges | {key}))
        return out

    def search(ref: NodeRef, passed: int, used: frozenset[frozenset[tuple[str, int]]],
               visited: frozenset[NodeRef]) -> bool:
        if ref[0] == hex_id and passed < limit:
            return True
        if visited and board.node_blocks(ref[0], ref[1], entity):
            return False  # a city full of others' stations ends the route
        passed += weight(ref)
        if passed >= limit:
            return False
        seen = visited | {ref}
        for nxt, edges in legs(ref, used):
            if nxt not in seen and bound.get(nxt, limit) < limit and search(nxt, passed, edges, seen):
                return True
        return False

    starts = [(h, state.tile.city_code(ci)) for h, state in hexes.items()
              for ci, slots in enumerate(state.tokens) if entity in slots]
    return any(search(ref, 0, frozenset(), frozenset()) for ref in starts)

"""How far a corporation's trains reach, for 1825's "an upgraded station must be reachable" rule.

Rule (docs/rules-1825.md, "Upgrading a station needs a train that reaches it"): the distance to a stop is
the number of stops a train passes before it, counting the station it starts from and not the stop itself,
along a route a train may run (no track twice, no stop twice). A halt (a town with visit cost 0, tile 11) is
passed without counting; for a U3 only cities count. A city full of other companies' stations is reached but
not passed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...board.grid import NodeRef
from ...board.stops import stops_beside
from ...board.tiles import NODE_BASE

if TYPE_CHECKING:
    from ...board import Board


def passed_stops(board: Board, entity: str, *, cities_only: bool = False, limit: int | None = None,
                 trial: tuple[str, dict[Any, Any]] | None = None,
                 onward: dict[NodeRef, list[NodeRef]] | None = None) -> dict[NodeRef, int]:
    """Fewest counted stops passed from one of the entity's stations to each stop it reaches; with `limit`,
    only the counts below it are sure (the rest may be missing or too high): the stops come off the queue
    fewest first (a 0-1 breadth-first search), so once one at `limit` comes off, every stop below it has.

    `trial`: (hex, the board's `position_memo` before a trial lay on that hex): the stops beside a stop whose
    walk never read that hex are the same on the board with and without the lay, so they are kept there
    and shared by every lay tried at the position.

    `onward`: filled with the stops beside each stop the search went on from (`reaches` turns it round)."""
    hexes = board.hexes
    laid, known = trial if trial is not None else ("", None)

    def beside(hex_id: str, code: int) -> list[NodeRef]:
        if known is None or hex_id == laid:
            return stops_beside(board, hex_id, code)[0]
        kept = known.get(("stops beside", hex_id, code))
        if kept is None or laid in kept[1]:
            kept = stops_beside(board, hex_id, code)
            if laid not in kept[1]:
                known[("stops beside", hex_id, code)] = kept
        return kept[0]  # type: ignore[no-any-return]

    dist: dict[NodeRef, int] = {}
    starts: set[NodeRef] = set()
    queue: deque[NodeRef] = deque()
    for hex_id, ci in board.station_cities(entity):  # (the map's cities holding its stations, kept by the board)
        ref = (hex_id, hexes[hex_id].tile.city_code(ci))
        dist[ref] = 0
        starts.add(ref)
        queue.append(ref)
    done: set[NodeRef] = set()
    while queue:
        ref = queue.popleft()
        if ref in done:
            continue
        if limit is not None and dist[ref] >= limit:
            break
        done.add(ref)
        hex_id, code = ref
        if ref not in starts and board.node_blocks(hex_id, code, entity):
            continue
        node = hexes[hex_id].tile.nodes[code - NODE_BASE]
        weight = 1 if node.visit_cost > 0 and (node.is_city or not cities_only) else 0
        nexts = beside(hex_id, code)
        if onward is not None:
            onward[ref] = nexts
        for nxt in nexts:
            _relax(queue, dist, nxt, dist[ref] + weight, weight)
    return dist


def _relax(queue: deque[NodeRef], dist: dict[NodeRef, int], ref: NodeRef, d: int, weight: int) -> None:
    """A 0-1 breadth-first search's step: `ref` at `d` if that is fewer, behind the queue for a counted step,
    in front of it for a free one, so stops come off fewest first."""
    if d < dist.get(ref, 1 << 30):
        dist[ref] = d
        if weight:
            queue.append(ref)
        else:
            queue.appendleft(ref)


def reaches(board: Board, entity: str, hex_id: str, limit: int, *, cities_only: bool = False,
            known: dict[Any, Any] | None = None) -> bool:
    """Whether a train could get from one of the entity's stations to a stop on `hex_id` having passed
    fewer than `limit` counted stops, along a route a train may run: no piece of track (hex edge) used
    twice, no stop visited twice, never back out of a stop along the track it came in on.

    The fewest-stops count (`passed_stops`) is a lower bound of this: it is asked first, and the search
    of routes runs only when the bound leaves the answer open. The search leaves out a stop from which
    even the fewest-stops count to `hex_id` (`left`) would pass `limit`: a route on from there passes at
    least that many, so it cannot get there in time (a branch that cannot succeed, the answer is the same).

    `known`: the board's `position_memo` before the trial lay on `hex_id` being asked (`passed_stops`).
    """
    onward: dict[NodeRef, list[NodeRef]] = {}
    bound = passed_stops(board, entity, cities_only=cities_only, limit=limit,  # only counts below it are read
                         trial=(hex_id, known) if known is not None else None, onward=onward)
    targets = [ref for ref, d in bound.items() if ref[0] == hex_id and d < limit]
    if not targets:
        return False
    hexes = board.hexes

    def weight(ref: NodeRef) -> int:
        node = hexes[ref[0]].tile.nodes[ref[1] - NODE_BASE]
        return 1 if node.visit_cost > 0 and (node.is_city or not cities_only) else 0

    left = _stops_left(onward, targets, limit, weight)

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
            if nxt not in seen and bound.get(nxt, limit) < limit and passed + left.get(nxt, limit) < limit \
                    and search(nxt, passed, edges, seen):
                return True
        return False

    starts = [(h, hexes[h].tile.city_code(ci)) for h, ci in board.station_cities(entity)]
    return any(search(ref, 0, frozenset(), frozenset()) for ref in starts)


def _stops_left(onward: dict[NodeRef, list[NodeRef]], targets: list[NodeRef], limit: int,
                weight: Callable[[NodeRef], int]) -> dict[NodeRef, int]:
    """Fewest counted stops a route passes from each stop (itself counted) to one of `targets` (0 there),
    below `limit`, along the steps `passed_stops` went on by (`onward`: every stop a route within `limit`
    goes on from is among them, not blocked, and a leg of track leads only to a stop beside its own): the
    same 0-1 search turned round."""
    back: dict[NodeRef, list[NodeRef]] = {}
    for ref, nexts in onward.items():
        for nxt in nexts:
            back.setdefault(nxt, []).append(ref)
    left = dict.fromkeys(targets, 0)
    queue: deque[NodeRef] = deque(targets)
    done: set[NodeRef] = set()
    while queue:
        ref = queue.popleft()
        if ref in done:
            continue
        if left[ref] >= limit:
            break
        done.add(ref)
        for prev in back.get(ref, ()):
            w = weight(prev)
            _relax(queue, left, prev, left[ref] + w, w)
    return left

"""Revenue-maximising route search.

Candidate routes per train are enumerated as simple node sequences over "connections" (track between two
stops), scored by the same checks as recorded routes, and the best edge-disjoint combination is chosen by
branch and bound. Limits keep it bounded on large networks; the result is always a legal run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import IllegalAction
from .hexes import invert
from .routes import DefaultRouteRules, EdgeKey, NodeRef, Route, RouteContext, evaluate
from .tiles import NODE_BASE
from .trains import TrainKind

if TYPE_CHECKING:
    from .routes import Grid


@dataclass(frozen=True)
class Connection:
    a: NodeRef
    b: NodeRef
    hexes: tuple[str, ...]
    paths: tuple[tuple[str, int], ...]
    keys: frozenset[EdgeKey]


def _connections(board: Grid, entity: str) -> dict[NodeRef, list[Connection]]:
    """Track between pairs of stops the entity reaches, in both directions."""
    reach = board.reach(entity)
    allowed = getattr(board, "allowed_track", {}).get(entity)  # track kinds the entity may run on, if limited
    out: dict[NodeRef, list[Connection]] = {}
    for hex_id, code in reach.nodes:
        h = board.hexes[hex_id]
        if not h.tile.nodes[code - NODE_BASE].is_stop:
            continue
        start = (hex_id, code)
        rot = h.rotation
        for pi in h.tile.by_end[rot].get(code, ()):
            path = h.tile.rpaths[rot][pi]
            if allowed is not None and path.track not in allowed:
                continue
            keys = []
            for end, lane in ((path.a, path.lane_a), (path.b, path.lane_b)):
                if end < NODE_BASE:
                    keys.append((hex_id, end, lane))
            other = path.other(code)
            if other >= NODE_BASE:
                out.setdefault(start, []).append(Connection(start, (hex_id, other), (hex_id,), ((hex_id, pi),),
                                                            frozenset(keys)))
                continue
            _extend(board, start, [hex_id], [(hex_id, pi)], keys, hex_id, other, out, allowed=allowed)
    return out


def _extend(board: Grid, start: NodeRef, hexes: list[str], paths: list, keys: list, hex_id: str, edge: int,
            out: dict[NodeRef, list[Connection]], depth: int = 0, allowed: frozenset[str] | None = None) -> None:
    if depth > 40:
        return
    nb = board.hexes[hex_id].neighbors.get(edge)
    if nb is None:
        return
    h = board.hexes[nb]
    arrival = invert(edge)
    for pi in h.tile.by_end[h.rotation].get(arrival, ()):
        path = h.tile.rpaths[h.rotation][pi]
        if allowed is not None and path.track not in allowed:
            continue
        pk = [(nb, e, lane) for e, lane in ((path.a, path.lane_a), (path.b, path.lane_b)) if e < NODE_BASE]
        if any(k in keys for k in pk):
            continue
        other = path.other(arrival)
        if other >= NODE_BASE:
            if h.tile.nodes[other - NODE_BASE].is_stop:
                out.setdefault(start, []).append(
                    Connection(start, (nb, other), tuple(hexes + [nb]), tuple(paths + [(nb, pi)]),
                               frozenset(keys + pk)))
            continue
        _extend(board, start, hexes + [nb], paths + [(nb, pi)], keys + pk, nb, other, out, depth + 1, allowed)


def _walk(board: Grid, entity: str, conns: dict[NodeRef, list[Connection]], stops_cap: int, blocking: bool,
          limit: int, visit: Callable[[list[NodeRef], list[Connection]], None]) -> int:
    """Every simple stop sequence along `conns` of up to `stops_cap` + 1 stops, from each stop in sorted
    order, depth first, not through a city other companies fill; `visit` sees each of two stops or more.
    Stops after `limit` steps; returns the steps taken (`limit` + 1 or more: it was cut short)."""
    steps = [0]

    def dfs(seq: list[NodeRef], used: list[Connection], keys: frozenset[EdgeKey]) -> None:
        if steps[0] >= limit:
            steps[0] += 1
            return
        steps[0] += 1
        if len(seq) >= 2:
            visit(seq, used)
        if len(seq) >= stops_cap + 1:
            return
        last = seq[-1]
        if blocking and len(seq) > 1 and board.node_blocks(last[0], last[1], entity):
            return
        for c in conns.get(last, ()):
            if c.b in seq or keys & c.keys:
                continue
            dfs(seq + [c.b], used + [c], keys | c.keys)

    for start in sorted(conns):
        dfs([start], [], frozenset())
    return steps[0]


def fits_search(board: Grid, entity: str, trains: dict[str, TrainKind], colors: tuple[str, ...],
                phase_name: str = "", *, limit: int, max_stops: int = 8,
                rules: DefaultRouteRules | None = None, conns: dict[NodeRef, list[Connection]] | None = None
                ) -> bool:
    """Whether the search of `best_routes` walks every train's sequences in at most `limit` steps (its
    result then does not depend on `search_limit`); the walk alone, no run checked, is cheap. `conns`: the
    entity's `_connections`, when the caller has them."""
    rules = rules or board.rules.route_rules
    ctx = RouteContext(board, entity, colors, phase_name)
    if conns is None:
        conns = _connections(board, entity)
    for kind in set(trains.values()):
        blocking = rules.check_blocking(ctx, Route("", kind, []))
        stops_cap = min(kind.stop_count, max_stops) if kind.is_numeric else max_stops
        if _walk_exceeds(board, entity, conns, stops_cap, blocking, limit):
            return False
    return True


def _walk_exceeds(board: Grid, entity: str, conns: dict[NodeRef, list[Connection]], stops_cap: int,
                  blocking: bool, limit: int) -> bool:
    """Whether `_walk` takes more than `limit` steps, found with its steps alone (each stop and each track
    segment a bit: a sequence's stops and segments are two ints) and given up at the first step over."""
    bits: dict[Any, int] = {}
    for stop, cs in conns.items():  # a stop is a pair, a segment a triple: never the same key
        bits.setdefault(stop, 1 << len(bits))
        for c in cs:
            bits.setdefault(c.b, 1 << len(bits))
            for k in c.keys:
                bits.setdefault(k, 1 << len(bits))
    ways: dict[NodeRef, list[tuple[NodeRef, int, int]]] = {}  # each stop's connections: (next, its bit, keys)
    for stop, cs in conns.items():
        out = ways[stop] = []
        for c in cs:
            mask = 0
            for k in c.keys:
                mask |= bits[k]
            out.append((c.b, bits[c.b], mask))
    steps = 0
    node_blocks = board.node_blocks

    def dfs(last: NodeRef, n: int, seen: int, keys: int) -> bool:  # True: over the limit
        nonlocal steps
        steps += 1
        if steps > limit:
            return True
        if n >= stops_cap + 1 or (blocking and n > 1 and node_blocks(last[0], last[1], entity)):
            return False
        for b, b_bit, mask in ways.get(last, ()):
            if not seen & b_bit and not keys & mask and dfs(b, n + 1, seen | b_bit, keys | mask):
                return True
        return False

    return any(dfs(start, 1, bits[start], 0) for start in sorted(conns))


def _candidates(board: Grid, entity: str, train_id: str, kind: TrainKind, ctx: RouteContext,
                conns: dict[NodeRef, list[Connection]], limit: int, max_stops: int,
                rules: DefaultRouteRules | None = None) -> list[Route]:
    if rules is None:
        rules = board.rules.route_rules
    blocking = rules.check_blocking(ctx, Route(train_id, kind, []))
    needs_token = rules.needs_token(ctx, [Route(train_id, kind, [])], 0)
    # a run scores the same both ways round on direction-free rules: score only the way round found first
    # (the DFS starts from the stops in sorted order), which halves the work and keeps the result
    one_way = getattr(rules, "direction_free", False)
    stops_cap = min(kind.stop_count, max_stops) if kind.is_numeric else max_stops
    found: dict[tuple, Route] = {}

    def score(seq: list[NodeRef], used: list[Connection]) -> None:
        if one_way and seq[-1] < seq[0]:
            return
        if needs_token and not any(ctx.tokened(s) for s in seq):
            return  # every check would pass but the token one
        route = Route(train_id, kind, list(seq), [p for c in used for p in c.paths],
                      [k for c in used for k in c.keys], [list(c.hexes) for c in used])
        try:
            evaluate(ctx, [route], rules)
        except IllegalAction:
            return
        key = (frozenset(route.keys), frozenset(seq))
        if key not in found or found[key].revenue < route.revenue:
            found[key] = route

    _walk(board, entity, conns, stops_cap, blocking, limit, score)
    return sorted(found.values(), key=lambda r: (-r.revenue, -len(r.stops)))  # ties: the longer run


def best_routes(board: Grid, entity: str, trains: dict[str, TrainKind], colors: tuple[str, ...],
                phase_name: str = "", *, per_train: int = 40, search_limit: int = 20000,
                max_stops: int = 8, rules: DefaultRouteRules | None = None,
                combination_limit: int = 10_000) -> list[dict[str, Any]]:
    """The best edge-disjoint set of routes (one per train at most), as recorded-route dicts. `rules`
    replaces the board's registered route rules (titles whose checks need game state).
    `combination_limit` bounds the combination search (many trains on a dense network would otherwise
    take minutes); when reached, the best set found so far is returned, which is still a legal run."""
    ctx = RouteContext(board, entity, colors, phase_name)
    conns = _connections(board, entity)
    options: list[tuple[str, list[Route]]] = []
    by_kind: dict[TrainKind, list[Route]] = {}  # two trains of a kind have the same candidate runs
    for train_id, kind in sorted(trains.items()):
        if kind in by_kind:
            cands = [replace(r, train_id=train_id) for r in by_kind[kind]]
        else:
            cands = _candidates(board, entity, train_id, kind, ctx, conns, search_limit, max_stops, rules)[:per_train]
            by_kind[kind] = cands
        options.append((train_id, cands))
    return [_to_record(ctx, r) for r in combine(options, combination_limit)]


def combine(options: list[tuple[str, list[Route]]], combination_limit: int = 10_000) -> list[Route]:
    """The best edge-disjoint choice of at most one candidate run per train (`options`: each train's
    candidates, best first), by branch and bound; within `combination_limit` steps, the best found so far."""
    best: list[Any] = [0, []]
    ceilings = [max((r.revenue for r in c), default=0) for _, c in options]
    still_possible = [sum(ceilings[i:]) for i in range(len(options) + 1)]
    keysets = [[frozenset(r.keys) for r in c] for _, c in options]
    # trains whose candidates are the same runs (two 4-trains) are interchangeable: the later one only
    # takes a candidate at or after the earlier one's, so each combination is searched once, not k! times
    shapes = [tuple((tuple(r.stops), r.revenue) for r in c) for _, c in options]
    twin = [i > 0 and shapes[i] == shapes[i - 1] for i in range(len(options))]
    budget = [combination_limit]

    def search(i: int, keys: frozenset, total: int, chosen: list[Route], after: int) -> None:
        if total + still_possible[i] <= best[0] or budget[0] <= 0:
            return
        budget[0] -= 1
        if i == len(options):
            best[0], best[1] = total, list(chosen)
            return
        cands = options[i][1]
        first = after if twin[i] else 0
        for index in range(first, len(cands)):
            route, rk = cands[index], keysets[i][index]
            if keys & rk:
                continue
            search(i + 1, keys | rk, total + route.revenue, chosen + [route], index)
        search(i + 1, keys, total, chosen, len(cands))  # this train stays home, and so do its twins after it

    search(0, frozenset(), 0, [], 0)
    return best[1]


def _to_record(ctx: RouteContext, route: Route) -> dict[str, Any]:
    hexes = [s[0] for s in route.stops]
    return {"train": route.train_id, "connections": route.chains, "hexes": hexes,
            "nodes": [ctx.name(s) for s in route.stops], "revenue": route.revenue,
            "revenue_str": "-".join(hexes)}

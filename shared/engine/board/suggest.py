"""The run an offer suggests, found within a bound of work (issue 47: legal-actions must cost a fraction of
loading the game, and the full search of `autorouter` takes a second on a late 1828 map).

On a small network (the full search walks every stop sequence within `EXACT_STEPS`) the offer keeps the
full search's run. On a larger one the search starts where every run must pass, the entity's stations: from
each ("anchor") it walks "arms", simple sequences of stops along the entity's track, richest next stop
first, within `ARM_BUDGET` steps shared between the anchors. A run is two arms of one anchor leaving it by
different ways, joined there (or one arm); the joins are ranked by what their stops pay, the best
`EVALUATIONS` are checked by the same `evaluate` as any recorded run, and the same combination search picks
one run per train. What is suggested is therefore always a legal run; only how hard the search looks for the
best one is bounded. The rules never use this search (a Stadtbahn's automatic run, 1825's repayment check
keep `autorouter.best_routes`), and an offer falls back to the full search when this one finds nothing or
its run is refused (`offered_run`), so the full search still decides when no run is offered."""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import IllegalAction
from .autorouter import Connection, _connections, _to_record, best_routes, combine, fits_search
from .routes import DefaultRouteRules, EdgeKey, NodeRef, Route, RouteContext, check_distance, evaluate
from .trains import TrainKind

if TYPE_CHECKING:
    from .board import Board

EXACT_STEPS = 300  # a network the full search walks within this many steps gets its exact best run
ARM_BUDGET = 800
EVALUATIONS = 120
ARMS_PER_WAY = 4  # per anchor, arm length and way out of the anchor, the richest arms are joined ...
PAIR_CHECKS = 4000  # ... in at most this many tries per kind of train


@dataclass(frozen=True)
class Arm:
    stops: tuple[NodeRef, ...]  # from the anchor outwards
    used: tuple[Connection, ...]
    keys: frozenset[EdgeKey]
    value: int
    tail: frozenset[NodeRef]  # its stops but the anchor


def offered_run(board: Board, entity: str, trains: dict[str, TrainKind], colors: tuple[str, ...],
                phase_name: str, accepts: Callable[[list[dict[str, Any]]], bool],
                **limits: Any) -> list[dict[str, Any]] | None:
    """The routes an offer suggests: the full search's (`autorouter.best_routes`) where it walks every
    sequence within `EXACT_STEPS` (a small network: the same run as before, as cheaply); else this module's
    run if it finds one the step `accepts`, else the full search's; None when that run is refused. The
    full search thus still decides when no run is offered, as before."""
    small = not trains or fits_search(board, entity, trains, colors, phase_name, limit=EXACT_STEPS,
                                      max_stops=limits.get("max_stops", 8), rules=limits.get("rules"))
    if not small:
        quick = quick_routes(board, entity, trains, colors, phase_name, rules=limits.get("rules"),
                             max_stops=limits.get("max_stops", 8))
        if quick and accepts(quick):
            return quick
    full = best_routes(board, entity, trains, colors, phase_name, **limits) if trains else []
    return full if accepts(full) else None


def quick_routes(board: Board, entity: str, trains: dict[str, TrainKind], colors: tuple[str, ...],
                 phase_name: str = "", *, rules: DefaultRouteRules | None = None, max_stops: int = 8,
                 per_train: int = 40) -> list[dict[str, Any]]:
    """A good legal run, one route per train at most (empty: none found, or the rules need no station)."""
    rules = rules or board.rules.route_rules
    ctx = RouteContext(board, entity, colors, phase_name)
    if not all(rules.needs_token(ctx, [Route(t, k, [])], 0) for t, k in trains.items()):
        return []  # a run need not touch a station: no anchor to start from
    conns = _connections(board, entity)
    anchors = sorted(s for s in conns if ctx.tokened(s))
    if not anchors:
        return []
    values: dict[NodeRef, int] = {}
    probe = Route("", trains[min(trains)], [])  # what a stop pays, as the rules value it for a run

    def value(stop: NodeRef) -> int:
        if stop not in values:
            values[stop] = rules.stop_value(ctx, probe, stop)
        return values[stop]

    longest = max(_stops_cap(k, max_stops) for k in trains.values()) + 1
    blocking = rules.check_blocking(ctx, probe)
    richest_first = {stop: sorted(cs, key=lambda c: -value(c.b)) for stop, cs in conns.items()}
    arms = {a: _arms(board, entity, a, richest_first, value, longest, blocking, ARM_BUDGET // len(anchors))
            for a in anchors}
    options: list[tuple[str, list[Route]]] = []
    by_kind: dict[TrainKind, list[Route]] = {}
    for train_id, kind in sorted(trains.items()):
        if kind not in by_kind:
            by_kind[kind] = _candidates(ctx, rules, train_id, kind, arms, value,
                                        _stops_cap(kind, max_stops) + 1)[:per_train]
        options.append((train_id, [replace(r, train_id=train_id) for r in by_kind[kind]]))
    return [_to_record(ctx, r) for r in combine(options)]


def _stops_cap(kind: TrainKind, max_stops: int) -> int:
    return min(kind.stop_count, max_stops) if kind.is_numeric else max_stops


def _arms(board: Board, entity: str, anchor: NodeRef, richest_first: dict[NodeRef, list[Connection]],
          value: Callable[[NodeRef], int], longest: int, blocking: bool, budget: int) -> list[Arm]:
    """Simple stop sequences from `anchor` (itself included, as the one-stop arm) along `richest_first`
    (each stop's connections, the richest next stop first), not through a city other companies fill,
    within `budget` steps."""
    out: list[Arm] = []
    left = [max(budget, 20)]

    def walk(stops: list[NodeRef], used: list[Connection], keys: frozenset[EdgeKey], total: int) -> None:
        if left[0] <= 0:
            return
        left[0] -= 1
        out.append(Arm(tuple(stops), tuple(used), keys, total, frozenset(stops[1:])))
        last = stops[-1]
        if len(stops) >= longest or (blocking and len(stops) > 1 and board.node_blocks(last[0], last[1], entity)):
            return
        for c in richest_first.get(last, ()):
            if c.b not in stops and not keys & c.keys:
                walk(stops + [c.b], used + [c], keys | c.keys, total + value(c.b))

    walk([anchor], [], frozenset(), value(anchor))
    return out


def _candidates(ctx: RouteContext, rules: DefaultRouteRules, train_id: str, kind: TrainKind,
                arms: dict[NodeRef, list[Arm]], value: Callable[[NodeRef], int], longest: int) -> list[Route]:
    """Runs of at most `longest` stops joined from two arms of an anchor: the `EVALUATIONS` joins whose
    stops are worth most are checked (the richest arms first, so the ranking can stop early)."""
    best: list[tuple[int, int, Arm, Arm]] = []  # a heap of the richest joins: (worth, order, arm, arm)
    order = 0
    checks = PAIR_CHECKS
    for anchor, own in arms.items():
        # the richest arms of each length leaving the anchor by each first stop: two arms that leave the
        # same way share track, so a run joins arms of two ways (or one arm and the anchor alone)
        groups: dict[int, dict[NodeRef | None, list[Arm]]] = {}
        for arm in own:
            if len(arm.stops) <= longest and _within_distance(ctx, kind, arm.stops):
                way = arm.stops[1] if len(arm.stops) > 1 else None
                groups.setdefault(len(arm.stops), {}).setdefault(way, []).append(arm)
        tops = {n: sorted((a for g in ways.values() for a in sorted(g, key=lambda a: -a.value)[:ARMS_PER_WAY]),
                          key=lambda a: -a.value) for n, ways in groups.items()}
        base = value(anchor)
        # each pair of arm lengths that fits the train, the richest pairs first (the heap's floor rises fast)
        pairs = sorted(((m, n) for m in tops for n in tops if m <= n and 3 <= m + n <= longest + 1),
                       key=lambda mn: -(tops[mn[0]][0].value + tops[mn[1]][0].value))
        for m, n in pairs:
            for a in tops[m]:
                if checks <= 0 or len(best) == EVALUATIONS and a.value + tops[n][0].value - base <= best[0][0]:
                    break  # every later pair of these lengths is worth less than the poorest kept
                for b in tops[n]:
                    worth = a.value + b.value - base
                    if len(best) == EVALUATIONS and worth <= best[0][0]:
                        break
                    if m == n and a.value < b.value or (m > 1 and a.stops[1] == b.stops[1]):
                        continue  # each pair of equal lengths once; two arms leaving the same way
                    checks -= 1
                    if a.keys & b.keys or not a.tail.isdisjoint(b.tail) \
                            or not _within_distance(ctx, kind, a.stops[::-1] + b.stops[1:]):
                        continue
                    order += 1
                    (heapq.heappush if len(best) < EVALUATIONS else heapq.heapreplace)(best, (worth, order, a, b))
    found: dict[tuple, Route] = {}
    both_ways = not getattr(rules, "direction_free", False)
    for _, _, a, b in sorted(best, key=lambda j: (-j[0], j[1])):
        key = (a.keys | b.keys, a.tail | b.tail | {a.stops[0]})
        for first, second in ((a, b), (b, a)) if both_ways else ((a, b),):
            route = _joined(train_id, kind, first, second)
            try:
                evaluate(ctx, [route], rules)
            except IllegalAction:
                continue
            if key not in found or found[key].revenue < route.revenue:
                found[key] = route
    return sorted(found.values(), key=lambda r: (-r.revenue, -len(r.stops)))


def _within_distance(ctx: RouteContext, kind: TrainKind, stops: tuple[NodeRef, ...]) -> bool:
    """Whether a train of `kind` may visit these stops (a split distance: so many cities, so many towns)."""
    if kind.is_numeric:
        return True  # the length bound already holds it
    try:
        check_distance(ctx, Route("", kind, list(stops)), kind)
    except IllegalAction:
        return False
    return True


def _joined(train_id: str, kind: TrainKind, first: Arm, second: Arm) -> Route:
    """The run out along `first` reversed, through the anchor, then along `second`."""
    back = list(reversed(first.used))
    stops = list(reversed(first.stops)) + list(second.stops[1:])
    chains = [list(reversed(c.hexes)) for c in back] + [list(c.hexes) for c in second.used]
    paths = [p for c in back for p in reversed(c.paths)] + [p for c in second.used for p in c.paths]
    keys = [k for c in back + list(second.used) for k in c.keys]
    return Route(train_id, kind, stops, paths, keys, chains)

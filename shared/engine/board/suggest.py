"""The run an offer suggests, found within a bound of work (issue 47: legal-actions must cost a fraction of
loading the game, and the full search of `autorouter` takes a second on a late 1828 map).

On a small network (the full search walks every stop sequence within `EXACT_STEPS`) the offer keeps the
full search's run. On a larger one the search starts where every run must pass, the entity's stations: from
each ("anchor") it walks "arms", simple sequences of stops along the entity's track, richest next stop
first, within `ARM_BUDGET` steps shared between the anchors. A run is two arms of one anchor leaving it by
different ways, joined there (or one arm); the joins are ranked by what their stops pay, the best
`EVALUATIONS` are checked by the same `evaluate` as any recorded run (for one train, only down to where
the title's `revenue_ceiling` says no later join earns as much as the best found), and the same combination
search picks one run per train. What is suggested is therefore always a legal run; only how hard the
search looks for the best one is bounded. The rules never use this search (a Stadtbahn's automatic run,
1825's repayment check keep `autorouter.best_routes`), and an offer falls back to the full search when this
one finds nothing or its run is refused (`offered_run`), so the full search still decides when no run is
offered."""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import replace
from itertools import chain, islice
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import IllegalAction
from .autorouter import Connection, _connections, _to_record, best_routes, combine, fits_search
from .routes import (
    DefaultRouteRules,
    EdgeKey,
    NodeRef,
    Route,
    RouteContext,
    SearchContext,
    check_distance,
    evaluate,
)
from .trains import TrainKind

if TYPE_CHECKING:
    from .board import Board

EXACT_STEPS = 300  # a network the full search walks within this many steps gets its exact best run
ARM_BUDGET = 800
EVALUATIONS = 120
ARMS_PER_WAY = 4  # per anchor, arm length and way out of the anchor, the richest arms are joined ...
PAIR_CHECKS = 4000  # ... in at most this many tries per kind of train


class Arm(NamedTuple):
    stops: tuple[NodeRef, ...]  # from the anchor outwards
    used: tuple[Connection, ...]
    value: int
    way: NodeRef | None  # the stop after the anchor (None: the anchor alone)
    # one bit per track segment and per stop but the anchor (`_bits`): two arms of an anchor share neither
    # exactly when their masks share no bit
    mask: int
    # a stop between the anchor and the far end is off-board: every run joining it is refused (`evaluate`
    # lets no run pass through an off-board), so it is never checked
    through_offboard: bool


_value = attrgetter("value")  # an arm's value, read by a sort without a Python call of its own

# an arm's hex chains, paths and segment keys, in the order a run takes them (`_pieces`)
Pieces = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, int], ...], tuple[EdgeKey, ...]]


def offered_run(board: Board, entity: str, trains: dict[str, TrainKind], colors: tuple[str, ...],
                phase_name: str, accepts: Callable[[list[dict[str, Any]]], bool],
                **limits: Any) -> list[dict[str, Any]] | None:
    """The routes an offer suggests: the full search's (`autorouter.best_routes`) where it walks every
    sequence within `EXACT_STEPS` (a small network: the same run as before, as cheaply); else this module's
    run if it finds one the step `accepts`, else the full search's; None when that run is refused. The
    full search thus still decides when no run is offered, as before."""
    conns = _connections(board, entity) if trains else {}  # both searches walk the same track: found once
    small = not trains or fits_search(board, entity, trains, colors, phase_name, limit=EXACT_STEPS,
                                      max_stops=limits.get("max_stops", 8), rules=limits.get("rules"),
                                      conns=conns)
    if not small:
        quick = quick_routes(board, entity, trains, colors, phase_name, rules=limits.get("rules"),
                             max_stops=limits.get("max_stops", 8), conns=conns)
        if quick and accepts(quick):
            return quick
    full = best_routes(board, entity, trains, colors, phase_name, **limits) if trains else []
    return full if accepts(full) else None


def quick_routes(board: Board, entity: str, trains: dict[str, TrainKind], colors: tuple[str, ...],
                 phase_name: str = "", *, rules: DefaultRouteRules | None = None, max_stops: int = 8,
                 per_train: int = 40, conns: dict[NodeRef, list[Connection]] | None = None
                 ) -> list[dict[str, Any]]:
    """A good legal run, one route per train at most (empty: none found, or the rules need no station)."""
    rules = rules or board.rules.route_rules
    ctx = SearchContext(board, entity, colors, phase_name)
    if not all(rules.needs_token(ctx, [Route(t, k, [])], 0) for t, k in trains.items()):
        return []  # a run need not touch a station: no anchor to start from
    if conns is None:
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
    bits = _bits(conns)
    # each stop's ways on, the richest next stop first: (connection, next stop, its bit, the connection's
    # segments' bits, what the next stop pays, whether an arm stops there (a city others fill), whether it
    # is off-board)
    ends: dict[NodeRef, tuple[bool, bool]] = {}
    for cs in conns.values():
        for c in cs:
            if c.b not in ends:
                ends[c.b] = (blocking and ctx.blocks(c.b), ctx.node(c.b).kind == "offboard")
    richest_first = {stop: [(c, c.b, bits[c.b], _mask(bits, c.keys), value(c.b), *ends[c.b])
                            for c in sorted(cs, key=lambda c: -value(c.b))] for stop, cs in conns.items()}
    arms = {a: _arms(a, bits[a], richest_first, value(a), longest, ARM_BUDGET // len(anchors)) for a in anchors}
    options: list[tuple[str, list[Route]]] = []
    by_kind: dict[TrainKind, list[Route]] = {}
    pieces: tuple[dict[int, Pieces], dict[int, Pieces]] = ({}, {})  # `_inward`, `_outward`
    for train_id, kind in sorted(trains.items()):
        if kind not in by_kind:
            by_kind[kind] = _candidates(ctx, rules, train_id, kind, arms, value, bits,
                                        _stops_cap(kind, max_stops) + 1, pieces,
                                        only_best=len(trains) == 1)[:per_train]
        options.append((train_id, [replace(r, train_id=train_id) for r in by_kind[kind]]))
    return [_record(ctx, r) for r in combine(options)]


def _stops_cap(kind: TrainKind, max_stops: int) -> int:
    return min(kind.stop_count, max_stops) if kind.is_numeric else max_stops


def _bits(conns: dict[NodeRef, list[Connection]]) -> dict[Any, int]:
    """A bit of its own for every stop and every track segment of the network (a stop is a pair, a segment
    a triple: the two never collide as keys)."""
    bits: dict[Any, int] = {}
    for stop, cs in conns.items():
        bits.setdefault(stop, 1 << len(bits))
        for c in cs:
            bits.setdefault(c.b, 1 << len(bits))
            for k in c.keys:
                bits.setdefault(k, 1 << len(bits))
    return bits


def _mask(bits: dict[Any, int], items: Any) -> int:
    mask = 0
    for item in items:
        mask |= bits[item]
    return mask


def _arms(anchor: NodeRef, anchor_bit: int, richest_first: dict[NodeRef, list[tuple[Any, ...]]],
          anchor_value: int, longest: int, budget: int) -> list[Arm]:
    """Simple stop sequences from `anchor` (itself included, as the one-stop arm) along `richest_first`
    (each stop's connections, the richest next stop first), not through a city other companies fill,
    within `budget` steps."""
    out: list[Arm] = []
    left = max(budget, 20)
    new = tuple.__new__  # an Arm made as a plain tuple is: no keyword handling on the way

    def walk(stops: tuple[NodeRef, ...], used: tuple[Connection, ...], keys: int, seen: int, total: int,
             way: NodeRef | None, through: bool, halt: bool, off: bool) -> None:
        # `halt`, `off`: the last stop ends every arm (a city others fill), is off-board
        nonlocal left
        if left <= 0:
            return
        left -= 1
        out.append(new(Arm, (stops, used, total, way, keys | (seen ^ anchor_bit), through)))
        n = len(stops)
        if n >= longest or halt:
            return
        through = through or (n > 1 and off)  # the last stop is passed through by every longer arm
        for c, b, b_bit, c_keys, b_value, b_halt, b_off in richest_first.get(stops[-1], ()):
            if not seen & b_bit and not keys & c_keys:
                walk(stops + (b,), used + (c,), keys | c_keys, seen | b_bit, total + b_value,
                     way if n > 1 else b, through, b_halt, b_off)

    walk((anchor,), (), 0, anchor_bit, anchor_value, None, False, False, False)
    return out


def _candidates(ctx: RouteContext, rules: DefaultRouteRules, train_id: str, kind: TrainKind,
                arms: dict[NodeRef, list[Arm]], value: Callable[[NodeRef], int], bits: dict[Any, int],
                longest: int, pieces: tuple[dict[int, Pieces], dict[int, Pieces]],
                only_best: bool = False) -> list[Route]:
    """Runs of at most `longest` stops joined from two arms of an anchor: the `EVALUATIONS` joins whose
    stops are worth most are checked (the richest arms first, so the ranking can stop early). `only_best`
    (one train: only the first run of the answer is used): the checks stop where the rules' ceiling says
    no later join earns as much as the best run found, whose place the rest cannot take, and a join whose
    own ceiling (`run_ceiling`, by its stops) says it cannot come first is not checked."""
    best: list[tuple[int, int, Arm, Arm]] = []  # a heap of the richest joins: (worth, order, arm, arm)
    floor: float = float("-inf")  # the poorest kept join's worth once the heap is full
    order = 0
    checks = PAIR_CHECKS
    numeric = kind.is_numeric  # the length bound then holds the distance (`_within_distance`)
    for anchor, own in arms.items():
        # the richest arms of each length leaving the anchor by each first stop: two arms that leave the
        # same way share track, so a run joins arms of two ways (or one arm and the anchor alone)
        groups: dict[int, dict[NodeRef | None, list[Arm]]] = {}
        for arm in own:
            if len(arm.stops) <= longest and (numeric or _within_distance(ctx, kind, arm.stops)):
                groups.setdefault(len(arm.stops), {}).setdefault(arm.way, []).append(arm)
        # (the richest first, ties in the order found: a sort in reverse keeps equals in order)
        tops = {n: sorted((a for g in ways.values() for a in sorted(g, key=_value, reverse=True)[:ARMS_PER_WAY]),
                          key=_value, reverse=True) for n, ways in groups.items()}
        base = value(anchor)
        top = {n: arms_n[0].value for n, arms_n in tops.items()}
        # each pair of arm lengths that fits the train, the richest pairs first (the heap's floor rises fast;
        # ties in the order found), taken off a heap as far as the search goes
        pairs = [(-(top[m] + top[n]), i, m, n) for i, (m, n) in enumerate(_length_pairs(list(tops), longest + 1))]
        heapq.heapify(pairs)
        others: dict[int, dict[NodeRef | None, list[Arm]]] = {}  # per length and way: the other ways' arms
        while pairs:
            _, _, m, n = heapq.heappop(pairs)
            if checks <= 0 or top[m] + top[n] - base <= floor:
                break  # no pair of these lengths or of any later (poorer) ones is worth the poorest kept
            if m > 1 and len(groups[m].keys() | groups[n].keys()) == 1:
                continue  # every arm of either length leaves the same way: no two join
            firsts, seconds = tops[m], tops[n]
            richest = seconds[0].value - base
            same = m == n
            if m > 1 and n not in others:
                others[n] = {w: [b for b in seconds if b.way != w] for w in groups[n]}
            for a in firsts:
                a_value, a_mask = a.value, a.mask
                if checks <= 0 or a_value + richest <= floor:
                    break  # every later pair of these lengths is worth less than the poorest kept
                # two arms leaving the same way share track: b leaves by another way (or a is the anchor
                # alone); of equal lengths, each pair once: b no richer than a (the richer come first)
                # (`seconds` when no arm of n stops leaves a's way)
                row = seconds if m == 1 else others[n].get(a.way, seconds)
                for b in islice(row, bisect_left(row, -a_value, key=_poorer) if same else 0, None):
                    worth = a_value + b.value - base
                    if worth <= floor:
                        break  # and every later b: a skipped b never moved the floor
                    checks -= 1
                    if a_mask & b.mask:
                        continue
                    if not (numeric or _within_distance(ctx, kind, a.stops[::-1] + b.stops[1:])):
                        continue
                    order += 1
                    if len(best) < EVALUATIONS:
                        heapq.heappush(best, (worth, order, a, b))
                    else:
                        heapq.heapreplace(best, (worth, order, a, b))
                    if len(best) == EVALUATIONS:
                        floor = best[0][0]
    found: dict[int, Route] = {}
    both_ways = not (getattr(rules, "direction_free", False)
                     or getattr(rules, "one_run_direction_free", False))
    best_revenue: int | None = None
    best_length = 0  # the most stops of a run found paying `best_revenue`
    for worth, _, a, b in sorted(best, key=lambda j: (-j[0], j[1])):
        if only_best and best_revenue is not None:
            ceiling = rules.revenue_ceiling(ctx, kind, worth)
            if ceiling is not None and ceiling < best_revenue:
                break  # and every later join: they are worth no more, and a ceiling grows with the worth
        if a.through_offboard or b.through_offboard or (
                len(a.stops) > 1 and len(b.stops) > 1 and ctx.node(a.stops[0]).kind == "offboard"):
            continue  # it passes through an off-board: refused either way round
        if only_best and best_revenue is not None:
            bound = rules.run_ceiling(ctx, kind, a.stops + b.stops[1:], worth)
            if bound is not None and (bound < best_revenue or (
                    bound == best_revenue and len(a.stops) + len(b.stops) - 1 < best_length)):
                # this run cannot come first (more revenue first, then more stops): a run found pays more, or
                # as much with more stops. The bound is its stops', so a run of the same stops found again is
                # skipped again: no run that can come first moves in the order found
                continue
        key = a.mask | b.mask | bits[a.stops[0]]  # the same track and stops: the same run
        for first, second in ((a, b), (b, a)) if both_ways else ((a, b),):
            route = _joined(train_id, kind, first, second, pieces)
            try:
                evaluate(ctx, [route], rules)
            except IllegalAction:
                continue
            if key not in found or found[key].revenue < route.revenue:
                found[key] = route
            if best_revenue is None or route.revenue > best_revenue:
                best_revenue, best_length = route.revenue, len(route.stops)
            elif route.revenue == best_revenue:
                best_length = max(best_length, len(route.stops))
    return sorted(found.values(), key=lambda r: (-r.revenue, -len(r.stops)))


def _length_pairs(lengths: list[int], most: int) -> list[tuple[int, int]]:
    """Each (m, n) of `lengths` (in their order, m's then n's) with m <= n and 3 <= m + n <= `most`. The
    lengths come ascending (an arm's shorter beginnings are found before it): each m's n are then one slice."""
    if lengths != sorted(lengths):  # (distinct: a dict's keys)
        return [(m, n) for m in lengths for n in lengths if m <= n and 3 <= m + n <= most]
    return [(m, n) for m in lengths
            for n in lengths[bisect_left(lengths, max(m, 3 - m)):bisect_right(lengths, most - m)]]


def _poorer(arm: Arm) -> int:
    return -arm.value


def _within_distance(ctx: RouteContext, kind: TrainKind, stops: tuple[NodeRef, ...]) -> bool:
    """Whether a train of `kind` may visit these stops (a split distance: so many cities, so many towns)."""
    if kind.is_numeric:
        return True  # the length bound already holds it
    try:
        check_distance(ctx, Route("", kind, list(stops)), kind)
    except IllegalAction:
        return False
    return True


def _inward(cache: dict[int, Pieces], arm: Arm) -> Pieces:
    """An arm's hex chains, paths and segment keys from its far end in to its anchor (a run's first
    half; an arm is the first half of many runs: worked out once, kept by the arm's id while the search
    holds it)."""
    found = cache.get(id(arm))
    if found is None:
        back = arm.used[::-1]
        found = cache[id(arm)] = (tuple(c.hexes[::-1] for c in back),
                                  tuple(chain.from_iterable(c.paths[::-1] for c in back)),
                                  tuple(chain.from_iterable(c.keys for c in back)))
    return found


def _outward(cache: dict[int, Pieces], arm: Arm) -> Pieces:
    """The same from its anchor outwards (a run's second half)."""
    found = cache.get(id(arm))
    if found is None:
        used = arm.used
        found = cache[id(arm)] = (tuple(c.hexes for c in used),
                                  tuple(chain.from_iterable(c.paths for c in used)),
                                  tuple(chain.from_iterable(c.keys for c in used)))
    return found


def _joined(train_id: str, kind: TrainKind, first: Arm, second: Arm,
            pieces: tuple[dict[int, Pieces], dict[int, Pieces]]) -> Route:
    """The run out along `first` reversed, through the anchor, then along `second`."""
    back_chains, back_paths, back_keys = _inward(pieces[0], first)
    out_chains, out_paths, out_keys = _outward(pieces[1], second)
    # the hex chains stay tuples while the run is only checked (`_record` makes them lists)
    return Route(train_id, kind, list(first.stops[::-1] + second.stops[1:]), list(back_paths + out_paths),
                 list(back_keys + out_keys), list(back_chains + out_chains))


def _record(ctx: RouteContext, route: Route) -> dict[str, Any]:
    """The recorded form of a chosen run, its hex chains as lists (as any recorded run's)."""
    return _to_record(ctx, replace(route, chains=[list(c) for c in route.chains]))

"""Route validation and revenue.

A recorded route lists hex chains between consecutive stops (`connections`) and, usually, the stops
themselves (`nodes`, "HEX-i"). Each chain is resolved to concrete track (paths) on the current map; no track
segment (hex edge + lane) may be used twice in one run. The generic checks (stops, token, distance, blocked
cities) are then followed by the title's checks: the rule set the title hands its board
(`TitleRules.route_rules`, kept as `BoardRules.route_rules`), a small class of named hooks that lives in the
title's package; a title that changes nothing keeps `DefaultRouteRules`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import IllegalAction, MalformedAction
from .hexes import invert
from .tiles import NODE_BASE, Node
from .trains import TrainKind

if TYPE_CHECKING:
    from .grid import HexState, Reach

NodeRef = tuple[str, int]
EdgeKey = tuple[str, int, int]


class GridRules(Protocol):
    """The board's knobs its walks read (`rules.BoardRules` holds them)."""

    offboards_end_track: bool
    route_rules: DefaultRouteRules


class Grid(Protocol):
    """The board as routes, reach and the autorouter read it: `board.Board` implements it; declared here,
    below the board, which runs them."""

    hexes: dict[str, HexState]
    homes: dict[str, list[tuple[str, int | None]]]
    rules: GridRules
    _memo: dict[tuple[Any, ...], Any]

    def reach(self, entity: str) -> Reach: ...

    def station_cities(self, entity: str) -> list[tuple[str, int]]: ...

    def node_blocks(self, hex_id: str, code: int, entity: str) -> bool: ...

    def has_token(self, hex_id: str, code: int, entity: str) -> bool: ...



@dataclass
class Route:
    """One train's run, resolved onto the map."""

    train_id: str
    kind: TrainKind
    stops: list[NodeRef]
    paths: list[tuple[str, int]] = field(default_factory=list)
    keys: list[EdgeKey] = field(default_factory=list)
    chains: list[Sequence[str]] = field(default_factory=list)  # (a search's runs keep tuples)
    revenue: int = 0
    double_header_of: int | None = None  # index of the partner route whose shared stop it does not pay
    in_double_header: bool = False
    # stops at the start / end of the run that extend it past the train's length (1833NE bonuses)
    extension: tuple[int, int] = (0, 0)

    @property
    def core(self) -> list[NodeRef]:
        """The stops the train itself runs (and is paid for): all of them unless the run is extended."""
        head, tail = self.extension
        return self.stops[head:len(self.stops) - tail]


@dataclass
class RouteContext:
    board: Grid
    entity: str
    colors: tuple[str, ...]
    phase_name: str

    def node(self, ref: NodeRef) -> Node:
        return self.board.hexes[ref[0]].tile.nodes[ref[1] - NODE_BASE]

    def label(self, ref: NodeRef) -> str:
        return ",".join(self.board.hexes[ref[0]].tile.labels)

    def name(self, ref: NodeRef) -> str:
        n = self.node(ref)
        return f"{ref[0]}-{n.part}"

    def tokened(self, ref: NodeRef) -> bool:
        return self.board.has_token(ref[0], ref[1], self.entity)

    def blocks(self, ref: NodeRef) -> bool:
        """Other companies' tokens fill the city: the entity's runs cannot pass through it."""
        return self.board.node_blocks(ref[0], ref[1], self.entity)

    def stop_revenue(self, ref: NodeRef) -> int:
        """What the stop pays in this phase, before any rule of the title."""
        return self.node(ref).revenue_for(self.colors, self.phase_name)


@dataclass
class SearchContext(RouteContext):
    """A context for one search (the runs an offer suggests): the board does not change while it is used,
    so what it reads of a stop is read once (a search checks a hundred runs over the same stops)."""

    _nodes: dict[NodeRef, Node] = field(default_factory=dict, repr=False, compare=False)
    _tokened: dict[NodeRef, bool] = field(default_factory=dict, repr=False, compare=False)
    _blocks: dict[NodeRef, bool] = field(default_factory=dict, repr=False, compare=False)
    _revenue: dict[NodeRef, int] = field(default_factory=dict, repr=False, compare=False)

    def node(self, ref: NodeRef) -> Node:
        try:
            return self._nodes[ref]
        except KeyError:
            found = self._nodes[ref] = super().node(ref)
            return found

    def tokened(self, ref: NodeRef) -> bool:
        try:
            return self._tokened[ref]
        except KeyError:
            found = self._tokened[ref] = super().tokened(ref)
            return found

    def blocks(self, ref: NodeRef) -> bool:
        try:
            return self._blocks[ref]
        except KeyError:
            found = self._blocks[ref] = super().blocks(ref)
            return found

    def stop_revenue(self, ref: NodeRef) -> int:
        try:
            return self._revenue[ref]
        except KeyError:
            found = self._revenue[ref] = super().stop_revenue(ref)
            return found


# -- resolving recorded routes onto track -------------------------------------------------------------
def _path_keys(hex_id: str, path: Any) -> list[EdgeKey]:
    keys = []
    if path.a < NODE_BASE:
        keys.append((hex_id, path.a, path.lane_a))
    if path.b < NODE_BASE:
        keys.append((hex_id, path.b, path.lane_b))
    return keys


def _stop_codes(board: Grid, hex_id: str) -> list[int]:
    tile = board.hexes[hex_id].tile
    return [NODE_BASE + i for i, n in enumerate(tile.nodes) if n.is_stop]


def _chain_rows(board: Grid, hex_id: str) -> dict[int, tuple[tuple[Any, ...], ...]]:
    """Per end of the hex's tile as it lies, what `resolve_chain` needs of each path from that end: (path
    index, other end, its segment keys, the hex beyond the other end and the edge entered there (an edge;
    else None, -1), whether the other end is a stop). Made once per (hex, tile, rotation) and kept in the
    board's memo (it depends on the map and the tile only), so resolving a chain builds nothing per path."""
    state = board.hexes[hex_id]
    tile, rotation = state.tile, state.rotation
    key = ("chain", hex_id, tile.name, rotation)
    memo = board._memo
    table = memo.get(key)
    if table is None:
        table = {}
        paths = tile.rpaths[rotation]
        for end, indices in tile.by_end[rotation].items():
            rows = []
            for pi in indices:
                p = paths[pi]
                other = p.other(end)
                keys = tuple(_path_keys(hex_id, p))
                if other >= NODE_BASE:
                    rows.append((pi, other, keys, None, -1, tile.nodes[other - NODE_BASE].is_stop))
                else:
                    rows.append((pi, other, keys, state.neighbors.get(other), invert(other), False))
            table[end] = tuple(rows)
        memo[key] = table
    return table


def _free(pk: tuple[EdgeKey, ...], keys: tuple[EdgeKey, ...], used: set[EdgeKey]) -> bool:
    """None of a path's segments is used by another route or earlier on this chain."""
    for k in pk:
        if k in used or k in keys:
            return False
    return True


def _walk_chain(board: Grid, chain: list[str], ends: list[int] | None, used: set[EdgeKey], i: int, arrival: int,
                acc: list[tuple[str, int]], keys: tuple[EdgeKey, ...]
                ) -> tuple[int, list[tuple[str, int]], tuple[EdgeKey, ...]] | None:
    """`resolve_chain` from `arrival` (an end) in chain[i] on (a plain function, not a closure: a recursive
    closure is a reference cycle, garbage only the collector frees, made anew for every chain)."""
    hex_id = chain[i]
    table = _chain_rows(board, hex_id)
    last = len(chain) - 1
    for pi, other, pk, beyond, entry, stop in table.get(arrival, ()):
        if not _free(pk, keys, used):
            continue
        if i == last:
            if other >= NODE_BASE and (ends is None or other in ends) and stop:
                return other, acc + [(hex_id, pi)], keys + pk
            continue
        if other >= NODE_BASE:
            if stop:
                continue
            # a junction (1825 tile 60): go on along another of its paths to the next hex of the chain
            for pj, out, qk, beyond_q, entry_q, _ in table.get(other, ()):
                if pj == pi or out >= NODE_BASE or beyond_q != chain[i + 1]:
                    continue
                if not _free(qk, keys + pk, used):
                    continue
                found = _walk_chain(board, chain, ends, used, i + 1, entry_q, acc + [(hex_id, pi), (hex_id, pj)],
                                    keys + pk + qk)
                if found:
                    return found
            continue
        if beyond != chain[i + 1]:
            continue
        found = _walk_chain(board, chain, ends, used, i + 1, entry, acc + [(hex_id, pi)], keys + pk)
        if found:
            return found
    return None


def resolve_chain(board: Grid, chain: list[str], starts: list[int], ends: list[int] | None,
                  used: set[EdgeKey]) -> tuple[int, int, list[tuple[str, int]], list[EdgeKey]] | None:
    """Find track from a node in chain[0] through the listed hexes to a node in chain[-1], avoiding used
    segments. Returns (start node, end node, paths, segment keys) or None."""
    hexes = board.hexes
    last = len(chain) - 1
    if last == 0:
        h = hexes[chain[0]]
        for pi, p in enumerate(h.tile.rpaths[h.rotation]):
            if p.a >= NODE_BASE and p.b >= NODE_BASE:
                for s, e in ((p.a, p.b), (p.b, p.a)):
                    if s in starts and (ends is None or e in ends):
                        return s, e, [(chain[0], pi)], []
        return None

    first = _chain_rows(board, chain[0])
    for s in starts:
        for pi, other, pk, beyond, entry, _ in first.get(s, ()):
            if other >= NODE_BASE or beyond != chain[1]:
                continue
            if not _free(pk, (), used):
                continue
            found = _walk_chain(board, chain, ends, used, 1, entry, [(chain[0], pi)], pk)
            if found:
                end, acc, keys = found
                return s, end, acc, list(keys)
    return None


def _node_from_name(board: Grid, name: str) -> NodeRef:
    hex_id, sep, idx = name.rpartition("-")
    if not sep or not idx.isdigit() or hex_id not in board.hexes:
        raise MalformedAction(f"route node {name!r} is not '<hex>-<index>'", "route_shape")
    tile = board.hexes[hex_id].tile
    code = tile.part_node_code(int(idx))  # a stop's number is its place among the tile's parts (Node.part)
    if code is None:
        raise IllegalAction(f"there is no stop {name} on the map", "route_node")
    return (hex_id, code)


def _extension(record: dict[str, Any], train_id: str) -> tuple[int, int]:
    raw = record.get("extension")
    if raw is None:
        return (0, 0)
    if not isinstance(raw, list) or len(raw) != 2 or not all(isinstance(n, int) and n >= 0 for n in raw):
        raise MalformedAction(f"route of train {train_id}: extension is [stops before, stops after]",
                              "route_shape")
    return (raw[0], raw[1])


def resolve_route(board: Grid, record: dict[str, Any], kind: TrainKind, used: set[EdgeKey]) -> Route:
    """Resolve a route record. The record's node list usually gives the travel order; when it does not
    (a route may list its chains both starting from a shared middle stop), the chains are walked in
    order, trying each direction of the first one."""
    try:
        return _resolve_route(board, record, kind, used, use_nodes=True, flip_first=False)
    except IllegalAction as first_error:
        for flip in (False, True):
            try:
                return _resolve_route(board, record, kind, used, use_nodes=False, flip_first=flip)
            except IllegalAction:
                continue
        raise first_error


def _resolve_route(board: Grid, record: dict[str, Any], kind: TrainKind, used: set[EdgeKey], *,
                   use_nodes: bool, flip_first: bool) -> Route:
    chains = record.get("connections")
    train_id = str(record.get("train"))
    if not isinstance(chains, list) or not chains or not all(isinstance(c, list) and c for c in chains):
        raise MalformedAction(f"route of train {train_id} has no connections", "route_shape")
    for c in chains:
        for hex_id in c:
            if hex_id not in board.hexes:
                raise MalformedAction(f"route of train {train_id} names unknown hex {hex_id!r}", "route_shape")
    names = record.get("nodes")
    wanted: list[NodeRef] | None = None
    if use_nodes and isinstance(names, list) and len(names) == len(chains) + 1:
        wanted = [_node_from_name(board, n) for n in names]
    route = Route(train_id, kind, [], extension=_extension(record, train_id))
    taken = set(used)  # the segments other routes use, and (added chain by chain) this one's so far
    prev_end: NodeRef | None = None
    for i, chain in enumerate(chains):
        chain = list(chain)
        if wanted is not None:
            a, b = wanted[i], wanted[i + 1]
            if chain[0] != a[0] and chain[-1] == a[0]:
                chain.reverse()
            if chain[0] != a[0] or chain[-1] != b[0]:
                raise IllegalAction(f"train {train_id}: connection {'-'.join(chain)} does not join "
                                    f"{names[i]} and {names[i + 1]}", "route_track")
            starts, ends = [a[1]], [b[1]]
        else:
            if prev_end is not None and chain[0] != prev_end[0] and chain[-1] == prev_end[0]:
                chain.reverse()
            if prev_end is None and flip_first:
                chain.reverse()
            starts = [prev_end[1]] if prev_end is not None else _stop_codes(board, chain[0])
            if prev_end is not None and chain[0] != prev_end[0]:
                raise IllegalAction(f"train {train_id}: connections are not consecutive", "route_track")
            ends = None
        found = resolve_chain(board, chain, starts, ends, taken)
        if found is None:
            reused = resolve_chain(board, chain, starts, ends, set())
            if reused is not None:
                raise IllegalAction(f"train {train_id}: track {'-'.join(chain)} is already used by another "
                                    "route or earlier in this one", "route_overlap")
            raise IllegalAction(f"train {train_id}: there is no track {'-'.join(chain)}", "route_track")
        s, e, paths, keys = found
        if i == 0:
            route.stops.append((chain[0], s))
        route.stops.append((chain[-1], e))
        route.paths.extend(paths)
        route.keys.extend(keys)
        taken.update(keys)
        route.chains.append(chain)
        prev_end = (chain[-1], e)
    return route


# -- distance and payment -------------------------------------------------------------------------------
def check_distance(ctx: RouteContext, route: Route, kind: TrainKind) -> None:
    stops = [ctx.node(s) for s in route.core]
    if isinstance(kind.distance, int):
        used = sum(n.visit_cost for n in stops)
        if used > kind.distance:
            raise IllegalAction(f"train {route.train_id}: {used} stops is too many for a {kind.distance}-train",
                                "route_too_long")
        return
    capacity = [p.visit for p in kind.distance]
    by_kind: dict[str, int] = {}
    for n in stops:
        by_kind[n.kind] = by_kind.get(n.kind, 0) + n.visit_cost
    for node_kind, count in sorted(by_kind.items(), key=lambda kv: sum(kv[0] in p.nodes for p in kind.distance)):
        for i, part in sorted(enumerate(kind.distance), key=lambda ip: len(ip[1].nodes)):
            if node_kind in part.nodes and count > 0:
                take = min(count, capacity[i])
                capacity[i] -= take
                count -= take
        if count > 0:
            raise IllegalAction(f"train {route.train_id} ({kind.name}) cannot visit that many {node_kind}s",
                                "route_too_long")


def paid_revenue(ctx: RouteContext, route: Route, kind: TrainKind, value: Callable[[NodeRef], int]) -> int:
    """Sum of the paid stops: every stop for a plain N train, else the best stops each part pays for."""
    if isinstance(kind.distance, int):
        return sum(value(s) for s in route.core) * kind.multiplier
    capacity = [p.pay for p in kind.distance]
    total = 0
    for s in sorted(route.core, key=value, reverse=True):
        nk = ctx.node(s).kind
        for i, part in sorted(enumerate(kind.distance), key=lambda ip: len(ip[1].nodes)):
            if nk in part.nodes and capacity[i] > 0:
                capacity[i] -= 1
                total += value(s) * part.multiplier
                break
    return total * kind.multiplier


# -- rule sets ------------------------------------------------------------------------------------------
class DefaultRouteRules:
    """Generic 18xx checks: >= 2 stops, a token of the entity, distance, no passing through full cities."""

    # every check and the revenue are the same whichever end a run starts from (the auto-router then
    # scores each run one way round); a rule set that looks at ends or extensions says False
    direction_free = True
    # a rule set that is not `direction_free` says True when one run alone (no other train's beside it) is
    # still checked and paid the same whichever end it starts from (1825: both ends are looked at alike); the
    # bounded search (`suggest`) then checks each of its runs one way round
    one_run_direction_free = False

    def prepare(self, ctx: RouteContext, routes: list[Route]) -> None:
        """Hook for rules that look at the whole run (1825 double-headers)."""

    def needs_token(self, ctx: RouteContext, routes: list[Route], i: int) -> bool:
        return True

    def check_blocking(self, ctx: RouteContext, route: Route) -> bool:
        return True

    def effective_kind(self, ctx: RouteContext, route: Route) -> TrainKind:
        return route.kind

    def check_title(self, ctx: RouteContext, routes: list[Route], i: int) -> None:
        """Title-specific refusals."""

    def check_extension(self, ctx: RouteContext, route: Route) -> None:
        """Refuse a run extended past the train's length unless the title allows it."""
        if route.extension != (0, 0):
            raise IllegalAction(f"train {route.train_id}: routes cannot be extended in this game", "route_extension")

    def stop_value(self, ctx: RouteContext, route: Route, stop: NodeRef) -> int:
        return ctx.stop_revenue(stop)

    def revenue(self, ctx: RouteContext, routes: list[Route], i: int, kind: TrainKind) -> int:
        route = routes[i]
        return paid_revenue(ctx, route, kind, lambda s: self.stop_value(ctx, route, s))

    def revenue_ceiling(self, ctx: RouteContext, kind: TrainKind, stops_worth: int) -> int | None:
        """At most what a run of a `kind` train earns whose stops are worth `stops_worth` in all (each as
        `stop_value` values it for a run of any of the entity's trains); None: no such bound is known. The
        bounded search stops checking a single train's runs below the best found, so the bound must not fall
        as `stops_worth` grows."""
        return None

    def run_ceiling(self, ctx: RouteContext, kind: TrainKind, stops: Sequence[NodeRef],
                    stops_worth: int) -> int | None:
        """At most what a run of a `kind` train visiting exactly `stops` (in any order; worth `stops_worth`
        as for `revenue_ceiling`) earns; None: no bound known. The bounded search skips checking a single
        train's run whose bound is below the best found, so it must depend on the set of stops only (the
        same run found from two stations is then skipped both times or neither)."""
        return None


def lookup_train(trains: dict[str, TrainKind], train_id: str) -> TrainKind:
    kind = trains.get(train_id)
    if kind is None:
        from .trains import train_name

        kind = trains.get(train_name(train_id))
    if kind is None:
        raise IllegalAction(f"train {train_id} is not one of the entity's trains", "route_train")
    return kind


def evaluate(ctx: RouteContext, routes: list[Route], rules: DefaultRouteRules) -> None:
    """Run every check on already-resolved routes and fill in each route's revenue."""
    rules.prepare(ctx, routes)
    node = ctx.node
    for i, route in enumerate(routes):
        rules.check_extension(ctx, route)
        core = route.core
        if len(core) < 2:
            raise IllegalAction(f"train {route.train_id}: a route needs at least two stops", "route_stops")
        if len(set(route.stops)) != len(route.stops):
            raise IllegalAction(f"train {route.train_id}: a route cannot visit a stop twice", "route_cycle")
        passed = set(core[1:-1])  # an extension may pass through full cities
        blocking: bool | None = None  # whether full cities stop this run: asked once, when it matters
        for s in route.stops[1:-1]:
            if node(s).kind == "offboard":
                raise IllegalAction(f"train {route.train_id}: cannot run through off-board {s[0]}", "route_terminal")
            if s in passed and ctx.blocks(s):
                if blocking is None:
                    blocking = rules.check_blocking(ctx, route)
                if blocking:
                    raise IllegalAction(f"train {route.train_id}: {ctx.name(s)} is full of other companies' "
                                        "tokens and cannot be passed through", "route_blocked")
        if rules.needs_token(ctx, routes, i) and not any(ctx.tokened(s) for s in core):
            raise IllegalAction(f"train {route.train_id}: the route does not touch a {ctx.entity} token",
                                "route_no_token")
        kind = rules.effective_kind(ctx, route)
        check_distance(ctx, route, kind)
        rules.check_title(ctx, routes, i)
        seen_groups: set[str] = set()
        for s in route.stops:
            for g in node(s).groups:
                if g in seen_groups:
                    raise IllegalAction(f"train {route.train_id}: group {g} visited twice", "route_group")
                seen_groups.add(g)
        route.revenue = rules.revenue(ctx, routes, i, kind)


def validate_routes(board: Grid, entity: str, records: list[dict[str, Any]], trains: dict[str, TrainKind],
                    colors: tuple[str, ...], phase_name: str = "") -> list[Route]:
    if not isinstance(records, list):
        raise MalformedAction("routes must be a list", "route_shape")
    rules = board.rules.route_rules
    ctx = RouteContext(board, entity, colors, phase_name)
    used: set[EdgeKey] = set()
    seen_trains: set[str] = set()
    routes = []
    for record in records:
        if not isinstance(record, dict) or "train" not in record:
            raise MalformedAction("each route is an object with a 'train'", "route_shape")
        train_id = str(record["train"])
        if train_id in seen_trains:
            raise IllegalAction(f"train {train_id} runs twice", "route_train")
        seen_trains.add(train_id)
        route = resolve_route(board, record, lookup_train(trains, train_id), used)
        used.update(route.keys)
        routes.append(route)
    evaluate(ctx, routes, rules)
    return routes

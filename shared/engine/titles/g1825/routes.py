"""1825's route rules: the checks and revenue its runs add to the generic ones (`DefaultRouteRules`).

The title hands an instance to its board (`Rules1825.route_rules`); the shared route code never names it.
"""

from __future__ import annotations

from functools import lru_cache

from ...board.routes import DefaultRouteRules, NodeRef, Route, RouteContext, paid_revenue
from ...board.trains import TrainKind, TrainPart
from ...errors import IllegalAction


class RouteRules1825(DefaultRouteRules):
    """1825 (extras.json `route_rules`, tile_200_rule): town ends, one stop per hex, HALTs, double-headers,
    and the tile-200 pass-through bonus."""

    direction_free = False  # a double-header pairs two runs by their stops
    # one run alone: the ends rule looks at both ends alike, the bonus at the stops between, and each part of
    # a train pays one kind of stop (U3: cities, towns), so the sum does not depend on the order
    one_run_direction_free = True

    T_TRAINS = ("3T", "4T")
    FREE_END_TRAINS = ("3T", "4T", "U3", "2+2")

    def prepare(self, ctx: RouteContext, routes: list[Route]) -> None:
        if len(routes) < 2:
            return  # a double-header needs two runs
        paired: set[int] = set()
        for i, a in enumerate(routes):
            if not self._dh_candidate(a) or i in paired:
                continue
            for j, b in enumerate(routes):
                if j == i or j in paired or not self._dh_candidate(b):
                    continue
                if self._pair(ctx, a, b):
                    paired.update((i, j))
                    a.in_double_header = b.in_double_header = True
                    b.double_header_of = i
                    break

    @staticmethod
    def _dh_candidate(r: Route) -> bool:
        return r.kind.distance == 2 and len(r.stops) == 2

    def _pair(self, ctx: RouteContext, a: Route, b: Route) -> bool:
        common = [s for s in a.stops if s in b.stops]
        if not common:
            return False
        shared = common[0]
        node = ctx.node(shared)
        if node.is_city and ctx.board.node_blocks(shared[0], shared[1], ctx.entity):
            return False
        if all(ctx.node(s).is_town for s in a.stops) or all(ctx.node(s).is_town for s in b.stops):
            return False
        at, bt = any(ctx.tokened(s) for s in a.stops), any(ctx.tokened(s) for s in b.stops)
        if not at and not bt:
            return False
        return node.is_town or not (at and bt)

    def needs_token(self, ctx: RouteContext, routes: list[Route], i: int) -> bool:
        return not routes[i].in_double_header

    def check_blocking(self, ctx: RouteContext, route: Route) -> bool:
        return route.kind.distance != 2

    def _bonus(self, ctx: RouteContext, route: Route) -> int:
        rules = ctx.board.rules
        if not rules.through_bonus_tiles or not _bonus_phase(ctx.phase_name, rules.through_bonus_min_phase) \
                or route.kind.name in rules.through_bonus_excluded_trains:
            return 0
        return sum(1 for s in route.stops[1:-1]
                   if ctx.board.hexes[s[0]].tile.name in rules.through_bonus_tiles and ctx.tokened(s))

    def effective_kind(self, ctx: RouteContext, route: Route) -> TrainKind:
        bonus = self._bonus(ctx, route)
        kind = route.kind
        if not bonus:
            return kind
        if isinstance(kind.distance, int):
            parts = (TrainPart(("city", "town"), kind.distance, kind.distance + bonus),)
        else:
            parts = tuple(TrainPart(p.nodes, p.pay, p.pay + bonus, p.multiplier) for p in kind.distance)
        return TrainKind(kind.name, parts, kind.multiplier)

    def check_title(self, ctx: RouteContext, routes: list[Route], i: int) -> None:
        route = routes[i]
        name = route.kind.name
        if name in self.T_TRAINS:
            return
        seen: set[str] = set()
        for s in route.stops:
            if s[0] in seen:
                raise IllegalAction(f"train {route.train_id}: cannot visit two stops in {s[0]}", "route_same_hex")
            seen.add(s[0])
        if name in self.FREE_END_TRAINS:
            return
        first, last = ctx.node(route.stops[0]).is_town, ctx.node(route.stops[-1]).is_town
        if first and last:
            raise IllegalAction(f"train {route.train_id}: a route cannot begin and end in towns", "route_town_end")
        if (first or last) and not (route.kind.distance == 2 and route.in_double_header):
            raise IllegalAction(f"train {route.train_id}: a route cannot begin or end in a town", "route_town_end")

    def stop_value(self, ctx: RouteContext, route: Route, stop: NodeRef) -> int:
        if "HALT" in ctx.label(stop).split(",") and route.kind.name not in self.T_TRAINS:
            return 0
        return super().stop_value(ctx, route, stop)

    def revenue(self, ctx: RouteContext, routes: list[Route], i: int, kind: TrainKind) -> int:
        route = routes[i]
        partner = route.double_header_of
        if partner is None:
            return super().revenue(ctx, routes, i, kind)
        shared = set(routes[partner].stops)
        return paid_revenue(ctx, route, kind, lambda s: 0 if s in shared else self.stop_value(ctx, route, s))


@lru_cache(maxsize=64)
def _bonus_phase(phase_name: str, min_phase: int) -> bool:
    """Whether the through bonus counts in this phase (asked once per phase, not once per run checked)."""
    digits = "".join(ch for ch in phase_name if ch.isdigit())
    return bool(digits) and int(digits) >= min_phase

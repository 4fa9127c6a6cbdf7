"""1833NE's route rules: runs extended past the train's length to collect an interconnection bonus.

The title hands an instance to its board (`Rules1833NE.route_rules`); the shared route code never names it.
"""

from __future__ import annotations

from ...board.routes import DefaultRouteRules, NodeRef, Route, RouteContext
from ...errors import IllegalAction


class RouteRules1833NE(DefaultRouteRules):
    """1833NE: a run may be extended past the train's length to collect an interconnection bonus
    (`BoardRules.extension_bonuses`). The record's `extension` is [stops before, stops after] the train's own
    part; that part must be a legal run by itself and alone is paid. The extension needs only track no other
    route uses (checked for every run) and may pass through full cities; each extended end must be a place
    of a bonus (worth something in this phase) that the train's own part does not collect."""

    direction_free = False

    @staticmethod
    def _bonus_places(ctx: RouteContext, stops: list[NodeRef]) -> dict[int, frozenset[str]]:
        hexes = {s[0] for s in stops}
        out = {}
        for i, (a, b, values) in enumerate(ctx.board.rules.extension_bonuses):
            if dict(values).get(ctx.phase_name, 0) > 0 and hexes & a and hexes & b:
                out[i] = a | b
        return out

    def check_extension(self, ctx: RouteContext, route: Route) -> None:
        head, tail = route.extension
        if not head and not tail:
            return
        if head + tail > len(route.stops) - 2:
            raise IllegalAction(f"train {route.train_id}: the extension leaves fewer than two stops for the "
                                "train itself", "route_extension")
        own = self._bonus_places(ctx, route.core)
        new = [places for i, places in self._bonus_places(ctx, route.stops).items() if i not in own]
        ends = ([route.stops[0]] if head else []) + ([route.stops[-1]] if tail else [])
        for end in ends:
            if not any(end[0] in places for places in new):
                raise IllegalAction(f"train {route.train_id}: the extension to {ctx.name(end)} collects no "
                                    "bonus the train's own run does not", "route_extension")

"""Route evaluation for lines (broad track, own stations, towns, landmark bonuses) and Stadtbahnen
(narrow track, own stations, always the best run)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...board.hexes import invert
from ...board.routes import DefaultRouteRules, Route, RouteContext, evaluate, lookup_train, resolve_route
from ...board.tiles import NODE_BASE
from ...errors import IllegalAction, MalformedAction
from ...model import Corporation
from .flow import rules_of
from .rules import CITY, LINE

if TYPE_CHECKING:
    from ...game import Game


# -- route evaluation -------------------------------------------------------------------------------------
class Route1840(DefaultRouteRules):
    """Lines count their own stations and every town; Stadtbahnen count their own stations; landmark
    privates of the owning major add 20 per visited hex; routes keep to their own kind of track."""

    def __init__(self, game: Game, corp: Corporation) -> None:
        self.game = game
        self.corp = corp
        rules = rules_of(game)
        self.bonus: dict[str, int] = {}
        if corp.kind == LINE:
            major = rules.owner_major(game, corp)
            for sym in (major.companies if major else []):
                company = game.companies[sym]
                if company.closed:
                    continue
                for ability in company.abilities:
                    if ability.get("type") == "hex_bonus":
                        for hex_id in ability.get("hexes") or []:
                            self.bonus[hex_id] = self.bonus.get(hex_id, 0) + int(ability.get("amount") or 0)

    def needs_token(self, ctx: RouteContext, routes: list[Route], i: int) -> bool:
        return self.corp.kind != CITY

    def check_blocking(self, ctx: RouteContext, route: Route) -> bool:
        return self.corp.kind != CITY  # Stadtbahnen run through the lines' stations on their own track

    def check_title(self, ctx: RouteContext, routes: list[Route], i: int) -> None:
        route = routes[i]
        want = "narrow" if self.corp.kind == CITY else "broad"
        for hex_id, pi in route.paths:
            h = ctx.board.hexes[hex_id]
            if h.tile.rpaths[h.rotation][pi].track != want:
                raise IllegalAction(f"train {route.train_id}: {self.corp.sym} may only use {want} track ({hex_id})",
                                    "route_track_type")
        red = rules_of(self.game).extras(self.game)["red_tiles"]["hexes"]
        for hex_id, _ in route.stops:
            if hex_id in red and ctx.board.hexes[hex_id].tile.preprinted:
                raise IllegalAction(f"train {route.train_id}: {hex_id} has no red tile yet", "route_red")

    def stop_value(self, ctx: RouteContext, route: Route, stop: tuple[str, int]) -> int:
        node = ctx.node(stop)
        if node.is_city and not ctx.tokened(stop):
            return 0
        return node.revenue_for(ctx.colors, ctx.phase_name)

    def revenue(self, ctx: RouteContext, routes: list[Route], i: int, kind: Any) -> int:
        route = routes[i]
        total = sum(self.stop_value(ctx, route, s) for s in route.stops)
        if self.bonus:
            stop_hexes = {s[0] for s in route.stops if ctx.board.hexes[s[0]].tile.cities
                          or ctx.board.hexes[s[0]].tile.towns}
            total += sum(self.bonus.get(h, 0) for h in stop_hexes)
        return total


def route_revenue(game: Game, corp: Corporation, records: Any) -> int:
    """Validate the declared routes of `corp` and return their summed revenue (before multipliers)."""
    if not isinstance(records, list):
        raise MalformedAction("run_routes needs a list of routes", "routes_shape")
    own = {t.id for t in corp.trains}
    kinds = rules_of(game).train_kinds(game)
    used: set[Any] = set()
    routes = []
    seen: set[str] = set()
    for record in records:
        if not isinstance(record, dict) or not isinstance(record.get("train"), str):
            raise MalformedAction("each route names its train", "routes_shape")
        train_id = record["train"]
        if train_id not in own:
            raise IllegalAction(f"{corp.sym} does not own train {train_id}", "route_train")
        if train_id in seen:
            raise IllegalAction(f"train {train_id} runs twice", "route_train")
        seen.add(train_id)
        kind = lookup_train(kinds, train_id.rsplit("-", 1)[0]) if train_id.rsplit("-", 1)[0] in kinds \
            else lookup_train(kinds, train_id)
        try:
            route = resolve_route(game.board, record, kind, used)
        except IllegalAction:
            # the reference lists a Stadtbahn's connections out of travel order: chain them up first
            chains = chain_order(record.get("connections"))
            if chains is None:
                raise
            route = resolve_route(game.board, {"train": train_id, "connections": chains}, kind, used)
        used.update(route.keys)
        routes.append(route)
    ctx = RouteContext(game.board, corp.sym, tuple(game.phase.tiles), game.phase.name)
    evaluate(ctx, routes, Route1840(game, corp))
    return sum(r.revenue for r in routes)


def chain_order(raw: Any) -> list[list[str]] | None:
    """Order hex chains into one travel sequence (each chain joins the previous one at a hex)."""
    if not isinstance(raw, list) or not raw or not all(isinstance(c, list) and c for c in raw):
        return None
    rest = [list(c) for c in raw[1:]]
    path = [list(raw[0])]
    while rest:
        head, tail = path[0][0], path[-1][-1]
        for i, c in enumerate(rest):
            if c[0] == tail:
                path.append(c)
            elif c[-1] == tail:
                path.append(c[::-1])
            elif c[-1] == head:
                path.insert(0, c)
            elif c[0] == head:
                path.insert(0, c[::-1])
            else:
                continue
            rest.pop(i)
            break
        else:
            return None
    return path


def route_possible(game: Game, corp: Corporation) -> bool:
    """Some track of the company's kind joins one of its stations to another stop."""
    if not corp.trains:
        return False
    board = game.board
    allowed = board.allowed_track.get(corp.sym)
    for start in board.reach(corp.sym).token_nodes:
        stack = [start]
        seen = {start}
        while stack:
            hex_id, end = stack.pop()
            h = board.hexes[hex_id]
            paths = h.tile.rpaths[h.rotation]
            for pi in h.tile.by_end[h.rotation].get(end, ()):
                path = paths[pi]
                if allowed is not None and path.track not in allowed:
                    continue
                other = path.other(end)
                if other >= NODE_BASE:
                    if (hex_id, other) != start:
                        return True
                    continue
                nb = h.neighbors.get(other)
                if nb is not None and (nb, invert(other)) not in seen:
                    seen.add((nb, invert(other)))
                    stack.append((nb, invert(other)))
    return False


def best_run(game: Game, corp: Corporation) -> list[dict[str, Any]]:
    """The best run of a company's trams over its own kind of track (any number of stops)."""
    kinds = rules_of(game).train_kinds(game)
    trains = {t.id: lookup_train(kinds, t.name) for t in corp.trains}
    stops = len(game.board.reach(corp.sym).nodes)  # the City tram runs any distance: allow every stop
    return game.board.best_routes(corp.sym, trains, game.phase.tiles, game.phase.name,
                                  rules=Route1840(game, corp), max_stops=max(stops, 2))

"""Route evaluation for lines (broad track, own stations, towns, landmark bonuses) and Stadtbahnen
(narrow track, own stations, always the best run)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...board.hexes import invert
from ...board.routes import DefaultRouteRules, Route, RouteContext, evaluate, lookup_train, resolve_route
from ...board.suggest import offered_run
from ...board.tiles import NODE_BASE
from ...errors import IllegalAction, MalformedAction
from ...model import Corporation
from .flow import rules_of
from .state import CITY, LINE

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
        self.red = frozenset(rules.extras(game)["red_tiles"]["hexes"])  # the game's data: read once
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
        self.most_bonus = sum(b for b in self.bonus.values() if b > 0)  # every landmark's that pays

    def needs_token(self, ctx: RouteContext, routes: list[Route], i: int) -> bool:
        return self.corp.kind != CITY

    def check_blocking(self, ctx: RouteContext, route: Route) -> bool:
        return self.corp.kind != CITY  # Stadtbahnen run through the lines' stations on their own track

    def check_title(self, ctx: RouteContext, routes: list[Route], i: int) -> None:
        route = routes[i]
        want = "narrow" if self.corp.kind == CITY else "broad"
        hexes = ctx.board.hexes
        for hex_id, pi in route.paths:
            h = hexes[hex_id]
            if h.tile.rpaths[h.rotation][pi].track != want:
                raise IllegalAction(f"train {route.train_id}: {self.corp.sym} may only use {want} track ({hex_id})",
                                    "route_track_type")
        red = self.red
        for hex_id, _ in route.stops:
            if hex_id in red and hexes[hex_id].tile.preprinted:
                raise IllegalAction(f"train {route.train_id}: {hex_id} has no red tile yet", "route_red")

    def stop_value(self, ctx: RouteContext, route: Route, stop: tuple[str, int]) -> int:
        if ctx.node(stop).is_city and not ctx.tokened(stop):
            return 0
        return ctx.stop_revenue(stop)

    def revenue(self, ctx: RouteContext, routes: list[Route], i: int, kind: Any) -> int:
        route = routes[i]
        value = self.stop_value
        return sum(value(ctx, route, s) for s in route.stops) + self._landmarks(ctx, route.stops)

    def _landmarks(self, ctx: RouteContext, stops: Sequence[tuple[str, int]]) -> int:
        """The landmark bonus of a run stopping at `stops`: once per bonus hex with a stop on it."""
        if not self.bonus:
            return 0
        bonus, hexes = self.bonus, ctx.board.hexes
        stop_hexes = {s[0] for s in stops if s[0] in bonus and (hexes[s[0]].tile.cities or hexes[s[0]].tile.towns)}
        return sum(bonus[h] for h in stop_hexes)

    def revenue_ceiling(self, ctx: RouteContext, kind: Any, stops_worth: int) -> int | None:
        # every stop is paid as `stop_value` says whatever the run, then at most every landmark's bonus
        return stops_worth + self.most_bonus

    def run_ceiling(self, ctx: RouteContext, kind: Any, stops: Sequence[tuple[str, int]],
                    stops_worth: int) -> int | None:
        # exactly what `revenue` pays such a run: its stops as `stop_value` says, and its landmarks
        return stops_worth + self._landmarks(ctx, stops)


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
    if not routes:
        return 0  # running nothing: nothing to check on the map (a copy trying it need not build its board)
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


def best_run(game: Game, corp: Corporation, quick: bool = False) -> list[dict[str, Any]]:
    """The best run of a company's trams over its own kind of track (any number of stops); `quick`: a good
    run found within a bound (`board.suggest.offered_run`, what an offer suggests), the full search's when
    it finds none."""
    kinds = rules_of(game).train_kinds(game)
    trains = {t.id: lookup_train(kinds, t.name) for t in corp.trains}
    stops = len(game.board.reach(corp.sym).nodes)  # the City tram runs any distance: allow every stop
    limits: dict[str, Any] = {"rules": Route1840(game, corp), "max_stops": max(stops, 2)}
    if quick:
        return offered_run(game.board, corp.sym, trains, tuple(game.phase.tiles), game.phase.name,
                           lambda routes: True, **limits) or []
    return game.board.best_routes(corp.sym, trains, game.phase.tiles, game.phase.name, **limits)


def stadtbahn_config(game: Game, sym: str) -> dict[str, Any]:
    """The data for one Stadtbahn in this configuration (track hexes, starting cities)."""
    by_config = rules_of(game).extras(game)["stadtbahn"]["by_configuration"].get(sym) or {}
    return by_config.get(game.defn.data.configuration) or {}


def stadtbahn_run(game: Game, corp: Corporation) -> list[dict[str, Any]]:
    """A Stadtbahn's run (rules-1840 *Stadtbahn runs*): its tram rides its narrow track from one of its two
    fixed starting cities as far as the track goes, counting every stop on the way (its own stations'
    cities, and towns). Of the two rides the one with more revenue runs; on a tie, or when the first city
    has no track, the second; when the second has none, the first."""
    board = game.board
    rides = []
    for node in stadtbahn_config(game, corp.sym).get("starting_nodes") or []:
        h = board.hexes.get(node["hex"])
        if h is None or node["city"] >= len(h.tile.cities) or not corp.trains:
            rides.append(None)
            continue
        stops, chains = narrow_ride(game, (node["hex"], h.tile.city_code(node["city"])))
        if not chains:
            rides.append(None)
            continue
        ctx = RouteContext(board, corp.sym, tuple(game.phase.tiles), game.phase.name)
        hexes = [s[0] for s in stops]
        record = {"train": corp.trains[0].id, "connections": chains, "hexes": hexes,
                  "nodes": [ctx.name(s) for s in stops], "revenue_str": "-".join(hexes)}
        try:
            record["revenue"] = route_revenue(game, corp, [record])
        except IllegalAction:
            rides.append(None)
            continue
        rides.append(record)
    if len(rides) != 2 or rides == [None, None]:
        return best_run(game, corp)
    first, second = rides
    if second is None:
        chosen = first
    elif first is None:
        chosen = second
    else:
        chosen = first if first["revenue"] > second["revenue"] else second
    assert chosen is not None
    return [chosen]


def narrow_ride(game: Game, start: tuple[str, int]) -> tuple[list[tuple[str, int]], list[list[str]]]:
    """Follow narrow track from a stop to the end: the stops met in order and the hexes between each two."""
    board = game.board
    used: set[tuple[str, int]] = set()
    stops, chains = [start], []
    node = start
    while True:
        segment = _next_segment(board, node, used)
        if segment is None:
            return stops, chains
        hexes, node = segment
        stops.append(node)
        chains.append(hexes)


def _next_segment(board: Any, node: tuple[str, int], used: set[tuple[str, int]]) -> Any:
    hex_id, code = node
    h = board.hexes[hex_id]
    for pi in h.tile.by_end[h.rotation].get(code, ()):
        path = h.tile.rpaths[h.rotation][pi]
        if path.track != "narrow" or (hex_id, pi) in used:
            continue
        used.add((hex_id, pi))
        hexes, here, end = [hex_id], hex_id, path.other(code)
        while end < NODE_BASE:  # an edge: into the neighbour, on along its narrow track
            nb = board.hexes[here].neighbors.get(end)
            if nb is None:
                break
            entry = invert(end)
            other = board.hexes[nb]
            nxt = next((i for i in other.tile.by_end[other.rotation].get(entry, ())
                        if other.tile.rpaths[other.rotation][i].track == "narrow" and (nb, i) not in used), None)
            if nxt is None:
                break
            used.add((nb, nxt))
            hexes.append(nb)
            here, end = nb, other.tile.rpaths[other.rotation][nxt].other(entry)
        if end >= NODE_BASE:
            return hexes, (here, end)
    return None

"""Routes and dividends: through the Virginia coalfields only with a coal marker; the C&P minor runs over
the tile it laid this turn, anywhere on its network, and splits its revenue with its owner."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ....board.routes import lookup_train, resolve_route
from ....board.suggest import offered_run
from ....board.tiles import NODE_BASE
from ....core.operating import OperatingRound
from ....core.runs import Dividend, RunRoutes
from ....errors import EngineError, IllegalAction, accepts
from ....model import POOL, Corporation
from .. import coal
from ..state import state

if TYPE_CHECKING:
    from ....game import Game


class RunRoutes1828(RunRoutes):
    """Routes through the Virginia coalfields need a coal marker; the C&P minor's run goes over the tile it
    laid this turn and may start anywhere on its network (see `minor_network`)."""

    def check_run(self, game: Game, round_: OperatingRound, corp: Any, action: dict[str, Any]) -> list[int]:
        coal.check_routes(game, corp, action.get("routes"))
        if corp.kind != "minor":
            return super().check_run(game, round_, corp, action)
        check_uses_laid_tile(game, round_, corp, action.get("routes"))
        with minor_network(game, corp):
            return super().check_run(game, round_, corp, action)

    def offer_run(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """A good run (around the coalfields without a coal marker; the C&P's over the tile it laid), if this
        step's checks accept it: the full search's for the C&P, the bounded one's on a corporation's large
        network (`board.suggest.offered_run`: the full search still decides when none is offered)."""
        corp = game.corporations[entity]
        trains = round_.route_trains(game, corp)
        kinds = game.rules.train_kinds(game)
        by_id = {t.id: kinds[t.name] for t in trains}
        limits: dict[str, Any] = {}
        if not coal.has_marker(game, corp):
            limits["rules"] = AvoidCoalfields(game.board.rules.route_rules, coal.coalfields(game))
        colors, phase = tuple(game.rules.revenue_colors(game)), game.phase.name
        extras = {"extra_revenue": 0, "subsidy": 0}

        def accepted(routes: list[dict[str, Any]]) -> bool:
            run = {"type": "run_routes", "entity": corp.sym, "routes": routes, **extras}
            return accepts(self.check_run, game, round_, corp, run)

        if corp.kind == "minor":  # the full search, as before: the C&P's network is small
            with minor_network(game, corp):
                routes = game.board.best_routes(corp.sym, by_id, colors, phase, **limits) if by_id else []
            laid = round_.laid_hexes[:1]
            served = stops_by_tile(game, laid[0]) if laid else set()
            found = [r for r in routes if served & set(r["nodes"])]
            return [{"routes": found, **extras}] if accepted(found) else []
        found_or_none = offered_run(game.board, corp.sym, by_id, colors, phase, accepted, **limits)
        return [] if found_or_none is None else [{"routes": found_or_none, **extras}]


    def route_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        if corp.kind == "minor" and not round_.laid_hexes:
            return []  # C&P runs only over the tile it laid this turn
        if not game.rules.route_available(game, corp):
            return []
        return super().route_actions(game, round_, corp)


class Dividend1828(Dividend):
    """The C&P minor always splits its revenue with its owner; a major's payout also pays it for the
    market's shares and, as a System, for the share its president gave it; the price moves one step."""

    def may_choose_dividend(self, game: Game, corp: Corporation) -> bool:
        return corp.kind != "minor"  # the C&P minor always splits its revenue with its owner

    def distribute(self, game: Game, round_: OperatingRound, corp: Corporation, kind: str, amount: Any) -> None:
        revenue = round_.revenue
        if corp.kind == "minor":
            owner = state(game).minor_owner.get(corp.sym)
            if revenue > 0:
                half = revenue // 2
                game.pay(None, corp, revenue - half)
                if owner is not None:
                    game.pay(None, game.player(owner), half)
            return
        if kind == "payout" and revenue > 0:
            per_share = revenue // 10
            self.pay_shareholders(game, corp, per_share)
            # market shares pay the corporation; a System is also paid for the share its president gave it
            own = corp.percent_owned_by(POOL)
            unbuyable = state(game).unbuyable
            own += sum(s.percent for s in corp.shares if s.owner == corp.sym and s.id in unbuyable)
            if own:
                game.pay(None, corp, per_share * own // 10)
        elif revenue > 0:
            game.pay(None, corp, revenue)
        if corp.share_cell is None:
            return
        set_cell = game.rules.set_cell  # type: ignore[attr-defined]
        if kind == "payout" and revenue > 0:
            set_cell(game, corp, game.market.right(corp.share_cell))
        else:
            set_cell(game, corp, game.market.left(corp.share_cell))


class AvoidCoalfields:
    """The board's route rules, refusing routes into the coalfields (for a corporation without a marker):
    the best run offered is one the coal rule lets through."""

    def __init__(self, base: Any, coalfields: str) -> None:
        self.base = base
        self.coalfields = coalfields

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)

    def check_title(self, ctx: Any, routes: list[Any], i: int) -> None:
        if any(self.coalfields in chain for chain in routes[i].chains):
            raise IllegalAction(f"a route to {self.coalfields} needs a coal marker", "coal_marker")
        self.base.check_title(ctx, routes, i)


@contextmanager
def minor_network(game: Game, corp: Any) -> Iterator[None]:
    """The C&P minor counts every stop its track reaches from Peterborough as its own station: its 2-train
    need not touch the C&P token, only run on its network (gen1828_5p_226194 index 89: Ottawa-Kingston,
    far from Peterborough, after a tile in Ottawa)."""
    board = game.board
    saved = dict(getattr(board, "virtual_stations", {}))
    reach = board.reach(corp.sym)
    board.set_virtual_stations({**saved, corp.sym: frozenset(reach.nodes)})
    try:
        yield
    finally:
        board.set_virtual_stations(saved)


def stops_by_tile(game: Game, hex_id: str) -> set[str]:
    """The stops ("HEX-i") the tile in `hex_id` serves: its own, or for plain track the first stops its
    track leads to (followed across hex edges, never through a stop)."""
    board = game.board
    tile = board.hexes[hex_id].tile
    if tile.nodes:
        return {f"{hex_id}-{i}" for i in range(len(tile.nodes))}
    found: set[str] = set()
    seen: set[tuple[str, int]] = set()
    stack = [(hex_id, pi) for pi in range(len(tile.rpaths[board.hexes[hex_id].rotation]))]
    while stack:
        here, pi = stack.pop()
        if (here, pi) in seen:
            continue
        seen.add((here, pi))
        state = board.hexes[here]
        path = state.tile.rpaths[state.rotation][pi]
        for end in (path.a, path.b):
            if end >= NODE_BASE:
                found.add(f"{here}-{end - NODE_BASE}")
                continue
            nb = state.neighbors.get(end)
            if nb is None:
                continue
            nb_state = board.hexes[nb]
            stack.extend((nb, qi) for qi in nb_state.tile.by_end[nb_state.rotation].get((end + 3) % 6, ()))
    return found


def check_uses_laid_tile(game: Game, round_: OperatingRound, corp: Any, routes: Any) -> None:
    """The C&P's run must use the tile it laid this turn: one of its stops is on that tile or, for plain
    track, at an end of the track the tile is part of (bankrupt index 271: a tile in C13 leading to
    Peterborough; the run C15-A15 passes elsewhere)."""
    if not isinstance(routes, list) or not routes or not round_.laid_hexes or not isinstance(routes[0], dict):
        return
    hex_id = round_.laid_hexes[0]
    served = stops_by_tile(game, hex_id)
    record = routes[0]
    # the stops the run visits, as its track says: a record need not list them ("nodes" is optional and
    # only a hint), so they are read off the route itself
    try:
        kind = lookup_train(game.rules.train_kinds(game), str(record.get("train")))
        route = resolve_route(game.board, record, kind, set())
    except EngineError:
        return  # a run that does not fit the track is refused by the run's own checks, with their reason
    if served & {f"{hex_}-{code - NODE_BASE}" for hex_, code in route.stops}:
        return
    raise IllegalAction(f"{corp.sym}'s run must use the tile it laid in {hex_id}", "route_laid_tile")

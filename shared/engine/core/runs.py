"""The operating round's run and dividend steps: the routes a corporation runs and what it does with the
revenue."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..board.suggest import offered_run
from ..errors import IllegalAction, MalformedAction
from ..model import Corporation
from .operating import OperatingRound, SpecialBuy
from .rounds import Round, Step

if TYPE_CHECKING:
    from ..game import Game


class RunRoutes(SpecialBuy):
    handlers = {"run_routes": "run_routes", "special_buy": "special_buy"}
    offers = {"run_routes": "offer_run", "special_buy": "offer_special_buy"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return []
        corp = game.corporations[entity]
        return game.rules.route_actions(game, round_, corp)

    def check_run(self, game: Game, round_: OperatingRound, corp: Corporation, action: dict[str, Any]) -> list[int]:
        """Every reason to refuse a run, asked before anything is recorded (and by `legal_actions` for the
        run it offers). Returns each route's revenue."""
        routes = action.get("routes")
        if not isinstance(routes, list):
            raise MalformedAction("run_routes needs a list of routes", "routes_shape")
        refuse_stated_extras(action)
        own = {t.id for t in game.rules.route_trains(game, round_, corp)}
        seen: set[str] = set()
        for route in routes:
            if not isinstance(route, dict) or not isinstance(route.get("train"), str):
                raise MalformedAction("each route names its train", "routes_shape")
            if route["train"] not in own:
                raise IllegalAction(f"{corp.sym} does not own train {route['train']}", "route_train")
            if route["train"] in seen:
                raise IllegalAction(f"train {route['train']} runs twice", "route_train")
            seen.add(route["train"])
        kinds = game.rules.train_kinds(game)
        return game.board.route_revenues(corp.sym, routes, kinds, game.rules.revenue_colors(game),
                                         game.phase.name) if routes else []

    def offer_run(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """A good run, found within a bound (`board.suggest`; what a run may contain is the caller's to vary);
        none when even the full search's best run is refused (it cannot repay spending on credit), so that
        undo is what is left."""
        corp = game.corporations[entity]
        kinds = game.rules.train_kinds(game)
        by_id = {t.id: kinds[t.name] for t in game.rules.route_trains(game, round_, corp)}
        extras = {"extra_revenue": 0, "subsidy": 0}
        routes = offered_run(game.board, entity, by_id, tuple(game.rules.revenue_colors(game)), game.phase.name,
                             lambda r: game.accepts({"type": "run_routes", "entity": entity, "routes": r, **extras}))
        return [] if routes is None else [{"routes": routes, **extras}]

    def run_routes(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        revenues = self.check_run(game, round_, corp, action)
        routes = action["routes"]
        own = {t.id: t for t in game.rules.route_trains(game, round_, corp)}
        round_.routes = [dict(r, revenue=rev) for r, rev in zip(routes, revenues, strict=True)]
        round_.revenue = sum(revenues) + game.rules.extra_revenue(game, round_, corp)
        for route in routes:
            own[route["train"]].operated = True
        game.rules.after_run_routes(game, round_, corp)
        self.passed = True


def refuse_stated_extras(action: dict[str, Any]) -> None:
    """A run states its routes; what they earn, and any bonus beside them, the engine works out. A record's
    `extra_revenue` and `subsidy` are therefore 0 (the reference adds a stated extra to the revenue as it
    comes: a client could pay itself more), and a run stating other amounts is refused."""
    for field in ("extra_revenue", "subsidy"):
        stated = action.get(field)
        if stated not in (None, 0):
            raise IllegalAction(f"a run states no {field.replace('_', ' ')} ({stated!r} stated): the engine works "
                                "out what the routes earn", "route_revenue")


class Dividend(Step):
    handlers = {"dividend": "dividend"}
    offers = {"dividend": "offer_dividend"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return []
        corp = game.corporations[entity]
        if not round_.routes or not game.rules.may_choose_dividend(game, corp):
            return []
        return ["dividend"]

    def skip(self, game: Game, round_: Round) -> None:
        assert isinstance(round_, OperatingRound)
        self.passed = True
        corp = round_.corp(game)
        game.rules.distribute(game, round_, corp, "withhold", None)

    def offer_dividend(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        return [{"kind": kind} for kind in game.rules.dividend_kinds(game, game.corporations[entity])]

    def dividend(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        kind = action.get("kind")
        if kind not in game.rules.dividend_kinds(game, corp):
            raise IllegalAction(f"dividend kind {kind!r} not allowed; choose {game.rules.dividend_kinds(game, corp)}",
                                "dividend_kind")
        game.rules.distribute(game, round_, corp, kind, action.get("amount"))
        self.passed = True



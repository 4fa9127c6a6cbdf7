"""The operating round's run and dividend steps: the routes a corporation runs and what it does with the
revenue."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..board.suggest import offered_run
from ..errors import IllegalAction, MalformedAction
from ..model import POOL, Corporation
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
        return self.route_actions(game, round_, corp)

    def check_run(self, game: Game, round_: OperatingRound, corp: Corporation, action: dict[str, Any]) -> list[int]:
        """Every reason to refuse a run, asked before anything is recorded (and by `legal_actions` for the
        run it offers). Returns each route's revenue."""
        routes = action.get("routes")
        if not isinstance(routes, list):
            raise MalformedAction("run_routes needs a list of routes", "routes_shape")
        refuse_stated_extras(action)
        own = {t.id for t in round_.route_trains(game, corp)}
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
        by_id = {t.id: kinds[t.name] for t in round_.route_trains(game, corp)}
        extras = {"extra_revenue": 0, "subsidy": 0}
        routes = offered_run(game.board, entity, by_id, tuple(game.rules.revenue_colors(game)), game.phase.name,
                             lambda r: game.accepts({"type": "run_routes", "entity": entity, "routes": r, **extras}))
        return [] if routes is None else [{"routes": routes, **extras}]

    def run_routes(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        revenues = self.check_run(game, round_, corp, action)
        routes = action["routes"]
        own = {t.id: t for t in round_.route_trains(game, corp)}
        round_.routes = [dict(r, revenue=rev) for r, rev in zip(routes, revenues, strict=True)]
        round_.revenue = sum(revenues) + self.extra_revenue(game, round_, corp)
        for route in routes:
            own[route["train"]].operated = True
        self.after_run_routes(game, round_, corp)
        self.passed = True

    # -- what a title's step changes ------------------------------------------------------------------------
    def route_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        """The action types this step opens to `corp`: its run, when it has a train to run."""
        if not round_.route_trains(game, corp):
            return []
        return ["run_routes"]

    def extra_revenue(self, game: Game, round_: OperatingRound, corp: Corporation) -> int:
        """Revenue the title adds to the routes' (`round_.routes` holds them)."""
        return 0

    def after_run_routes(self, game: Game, round_: OperatingRound, corp: Corporation) -> None:
        """What follows a recorded run (nothing by default); it may still refuse the run."""


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
        if not round_.routes or not self.may_choose_dividend(game, corp):
            return []
        return ["dividend"]

    def skip(self, game: Game, round_: Round) -> None:
        assert isinstance(round_, OperatingRound)
        self.passed = True
        corp = round_.corp(game)
        self.distribute(game, round_, corp, "withhold", None)

    def offer_dividend(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        return [{"kind": kind} for kind in self.dividend_kinds(game, game.corporations[entity])]

    def dividend(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        kind = action.get("kind")
        if kind not in self.dividend_kinds(game, corp):
            raise IllegalAction(f"dividend kind {kind!r} not allowed; choose {self.dividend_kinds(game, corp)}",
                                "dividend_kind")
        self.distribute(game, round_, corp, kind, action.get("amount"))
        self.passed = True

    # -- what a title's step changes ------------------------------------------------------------------------
    def may_choose_dividend(self, game: Game, corp: Corporation) -> bool:
        """Whether `corp` chooses what to do with its revenue (if not, the step withholds: `skip`)."""
        return True

    def dividend_kinds(self, game: Game, corp: Corporation) -> list[str]:
        return ["payout", "withhold"]

    @staticmethod
    def pay_shareholders(game: Game, corp: Corporation, per_share: int) -> None:
        """The bank pays each player his dividend: `per_share` for every 10% he holds."""
        for player in game.players:
            pct = corp.percent_owned_by(player.id)
            if pct:
                game.pay(None, player, per_share * pct // 10)

    def distribute(self, game: Game, round_: OperatingRound, corp: Corporation, kind: str, amount: Any) -> None:
        """Pay out (the market's shares paying the corporation) or withhold the turn's revenue, then move
        the price."""
        revenue = round_.revenue
        if kind == "payout" and revenue > 0:
            per_share = revenue // 10
            self.pay_shareholders(game, corp, per_share)
            pool = corp.percent_owned_by(POOL)
            if pool:
                game.pay(None, corp, per_share * pool // 10)
        elif revenue > 0:
            game.pay(None, corp, revenue)
        self.move_price_after_dividend(game, corp, kind, revenue)

    def move_price_after_dividend(self, game: Game, corp: Corporation, kind: str, revenue: int) -> None:
        if corp.share_cell is None:
            return
        if kind == "payout" and revenue > 0:
            corp.share_cell = game.market.right(corp.share_cell)
        else:
            corp.share_cell = game.market.left(corp.share_cell)



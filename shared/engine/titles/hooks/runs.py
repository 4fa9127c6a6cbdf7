"""Runs and their revenue, special purchases during the turn, and what a dividend does to holders and price."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...board.trains import TrainKind
from ...core.operating import OperatingRound
from ...errors import IllegalAction
from ...model import POOL, Corporation, Train

if TYPE_CHECKING:
    from ...game import Game


class RunRules:
    def route_trains(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[Train]:
        return [t for t in corp.trains if not t.rusted]

    def route_available(self, game: Game, corp: Corporation) -> bool:
        """A train could run: one of the corporation's stations is joined by track to another stop (a city,
        town or halt, or another of its stations). Stations that stand alone — two stations with no track
        between them included — run nothing, so the run (and what depends on it) is not offered and the turn's
        revenue is withheld (rules-1825.md, "No run without a route")."""
        if game.board.runs_from_station(corp.sym):
            return True
        reach = game.board.reach(corp.sym)
        if not reach.token_nodes:
            return False
        if reach.nodes - reach.token_nodes:
            return True
        if len(reach.token_nodes) < 2:
            return False
        kinds = self.train_kinds(game)
        kind = kinds.get("2") or next(iter(kinds.values()))  # any run has two stops
        return bool(game.board.best_routes(corp.sym, {"probe": kind}, self.revenue_colors(game),
                                           game.phase.name, per_train=1, search_limit=500))

    def route_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        if not self.route_trains(game, round_, corp):
            return []
        return ["run_routes"]

    def train_kinds(self, game: Game) -> dict[str, TrainKind]:
        return game.defn.train_kinds

    def revenue_colors(self, game: Game) -> tuple[str, ...]:
        return game.phase.tiles

    def extra_revenue(self, game: Game, round_: OperatingRound, corp: Corporation) -> int:
        return 0

    def special_buy(self, game: Game, round_: OperatingRound, corp: Corporation, action: dict[str, Any]) -> None:
        raise IllegalAction("nothing special to buy in this title", "special_buy")

    def after_run_routes(self, game: Game, round_: OperatingRound, corp: Corporation) -> None:
        pass

    def may_choose_dividend(self, game: Game, corp: Corporation) -> bool:
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

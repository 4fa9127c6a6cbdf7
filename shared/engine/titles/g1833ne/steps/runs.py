"""1833NE's run and dividend steps: runs with the ferry, port and P4/P6 bonuses, after which obsolete trains
leave; full, half or withheld dividends, the treasury's and the market's shares paying the corporation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.operating import OperatingRound
from ....core.rounds import Round
from ....core.runs import Dividend, RunRoutes
from ....errors import EngineError, IllegalAction
from ....model import Corporation
from .. import bonuses
from .. import constants as K
from ..state import state
from .finance import rules_of

if TYPE_CHECKING:
    from ....game import Game


class RunStep(RunRoutes):
    """Run, then obsolete trains leave (they run once more after becoming obsolete)."""

    def run_routes(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        self.check_route_restrictions(corp, action.get("routes"))
        super().run_routes(game, round_, action, trusted)
        self.remove_obsolete(game, corp)

    def skip(self, game: Game, round_: Round) -> None:
        assert isinstance(round_, OperatingRound)
        self.passed = True
        self.remove_obsolete(game, round_.corp(game))

    @staticmethod
    def remove_obsolete(game: Game, corp: Corporation) -> None:
        """Obsolete trains leave once their owner has run (or had nothing to run)."""
        for train in [t for t in corp.trains if t.obsolete]:
            state(game).faces.pop(train.id, None)
            game.rust(train)

    def route_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        if corp.sym == "B&L" and not state(game).p2_bought and game.board.hex(K.BOSTON).tile.preprinted:
            return []
        return super().route_actions(game, round_, corp)

    def extra_revenue(self, game: Game, round_: OperatingRound, corp: Corporation) -> int:
        return bonuses.extra_revenue(game, round_.routes, corp)

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        assert isinstance(round_, OperatingRound)
        sym = action.get("entity")
        if action["type"] != "run_routes" or sym not in game.corporations or sym != round_.current_entity(game):
            return None
        corp = game.corporations[sym]
        if self.passed:
            return IllegalAction(f"{corp.sym} has already run this turn", "run_over")
        if not any(not t.rusted for t in corp.trains):
            return IllegalAction(f"{corp.sym} has no train to run", "no_train")
        if corp.sym == "B&L" and not state(game).p2_bought and game.board.hex(K.BOSTON).tile.preprinted:
            return IllegalAction("the Boston & Lowell runs no routes while Boston is not upgraded, until a "
                                 "corporation has bought the Lowell Merchants (P2)", "bl_no_run")
        return None

    def offer_run(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """The best run `auto_routes` finds, a bonus's extension included (its revenue the engine works out, so
        the offer states none)."""
        return [{"routes": self.auto_routes(game, game.corporations[entity])}]

    @staticmethod
    def check_route_restrictions(corp: Corporation, routes: Any) -> None:
        """Only the Delaware & Hudson's (P6's) owner may run to A12."""
        if not isinstance(routes, list):
            return
        for route in routes:
            if isinstance(route, dict) and K.P6_HEX in bonuses.route_hexes(route) and K.P6 not in corp.companies:
                raise IllegalAction("only the owner of the Delaware & Hudson may run to A12", "route_a12")

    @classmethod
    def auto_routes(cls, game: Game, corp: Corporation) -> list[dict[str, Any]]:
        """The best routes of the corporation's trains, each run as the face its card was bought as, leaving
        out a route to A12 it may not run."""
        kinds = game.rules.train_kinds(game)  # a card's chosen face is a kind of its own
        faces = state(game).faces
        trains = {t.id: kinds[faces.get(t.id, t.name)] for t in corp.trains if not t.rusted}
        if not trains:
            return []
        routes = game.board.best_routes(corp.sym, trains, game.phase.tiles, game.phase.name, search_limit=3000,
                                        per_train=15, max_stops=9)
        out = []
        for route in routes:
            try:
                cls.check_route_restrictions(corp, [route])
            except IllegalAction:
                continue
            out.append({"train": route["train"], "connections": route["connections"], "nodes": route["nodes"]})
        return out


class DividendStep(Dividend):
    """Full, half or withheld dividends; treasury and market shares pay the corporation; the price moves by
    what a share was paid, and a corporation at $0 closes."""

    def dividend_kinds(self, game: Game, corp: Corporation) -> list[str]:
        return ["payout", "half", "withhold"]

    def distribute(self, game: Game, round_: OperatingRound, corp: Corporation, kind: str, amount: Any) -> None:
        revenue = max(round_.revenue, 0)
        if kind == "payout":
            per_share = revenue // 10
        elif kind == "half":
            per_share = revenue // 20
        else:
            per_share = 0
        paid = 0
        for player in game.players:
            pct = corp.percent_owned_by(player.id)
            if pct and per_share:
                game.pay(None, player, per_share * pct // 10)
                paid += per_share * pct // 10
        # treasury shares receive dividends; so do market shares (as in 1846, gap): both go to the treasury
        game.pay(None, corp, revenue - paid)
        self.move_price(game, corp, per_share)
        round_.routes = []
        rules_of(game).check_price_close(game, corp)

    @staticmethod
    def move_price(game: Game, corp: Corporation, per_share: int) -> None:
        """Paid per share: under half the price one space left, up to the price stays, from the price one
        right, from twice two, from three times three (only from $165 up)."""
        if corp.share_cell is None:
            return
        price = game.share_price(corp) or 0
        if per_share * 2 < price:
            corp.share_cell = game.market.left(corp.share_cell)
        elif per_share < price:
            return
        elif per_share >= 3 * price and price >= K.TRIPLE_MOVE_MIN_PRICE:
            corp.share_cell = game.market.right(corp.share_cell, 3)
        elif per_share >= 2 * price:
            corp.share_cell = game.market.right(corp.share_cell, 2)
        else:
            corp.share_cell = game.market.right(corp.share_cell)

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
        rules_of(game).check_route_restrictions(game, corp, action.get("routes"))
        super().run_routes(game, round_, action, trusted)
        rules_of(game).remove_obsolete(game, corp)

    def skip(self, game: Game, round_: Round) -> None:
        assert isinstance(round_, OperatingRound)
        self.passed = True
        rules_of(game).remove_obsolete(game, round_.corp(game))

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
        """The best run `Rules1833NE.auto_routes` finds, a bonus's extension included (its revenue the engine
        works out, so the offer states none)."""
        return [{"routes": rules_of(game).auto_routes(game, game.corporations[entity])}]


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
        rules = rules_of(game)
        rules.move_price(game, corp, per_share)
        round_.routes = []
        rules.check_price_close(game, corp)

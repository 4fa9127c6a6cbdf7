"""1833NE's operating round: who operates in which order, a home station that is never lost, and the state
of a corporation's turn its steps share (whether it used its one finance action, its P3 lays, the trains it
bought, its president's emergency sales).

Its steps are in `steps/`: building and the finance and shopping open meanwhile (`steps/track.py`,
`steps/finance.py`), runs and dividends (`steps/runs.py`), trains, the emergency purchase and the discard
(`steps/trains.py`). Each declares its moves as the core's steps do (`offers`), so legal actions and the
random-play soak need no knowledge of the rules beyond what the steps already say.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ...core.operating import OperatingRound
from ...core.rounds import Step
from ...errors import IllegalAction
from ...model import Corporation
from .state import state

if TYPE_CHECKING:
    from ...game import Game


@runtime_checkable
class SellsInEmergency(Protocol):
    """The step that takes a president's emergency sale (`steps/trains.TrainStep`), named here so that the
    round need not import its steps."""

    def emergency_sell(self, game: Game, round_: Operating1833, action: dict[str, Any]) -> None: ...


def operating_order(game: Game) -> list[str]:
    """The launched corporations by share price: lowest first in the first operating round, highest first
    after it, ties by launch order (asked by the round, and by the rules to see a stalled game)."""
    launched: list[str] = state(game).launch_order
    corps = [game.corporations[s] for s in launched if not game.corporations[s].closed]
    first = game.turn == 1 and getattr(game.round, "round_num", 1) == 1
    sign = 1 if first else -1
    corps.sort(key=lambda c: (sign * (game.share_price(c) or 0), launched.index(c.sym)))
    return [c.sym for c in corps]


class Operating1833(OperatingRound):
    """Adds the per-turn state 1833NE needs: whether the corporation used its one finance action."""

    def __init__(self, steps: list[Step], round_num: int) -> None:
        super().__init__(steps, round_num)
        self.financed = False
        self.p3_lays = 0
        self.bought_trains = 0
        self.pending_lay: str | None = None  # the hex being paid for, so P2's free lay can be recognised
        self.turn_sales: dict[str, int] = {}  # the president's emergency sales this turn (`sell_to_market`)

    def current_entity(self, game: Game) -> Any:
        """A corporation pushed over its train limit by another's purchase discards before play goes on."""
        if not self.done:
            for corp in game.corporations.values():
                if not corp.closed and len(game.rules.limit_trains(game, corp)) > game.train_limit(corp):
                    return corp.sym
        return super().current_entity(game)

    def operating_order(self, game: Game) -> list[str]:
        return operating_order(game)

    def place_home_token(self, game: Game, corp: Corporation, at_round_start: bool) -> None:
        """A home token is never lost: if its city filled up meanwhile it takes an extra slot there."""
        try:
            super().place_home_token(game, corp, at_round_start)
        except IllegalAction:
            city = game.board.home_city(corp.sym, corp.home, corp.home_city_index)
            h = game.board.hex(corp.home)
            ci = int(city.rpartition("-")[2])
            game.board.place_token(corp.sym, city, len(h.tokens[ci]))
            corp.tokens_placed += 1

    def start_operating(self, game: Game, corp: Corporation) -> None:
        self.reset_turn()

    def reset_turn(self) -> None:
        self.financed = False
        self.p3_lays = 0
        self.bought_trains = 0
        self.turn_sales = {}

    def sales_this_turn(self) -> dict[str, int]:
        return self.__dict__.setdefault("turn_sales", {})  # (a round pickled mid-turn before it had them)

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        """A player's sale while a corporation operates is its president's emergency sale: the train step takes
        it (and refuses it, in the words of the rule, when no emergency sale is open)."""
        entity = action.get("entity")
        if action.get("type") == "sell_shares" and isinstance(entity, int) and not isinstance(entity, bool) \
                and not self.done and any(p.id == entity for p in game.players):
            step = next(s for s in self.steps if isinstance(s, SellsInEmergency))
            step.emergency_sell(game, self, action)
            self.after_process(game, action)
            return
        super().process(game, action, trusted)

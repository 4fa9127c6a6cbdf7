"""The stock round: players in turn buy, sell and start corporations until all pass in succession (its
moves are its step's, `stock.BuySellParShares`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .rounds import Round, Step

if TYPE_CHECKING:
    from ..protocol import Game

PURCHASES = frozenset({"buy_shares", "par", "buy_company"})


class StockRound(Round):
    kind = "Stock"

    def __init__(self, steps: list[Step]) -> None:
        super().__init__(steps, 1)
        self.last_to_act: int | None = None
        self.turn_actions: list[dict[str, Any]] = []
        self.sold: dict[int, dict[str, str]] = {}
        # each player's moves in their latest turn of this round (the list is that turn's `turn_actions`),
        # players in the order their first turn began: what a standing order looks at (programs.py)
        self.history: dict[int, list[dict[str, Any]]] = {}
        self.moves = 0  # moves recorded so far this round: each move's place, for dating against orders

    def start(self, game: Game) -> None:
        self.entities = [p.id for p in game.players_in_order() if not p.bankrupt]
        for player in game.players:
            player.passed = False
        self.index = 0
        self._begin_turn(game)

    def _begin_turn(self, game: Game) -> None:
        self.turn_actions = []
        self._note_turn(game)
        for step in self.steps:
            step.setup(game, self)
        if self.settle(game) is None and not self.done:
            self.next_entity(game)

    def after_process(self, game: Game, action: dict[str, Any]) -> None:
        if action["type"] != "pass":
            if self.sets_priority(action):
                self.last_to_act = action["entity"]
            # standing orders date the moves they watch (programs.py): by the id of the player's action (an
            # auto action by the one that caused it) and by the move's place in the round
            self.moves += 1
            self.turn_actions.append(dict(action, id=action.get("id", game.action_id), auto="id" not in action,
                                          seq=self.moves))
        if self.settle(game) is None and not self.done:
            self.next_entity(game)

    def next_entity(self, game: Game) -> None:
        while True:
            if all(game.player(pid).passed for pid in self.entities):
                self.done = True
                self.finish_stock_round(game)
                return
            pid = self.entities[self.index]
            for corp, when in list(self.sold.get(pid, {}).items()):
                self.sold[pid][corp] = "prev" if when == "now" else when
            self.index = (self.index + 1) % len(self.entities)
            self.turn_actions = []
            self._note_turn(game)
            for step in self.steps:
                step.setup(game, self)
            step = self.settle(game)
            if self.done or step is not None:
                return

    def _note_turn(self, game: Game) -> None:
        current = self.current_entity(game)
        if isinstance(current, int):
            self.history[current] = self.turn_actions

    def bought(self) -> bool:
        return any(a["type"] in PURCHASES for a in self.turn_actions)

    # -- what a title's round changes -----------------------------------------------------------------------
    def sets_priority(self, action: dict[str, Any]) -> bool:
        """Whether `action` (not a pass) makes its player the last to act, who sets the priority deal."""
        return True

    def turn_counts_as_action(self) -> bool:
        """Whether the turn now ending by a pass counts as acting (the round goes on), not as passing."""
        return bool(self.turn_actions)

    def finish_stock_round(self, game: Game) -> None:
        """What the end of the round does once everyone has passed (a title's price moves)."""

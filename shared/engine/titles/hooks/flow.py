"""Which round follows which, what the engine does by itself, who acts for a corporation, and when and how
a game ends (with each player's value)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.operating import OperatingRound
from ...core.rounds import Round
from ...core.stockround import StockRound
from ...model import Corporation, Player

if TYPE_CHECKING:
    from ...protocol import Game


class FlowRules:
    # A game still running when a round ends in this turn (or later) ends there, as not finished ("dnf"):
    # a game nobody can bring to its title's own end (every corporation closed, the bank never breaking)
    # must still end (docs/rules-1825.md, "A game that cannot end ends after turn 100"; the reference's
    # engine ends every title's game so).
    last_turn = 100
    # True for a title whose state may depend on how it was reached, not only on its log (1828's merger
    # answers seen before a reload): a refused live move then restores an exact copy, since folding the log
    # again could give another state (GameSession.submit)
    path_dependent = False

    def looked_at(self, game: Game) -> None:
        """The state a session has just rebuilt (an undo or redo reloads the game) is shown before the next
        move, as every state reached by a move is. A title in which being looked at changes the state (see
        `path_dependent`) settles that here; a reload's own intermediate positions are never looked at.
        Nothing by default."""

    def next_round(self, game: Game, previous: Round) -> Round:
        if isinstance(previous, StockRound):
            game.operating_rounds = game.phase.operating_rounds
            self.reorder_players(game, previous)
            return self.operating_round(game, 1)
        assert isinstance(previous, OperatingRound)
        if previous.round_num < game.operating_rounds:
            return self.operating_round(game, previous.round_num + 1)
        game.turn += 1
        return self.stock_round(game)

    def reorder_players(self, game: Game, stock: StockRound) -> None:
        last = stock.last_to_act
        if last is None or last not in game.player_order:
            return
        i = game.player_order.index(last) + 1
        game.player_order = game.player_order[i:] + game.player_order[:i]

    def auto_action(self, game: Game) -> dict[str, Any] | None:
        """The next action nobody decides (the engine takes it in live play, `programs.run_programs`), or
        None."""
        return None

    def check_game_end(self, game: Game) -> None:
        pass

    def ends_after_round(self, game: Game, previous: Round) -> bool:
        return True

    def player_value(self, game: Game, player: Player) -> int:
        """What decides the winner: cash, certificates at their market price and private companies at face
        value, less what the title takes off at the end (`value_deductions`: loans, penalties)."""
        return (player.cash + self.shares_value(game, player) + self.companies_value(game, player)
                - self.value_deductions(game, player))

    def shares_value(self, game: Game, player: Player) -> int:
        """The player's certificates at market price (a corporation without a price counts nothing)."""
        value = 0
        for corp in game.corporations.values():
            price = game.share_price(corp)
            if price is None or corp.closed:
                continue
            value += price * corp.percent_owned_by(player.id) // 10
        return value

    def companies_value(self, game: Game, player: Player) -> int:
        return sum(game.companies[sym].value for sym in player.companies)

    def value_deductions(self, game: Game, player: Player) -> int:
        return 0

    def acting_player_for(self, game: Game, corp: Corporation) -> int | None:
        return corp.president

    def value_notes(self, game: Game, player: Player) -> list[str]:
        """What `player_value` takes off beyond cash and holdings (loans, penalties), in words for the page:
        a value far below a player's cash must say why."""
        return []

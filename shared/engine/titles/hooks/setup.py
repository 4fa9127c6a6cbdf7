"""Setting a game up: options, board, bank, corporations, the first rounds; and the title's data constants."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...board import Board, BoardRules
from ...board.routes import DefaultRouteRules
from ...core.rounds import Round

if TYPE_CHECKING:
    from ...protocol import Game
    from ...titledata import Composer, TitleData


class SetupRules:
    # An option that declares its player counts is dropped, silently, from a game of another count
    # (titledata.options_for_players) before the title normalises the rest; a title that checks its options
    # against the player count itself (1825: the merged Units' range) turns this off.
    drops_options_by_players = True

    def normalise_options(self, options: list[str], players: int) -> list[str]:
        return options

    # titles whose option sets are built from blocks (1825) set this; see titledata.load
    compose_data: Composer | None = None

    def load_board(self, data: TitleData) -> Board:
        config = next(c for c in data.meta["configurations"] if c["name"] == data.configuration)
        return Board.load(data.directory, config["map_file"], data.setup, self.board_rules(data.directory))

    def route_rules(self) -> DefaultRouteRules:
        """The checks and revenue this title's runs follow; the board keeps them (`BoardRules.route_rules`)
        so the shared route code asks no title by name. A title whose runs differ returns its own set."""
        return DefaultRouteRules()

    def board_rules(self, directory: Path) -> BoardRules:
        """The board knobs of this title: the defaults its data files give, with its route rules; a title
        adjusts what its rules change (1825's tile limits, 1833NE's bonuses)."""
        out = BoardRules.from_title_data(directory)
        out.route_rules = self.route_rules()
        return out

    def initial_bank_cash(self, game: Game) -> int:
        cash = game.defn.data.setup["bank"]["cash"]
        return 10**9 if cash == "unlimited" else int(cash)

    def corporation_kind(self, raw: dict[str, Any]) -> str:
        return raw.get("type") or "major"

    def setup(self, game: Game) -> None:
        pass

    def first_round(self, game: Game) -> Round:
        return self.stock_round(game)

    def stock_round(self, game: Game) -> Round:
        raise NotImplementedError

    def operating_round(self, game: Game, round_num: int) -> Round:
        raise NotImplementedError

    def rule(self, game: Game, name: str, default: Any = None) -> Any:
        return game.defn.data.rule(name, default)

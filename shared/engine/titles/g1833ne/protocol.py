"""What 1833NE's rounds ask of the title's rules: the protocol `Rules1833NE` (the package's `rules.py`)
implements. Declared here, below the rules that compose the rounds, so the rounds need not import them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Corporation, Train


class Rules(Protocol):
    def check_price_close(self, game: Game, corp: Corporation) -> None: ...
    def limit_trains(self, game: Game, corp: Corporation) -> list[Train]: ...
    def room_for_train(self, game: Game, corp: Corporation) -> bool: ...
    def sync_virtual_stations(self, game: Game) -> None: ...

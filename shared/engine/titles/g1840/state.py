"""1840's own part of the game state: which lines are offered, in reserve and owned by which Tram Company,
the majors in play, the round counters the fixed round bar runs on, the maintenance table in force, the
players' loans and seat choices, the Stadtbahn chain hexes built, and the order companies reached their
market cells in. Also the names of the three kinds of company, which the state and every round speak of."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from ...model import TitleState

if TYPE_CHECKING:
    from ...game import Game

# the kinds of company (the board data's corporation `type`): Tram Companies, their Lines, the Stadtbahnen
MAJOR, LINE, CITY = "major", "minor", "city"


@dataclass
class State1840(TitleState):
    # lines up for auction now, and those not yet drawn (line 2 is never in the first draw)
    lines_offered: list[str] = field(default_factory=list)
    lines_reserve: list[str] = field(default_factory=list)
    # the Tram Companies drawn into play, and the lines each owns in the order it won them
    majors: list[str] = field(default_factory=list)
    owned_lines: dict[str, list[str]] = field(default_factory=dict)
    # company and line rounds begun so far (the round bar, the revenue multiplier and the phases follow them)
    cr_counter: int = 0
    lr_counter: int = 0
    # the majors' order for the current company round, fixed when its dividends start (None: not yet)
    cr_order: list[str] | None = None
    # tram kind -> maintenance a line pays for it, the table of the newest colour bought so far
    maintenance: dict[str, int] = field(default_factory=dict)
    # player id -> the amount borrowed (loans of 100 each), and the seat each chose after the auction
    loans: dict[int, int] = field(default_factory=dict)
    order_choice: dict[int, int] = field(default_factory=dict)
    # the founding money is paid at the start of the first stock round only
    first_sr: bool = True
    # Stadtbahn chain hexes that took their tile as a line's own Stadtbahn lay
    stadtbahn_built: list[str] = field(default_factory=list)
    # company -> when it reached its current market cell (on a shared cell the earlier one operates first)
    arrival: dict[str, int] = field(default_factory=dict)
    arrival_seq: int = 0


def state(game: Game) -> State1840:
    """The game's 1840 state (set up by `Rules1840.setup` through `state_class`)."""
    return cast(State1840, game.title_state)

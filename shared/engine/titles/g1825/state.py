"""1825's own part of the game state: which corporations have formed (their operating order among equal
prices) and the bands of the set-up (which band the minors open in, the last band there is)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from ...model import Corporation, TitleState

if TYPE_CHECKING:
    from ...game import Game


@dataclass
class State1825(TitleState):
    # corporations in the order they formed (a major when it floats, a minor when it pays for its train):
    # the operating order among corporations of equal par price
    formed: list[str] = field(default_factory=list)
    # the band the minors open in and the highest band of the configuration (composition.json)
    minor_band: int = 0
    max_band: int = 0


def state(game: Game) -> State1825:
    """The game's 1825 state (set up by `Rules1825.setup` through `state_class`)."""
    return cast(State1825, game.title_state)


def in_receivership(corp: Corporation) -> bool:
    """A corporation in receivership: floated, and no player holds its director's certificate (the seed's
    receivership; docs/rules-1825.md, "Selling part of the director's certificate"). A function of the
    corporation alone, so 1825's steps read it with its type known, without the game's rules object
    (`Rules1825.receivership` answers with it)."""
    return corp.floated and corp.president is None


def silent_receivership(game: Game, corp: Corporation) -> bool:
    """A minor in receivership in a game with Unit 1 or 2: it lays no track, runs no train and buys none
    (`Rules1825.silent_receivership` answers with it; the train step reads it without the rules object)."""
    units = (game.defn.data.setup.get("title_specific") or {}).get("units") or []
    return in_receivership(corp) and corp.kind == "minor" and (1 in units or 2 in units)

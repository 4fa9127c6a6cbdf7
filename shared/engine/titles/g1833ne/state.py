"""1833NE's own part of the game state: the ferries and their bonuses, the trains that run as another face,
the privates' one-off abilities and the Takeover game's count of taken-over corporations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from ...model import TitleState

if TYPE_CHECKING:
    from ...game import Game


@dataclass
class State1833NE(TitleState):
    # corporations in the order they were launched (operating order among equal prices)
    launch_order: list[str] = field(default_factory=list)
    # train id -> the face it runs as (a two-faced train turned over by its owner)
    faces: dict[str, str] = field(default_factory=dict)
    # ferry id -> its owner (None: still for sale; "removed": gone with phase or owner)
    ferries: dict[str, str | None] = field(default_factory=dict)
    # ferries in the order they were bought: the newest carries the "new" bonus, the last one the "last"
    ferry_order: list[str] = field(default_factory=list)
    # the ferry P5 doubles (the first ferry P5's owner has), once assigned
    luxury: str | None = None
    # P2 bought, and the free Lowell lay it gives that operating turn: (corporation, turn, OR number)
    p2_bought: bool = False
    p2_free: tuple[str, int, int] | None = None
    # lays left of P3's ability
    p3_left: int = 0
    # Takeover game: corporation -> how many corporations it took over (each raises its train limit)
    takeovers: dict[str, int] = field(default_factory=dict)


def state(game: Game) -> State1833NE:
    """The game's 1833NE state (set up by `Rules1833NE.setup` through `state_class`)."""
    return cast(State1833NE, game.title_state)

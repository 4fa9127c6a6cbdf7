"""1828's own part of the game state: the Systems and their shells, coal markers, the C&P minor's owner,
privates' abilities pending or used, par groups and market stamps, and the final turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from ...model import TitleState

if TYPE_CHECKING:
    from ...game import Game


@dataclass
class State1828(TitleState):
    # the par-price groups open so far (phase events open more)
    par_groups: list[str] = field(default_factory=list)
    # the player who owns each minor (the C&P minor)
    minor_owner: dict[str, int] = field(default_factory=dict)
    # corporations holding a coal marker
    coal: list[str] = field(default_factory=list)
    # coal markers still on the Virginia Coalfields
    coal_on_field: int = 0
    # when each corporation reached its market cell: (cell, stamp), the order among equals
    cell_stamp: dict[str, tuple[tuple[int, int], int]] = field(default_factory=dict)
    # the phase event that removes unstarted corporations has happened
    remove_corporations: bool = False
    # each System's two member corporations
    systems: dict[str, list[str]] = field(default_factory=dict)
    # the counter behind `cell_stamp`
    stamp: int = 0
    # the last turn once the final phase is reached
    final_turn: int = 0
    # phase events already carried out
    events_done: list[str] = field(default_factory=list)
    # minors taken out of play
    removed_minors: list[str] = field(default_factory=list)
    # player id -> {corporation: percent}: certificates of corporations withdrawn at Purple that players kept
    withdrawn_shares: dict[int, dict[str, int]] = field(default_factory=dict)
    # home hex -> the corporation whose home it was, left without its station
    loose_homes: dict[str, str] = field(default_factory=dict)
    # certificates a System holds that no one may buy from it
    unbuyable: list[str] = field(default_factory=list)
    # each System's train shells
    shells: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # '<private>/<when>' for abilities used up
    used_abilities: list[str] = field(default_factory=list)
    # privates whose tile lay must be made now
    pending_lays: list[str] = field(default_factory=list)
    # the private whose station must be placed now
    pending_token: list[str] = field(default_factory=list)
    # where that station goes
    pending_token_hex: str = ""
    # whether it blocks the acting corporation's turn
    pending_token_block: bool = False


def state(game: Game) -> State1828:
    """The game's 1828 state (made by the game from `Rules1828.state_class`)."""
    return cast(State1828, game.title_state)

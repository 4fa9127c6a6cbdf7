"""The shared 18xx core as a set of named hooks. A title subclasses this once and overrides only what
its rules change; every default reads the title's own data (rules.json, setup) rather than a global flag.
The hooks come in groups, one module each under `hooks/`: set-up, flow and the end of the game, the stock
round, what runs are measured with, trains, and how the title is shown."""

from __future__ import annotations

from collections.abc import Mapping

from ..model import TitleState
from .hooks import FlowRules, RunRules, SetupRules, StockRules, TrainRules, ViewRules


class TitleRules(SetupRules, FlowRules, StockRules, RunRules, TrainRules, ViewRules):
    title = ""
    # the title's typed part of the game state (`game.title_state`): a dataclass in the title's package
    state_class: type[TitleState] = TitleState
    # the action types this title alone takes (type -> its fields beyond those every action has), beside the
    # shared ones of `actions.py`: `Game.process` takes both, the gateway checks a move's fields by them
    title_actions: Mapping[str, tuple[str, ...]] = {}

"""Railpost rules engine: pure Python, no I/O, no clock, no global state.

Public surface: `GameSession` (an action log folded into a `Game`), the typed refusals, and `replay`.
"""

from .errors import DataError, EngineError, IllegalAction, MalformedAction, ReplayError
from .game import Game
from .session import GameSession, final_active_flags

__all__ = [
    "DataError",
    "EngineError",
    "Game",
    "GameSession",
    "IllegalAction",
    "MalformedAction",
    "ReplayError",
    "final_active_flags",
]

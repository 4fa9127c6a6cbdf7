"""Typed refusals: a malformed action (bad shape, unknown ids) versus an illegal one (well-formed, but the
rules forbid it now). Callers map them to HTTP 400 and 422; both leave the game state unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class EngineError(Exception):
    """Base of every refusal. `rule` is a short stable code naming the rule, for clients and tests; `valid`,
    where the engine knows them, the values that would have been accepted (so no caller parses the text)."""

    def __init__(self, message: str, rule: str = "rule", valid: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.valid = valid

    def to_dict(self) -> dict[str, str]:
        return {"error": type(self).__name__, "rule": self.rule, "message": self.message}


def accepts(check: Callable[..., object], *args: Any, **kwargs: Any) -> bool:
    """Whether a check lets an action through: every check raises the EngineError naming the broken rule,
    or returns. Legal-action enumeration asks this of each candidate."""
    try:
        check(*args, **kwargs)
    except EngineError:
        return False
    return True


class MalformedAction(EngineError):
    """The action cannot be understood: missing fields, wrong types, unknown ids."""


class IllegalAction(EngineError):
    """The action is understood but the rules do not allow it now."""


class DataError(Exception):
    """Board data failed validation when a title was loaded."""


class ReplayError(Exception):
    """A recorded game could not be replayed: names the first refused action."""

    def __init__(self, index: int, action: dict, error: EngineError) -> None:
        self.index = index
        self.action = action
        self.error = error
        super().__init__(
            f"action id {action.get('id')} (index {index}, {action.get('type')}) refused: {error.message}"
        )

"""Typed refusals: a malformed action (bad shape, unknown ids) versus an illegal one (well-formed, but the
rules forbid it now). Callers map them to HTTP 400 and 422; both leave the game state unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class EngineError(Exception):
    """Base of every refusal, structured so that no caller parses its text: `rule` is a short stable code
    naming the rule, for clients and tests; `reason` says what is wrong without the list of alternatives;
    `valid`, where the engine knows them, the values that would have been accepted. `message` is the full
    sentence for a person (the reason, and the valid values where the engine words them)."""

    def __init__(self, message: str, rule: str = "rule", valid: Any = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.valid = valid
        self.reason = reason if reason is not None else message

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": type(self).__name__, "rule": self.rule, "reason": self.reason,
                               "message": self.message}
        if self.valid is not None:
            out["valid"] = self.valid
        return out


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

"""Which values of a title are provisional: placeholders the engine plays with until a rulebook confirms them.

For the service (`GET /titles`, game creation) and the game page's notice. A title that has such values
answers through its rules' `provisional_values(options)`; every other title has none.
"""

from __future__ import annotations

from collections.abc import Iterable

from .titles import rules_for


def provisional_values(title: str, options: Iterable[str] = ()) -> list[dict[str, str]]:
    """[{key, description}] of the values a game of `title` with `options` would play with provisionally."""
    rules = rules_for(title)
    hook = getattr(rules, "provisional_values", None)
    return [] if hook is None else list(hook(list(options)))


__all__ = ["provisional_values"]

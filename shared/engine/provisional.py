"""Which values of a title are provisional: placeholders the engine plays with until a rulebook confirms them.

For the service (`GET /titles`, game creation) and the game page's notice. A title that has such values
answers through its rules' `provisional_values(options)` and says so in its `meta.json` (`provisional.notice`);
every other title has none.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from .errors import DataError
from .titledata import title_directory
from .titles import rules_for


def provisional_values(title: str, options: Iterable[str] = ()) -> list[dict[str, str]]:
    """[{key, description}] of the values a game of `title` with `options` would play with provisionally."""
    rules = rules_for(title)
    hook = getattr(rules, "provisional_values", None)
    return [] if hook is None else list(hook(list(options)))


def provisional_notice(title: str, options: Iterable[str] = ()) -> str | None:
    """The sentence a game page shows when a game of `title` with `options` plays with provisional values."""
    if not provisional_values(title, options):
        return None
    path = title_directory(title) / "meta.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise DataError(f"{path}: cannot be read ({err})") from err
    notice = (meta.get("provisional") or {}).get("notice")
    if not isinstance(notice, str) or not notice:
        raise DataError(f"{path}: provisional.notice is missing though the title has provisional values")
    return notice


__all__ = ["provisional_notice", "provisional_values"]

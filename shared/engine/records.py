"""The 18xx.games record shape of stored actions: what an export writes so the reference loads it as is.

A stored action is what its sender posted plus what the server derived (its id, its `auto_actions`). Two
things a client may send or leave out are not part of the reference's format and are normalised on the way
out (`GameSession.to_record`):

- range hints: `legal-actions` states each bid's `min`, `step`, `max` (and `multiple_of`) so a client can
  offer any valid bid; a client that posts the offer back as it got it sends them along. The reference's
  actions carry only the chosen value (`price`), so the hints are dropped, in auto actions too.
- the acting entity of undo, redo and chat: the reference reads every action's `entity` and `entity_type`
  (undo, redo and chat included: they name the acting player; `user` names who clicked when that is someone
  else). The session stamps them when such an action is submitted (`meta_entity`); an action stored before
  that is given its sender (`user`), else the first player.

The title is written as records name it (the board data's `title`: `1828.Games`, never an alias like `1828`).
"""

from __future__ import annotations

import json
from typing import Any

from .titledata import title_directory

META_TYPES = frozenset({"undo", "redo", "message"})
RANGE_HINTS = frozenset({"min", "max", "step", "multiple_of"})


def record_title(title: str) -> str:
    """The title as 18xx.games records name it."""
    try:
        meta = json.loads((title_directory(title) / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, Exception):  # an unknown title keeps its own name
        return title
    return str(meta.get("title") or title)


def meta_entity(action: dict[str, Any], acting_players: list[int], players: list[dict[str, Any]]) -> None:
    """Give an undo, redo or chat line without an entity the reference's: the acting player (who the table
    waits for), else the sender, else the first player. Changes `action` in place."""
    if action.get("type") not in META_TYPES or action.get("entity") is not None:
        return
    user = action.get("user")
    if acting_players:
        entity: Any = acting_players[0]
    elif isinstance(user, int):
        entity = user
    else:
        entity = players[0]["id"] if players else None
    if entity is not None:
        action["entity"] = entity
        action["entity_type"] = "player"


def record_action(action: dict[str, Any], players: list[dict[str, Any]]) -> dict[str, Any]:
    """A stored action in the reference's shape (a copy; see the module docstring)."""
    out = {k: v for k, v in action.items() if k not in RANGE_HINTS}
    if out.get("type") in META_TYPES and out.get("entity") is None:
        meta_entity(out, [], players)
    if out.get("entity") is not None and "entity_type" not in out and out.get("type") in META_TYPES:
        out["entity_type"] = "player"
    autos = out.get("auto_actions")
    if isinstance(autos, list):
        out["auto_actions"] = [record_action(a, players) if isinstance(a, dict) else a for a in autos]
    return out

"""What an outbox record means to players: pure functions from a record (and the previous acting set)
to notifications. No I/O here, so every rule about who gets told what is unit-testable as data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

TURN = "turn.started"
GAME_STARTED = "game.started"
GAME_FINISHED = "game.finished"
MENTIONED = "message.mentioned"
REFUSED = "action.refused"
REMINDER = "turn.reminder"
EVENT_TYPES = (TURN, GAME_STARTED, GAME_FINISHED, MENTIONED, REFUSED, REMINDER)

# The event store's payload keys, with the spellings we accept so a rename upstream does not silence alerts.
_ACTING_KEYS = ("acting_players", "acting", "acting_player_ids", "active_players", "active")
_MENTION_KEYS = ("mentioned", "mentioned_player_ids", "mentions", "to", "recipients")
_PLAYER_KEYS = ("player_id", "player", "acting_player")
_AUTHOR_KEYS = ("author", "author_id", "from", "player_id", "sender")


@dataclass(frozen=True)
class Notification:
    """One thing worth telling some players. `source` is stable across restarts: it seeds the webhook-id."""

    event_type: str
    source: str
    game_id: str | None
    title: str | None
    recipients: tuple[str, ...]
    occurred_at: datetime
    data: Mapping[str, Any] = field(default_factory=dict)


def _ids(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str | int):
        return [str(value)]
    out: list[str] = []
    for item in value:
        if isinstance(item, Mapping):
            item = item.get("id", item.get("player_id"))
        if item is not None:
            out.append(str(item))
    return out


def _first(payload: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for key in keys:
        if key in payload and payload[key] is not None:
            return payload[key]
    return None


def acting_players(payload: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_ids(_first(payload, _ACTING_KEYS))))


def interpret(
    *,
    position: int,
    kind: str,
    game_id: str,
    payload: Mapping[str, Any],
    occurred_at: datetime,
    title: str | None,
    previous_acting: Iterable[str],
    seated: Sequence[str],
) -> list[Notification]:
    """Notifications for one outbox record. A turn alerts only those who were not already acting."""
    source = f"o{position}"
    title = payload.get("title") or title

    def make(event_type: str, recipients: Iterable[str], **data: Any) -> list[Notification]:
        unique = tuple(dict.fromkeys(r for r in recipients if r))
        if not unique:
            return []
        return [Notification(event_type, source, game_id, title, unique, occurred_at, data)]

    if kind == "turn":
        acting = acting_players(payload)
        before = set(previous_acting)
        return make(
            TURN,
            [p for p in acting if p not in before],
            acting=list(acting),
            round=payload.get("round"),
            phase=payload.get("phase"),
        )
    if kind == "game_started":
        return make(GAME_STARTED, seated or _ids(payload.get("players")))
    if kind == "game_finished":
        return make(GAME_FINISHED, seated or _ids(payload.get("players")), result=payload.get("result"))
    if kind == "action_refused":
        return make(REFUSED, _ids(_first(payload, _PLAYER_KEYS)), reason=str(payload.get("reason", "")))
    if kind == "message":
        author = _ids(_first(payload, _AUTHOR_KEYS))
        mentioned = [p for p in _ids(_first(payload, _MENTION_KEYS)) if p not in author]
        return make(MENTIONED, mentioned, text=str(payload.get("text", "")), author=author[0] if author else None)
    return []

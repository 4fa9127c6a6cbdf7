"""What an outbox record means to players: pure functions from a record (and the previous acting set)
to notifications. No I/O here, so every rule about who gets told what is unit-testable as data. The record's
shape is the store's (shared/eventstore/outbox.py), never guessed here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from shared.eventstore.outbox import (
    ActionRefused,
    ClockReminder,
    GameFinished,
    GameStarted,
    MessagePosted,
    TableAsks,
    TurnChanged,
    parse,
)

TURN = "turn.started"
GAME_STARTED = "game.started"
GAME_FINISHED = "game.finished"
MENTIONED = "message.mentioned"
REFUSED = "action.refused"
REMINDER = "turn.reminder"
ASKS = "table.asks"
EVENT_TYPES = (TURN, GAME_STARTED, GAME_FINISHED, MENTIONED, REFUSED, REMINDER, ASKS)

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
    """Player ids as the notifier keeps them (text), from one id or a sequence of them."""
    if value is None:
        return []
    if isinstance(value, str | int):
        return [str(value)]
    return [str(item) for item in value if item is not None]


def acting_players(payload: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_ids(TurnChanged.from_payload(payload).acting)))


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
    """Notifications for one outbox record (its payload read through the store's outbox contract). A turn
    alerts only those who were not already acting."""
    source = f"o{position}"
    event = parse(kind, payload)
    if event is None:
        return []
    title = event.title or title

    def make(event_type: str, recipients: Iterable[str], **data: Any) -> list[Notification]:
        unique = tuple(dict.fromkeys(r for r in recipients if r))
        if not unique:
            return []
        return [Notification(event_type, source, game_id, title, unique, occurred_at, data)]

    if isinstance(event, TurnChanged):
        acting = tuple(dict.fromkeys(_ids(event.acting)))
        before = set(previous_acting)
        return make(TURN, [p for p in acting if p not in before], acting=list(acting), round=event.round,
                    phase=event.phase)
    if isinstance(event, GameStarted):
        return make(GAME_STARTED, seated or _ids(event.players))
    if isinstance(event, GameFinished):
        return make(GAME_FINISHED, seated, result=event.result)
    if isinstance(event, ActionRefused):
        return make(REFUSED, _ids(event.player_id), reason=event.reason)
    if isinstance(event, ClockReminder):  # same type as the daily nudge: one per player per period (processor)
        return make(REMINDER, _ids(event.player_id), step=event.step, deadline=event.deadline,
                    games=[{"game_id": game_id, "title": title, "deadline": event.deadline, "step": event.step}])
    if isinstance(event, TableAsks):  # exactly the players who must answer
        return make(ASKS, _ids(event.players), ask=event.ask, ask_id=event.ask_id,
                    by=None if event.by is None else str(event.by), deadline=event.deadline, name=event.name,
                    target=event.target, voters=_ids(event.voters), move=event.move)
    if isinstance(event, MessagePosted):
        author = _ids(event.author)
        mentioned = [p for p in _ids(event.mentions) if p not in author]
        return make(MENTIONED, mentioned, text=event.text, author=author[0] if author else None)
    return []

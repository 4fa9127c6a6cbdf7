"""Plain values the recorders hand out and take in: rows as frozen dataclasses, so callers never hold a cursor."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

QUEUED, APPLIED, REFUSED = "queued", "applied", "refused"
OPEN, ACTIVE, FINISHED = "open", "active", "finished"


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    token_hash: str | None


@dataclass(frozen=True)
class Game:
    id: int
    title: str
    options: list[str]
    seed: int
    seat_count: int
    status: str
    visibility: str
    version: int
    created_at: float
    state: dict[str, Any] | None = None
    result: dict[str, int] | None = None


@dataclass(frozen=True)
class Seat:
    game_id: int
    seat_index: int
    player_id: int
    name: str
    token_hash: str | None


@dataclass(frozen=True)
class Receipt:
    game_id: int
    command_id: str
    body_hash: str
    status: str
    expected_version: int
    player_id: int | None
    action: dict[str, Any]
    created_at: float
    new_version: int | None = None
    reason: str | None = None
    rule: str | None = None
    http_status: int | None = None
    settled_at: float | None = None
    valid: Any = None  # a refusal's accepted values, where the engine names them


def seat_command_id(player_id: int, key: str) -> str:
    """A seat's command id: its Idempotency-Key inside the player's own namespace, so one caller's key never
    answers another's receipt. Spelled once here, as PostgreSQL builds it too (`SEAT_COMMAND_ID`)."""
    return f"p{player_id}:{key}"


def table_command_id(game_id: int, what: str) -> str:
    """A command the table decided (a declined proposal taken back): a namespace no caller's key reaches,
    so the settle does not hold it to the rules the table has already applied (`seat_of_command`)."""
    return f"table:{game_id}:{what}"


def seat_of_command(command_id: str) -> int | None:
    """The player whose own command this is (`seat_command_id`), else None (the operator, the clock, the
    table)."""
    scope, sep, _ = command_id.partition(":")
    return int(scope[1:]) if sep and scope[:1] == "p" and scope[1:].isdigit() else None


#: `seat_command_id` in SQL, for a seat row `s` and the key as a parameter.
SEAT_COMMAND_ID = "'p' || s.player_id || ':' || %s"


#: The receipt fields a settle writes (the outcome a waiting caller is told, `SqlRecorder.settle`).
SETTLED_FIELDS = frozenset({"status", "new_version", "reason", "rule", "http_status", "settled_at", "valid"})


@dataclass(frozen=True)
class NewEvent:
    """An event about to be stored: `type`/`type_version` say which upcasters apply when it is read back."""

    type: str
    data: dict[str, Any]
    type_version: int
    command_id: str | None = None


@dataclass(frozen=True)
class StoredEvent:
    game_id: int
    version: int
    position: int | None  # None: committed, not numbered yet (PostgreSQL; see `SqlRecorder.number_pending`)
    type: str
    type_version: int
    data: dict[str, Any]
    command_id: str | None
    created_at: float


@dataclass(frozen=True)
class OutboxItem:
    position: int
    game_id: int
    version: int | None
    kind: str
    payload: dict[str, Any]
    created_at: float


@dataclass(frozen=True)
class Snapshot:
    game_id: int
    version: int
    data: bytes
    created_at: float


@dataclass(frozen=True)
class NewGame:
    title: str
    options: list[str]
    seed: int
    seat_count: int
    visibility: str = "open"
    status: str = OPEN
    extra: dict[str, Any] = field(default_factory=dict)
    invite_hash: str | None = None  # private games: hash of the invitation token a seat must show


@dataclass(frozen=True)
class ImportKey:
    """An import's Idempotency-Key, scoped to its caller, and what a retry must answer again."""

    caller: str
    key: str
    body_hash: str
    secrets: dict[str, Any]


@dataclass(frozen=True)
class StoredImport:
    body_hash: str
    game_id: int
    secrets: dict[str, Any]

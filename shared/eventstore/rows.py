"""How the recorders' rows read back as records: one spelling of each table's columns for every backend."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..jsontext import loads
from .records import QUEUED, Game, Receipt, Seat, StoredEvent
from .upcasting import upcast

Row = Any  # a mapping-like row (psycopg dict_row or sqlite3.Row)
INSERT_ROWS = 500  # rows per multi-row INSERT (an import's thousands of events stay far below 65,535 parameters)


class Cursor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...


# A queued receipt, spelled as the partial indexes' predicate (migrations 0001, 0008), never as a parameter:
# a prepared statement's generic plan cannot prove `status = $1` implies the index predicate, and PostgreSQL
# then reads every receipt of the game, or of the whole table (tests/service/test_store_locks_and_plans.py),
# instead of the queued one or two.
QUEUED_ONLY = f"status = '{QUEUED}'"


# A queued receipt's row as a command is queued (`queue_command`, `queue_as_seat`): values in this order.
QUEUED_RECEIPT = "receipts (game_id, command_id, body_hash, status, expected_version, player_id, action, created_at)"


def loads_or_none(text: str | None) -> Any:
    return None if text is None else loads(text)


# A game's table log (services/play/table_log.py; table `clock_events`, migration 0005_clock), oldest first: read by the store's own
# connections where a move is checked or settled, not through the clock's SQLAlchemy pool.
TABLE_LOG = "SELECT data FROM clock_events WHERE game_id = %s ORDER BY seq"


# The game row without its read model (`state`, a few kilobytes of JSON): what a writer locks it for.
GAME_HEAD = "id, title, options, seed, seat_count, status, visibility, version, created_at, result"


def game_of(row: Row) -> Game:
    return Game(
        id=row["id"], title=row["title"], options=loads_or_none(row["options"]) or [], seed=row["seed"],
        seat_count=row["seat_count"], status=row["status"], visibility=row["visibility"],
        version=row["version"], created_at=row["created_at"],
        state=loads_or_none(row["state"]) if "state" in row.keys() else None,
        result=loads_or_none(row["result"]),
    )


def seat_of(row: Row) -> Seat:
    return Seat(row["game_id"], row["seat_index"], row["player_id"], row["name"], row["token_hash"])


def receipt_of(row: Row) -> Receipt:
    return Receipt(
        game_id=row["game_id"], command_id=row["command_id"], body_hash=row["body_hash"],
        status=row["status"], expected_version=row["expected_version"], player_id=row["player_id"],
        action=loads_or_none(row["action"]), created_at=row["created_at"], new_version=row["new_version"],
        reason=row["reason"], rule=row["rule"], http_status=row["http_status"], settled_at=row["settled_at"],
        valid=loads_or_none(row["valid"]),
    )


def event_of(row: Row) -> StoredEvent:
    version, data = upcast(row["type"], row["type_version"], loads_or_none(row["data"]))
    return StoredEvent(
        game_id=row["game_id"], version=row["version"], position=row["position"], type=row["type"],
        type_version=version, data=data, command_id=row["command_id"], created_at=row["created_at"],
    )

"""The store's read side for readers on SQLAlchemy (the notifier): the outbox and the seats of a game.

Declared here, beside the store's migrations, so no reader re-declares the store's tables. Only committed
rows are ever visible, which is the whole point: a notification can never announce an event whose
transaction rolled back. The store guarantees positions become visible in order, so "everything after my
tracking position" is a complete, gap-free read. On PostgreSQL rows are committed unnumbered (position NULL,
which `position > N` never matches) and numbered in batches: a reader calls `number_pending` before each
read so it is never behind the writers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from .outbox import OutboxEvent, OutboxRecord
from .postgres import NUMBER_PENDING, SEQUENCER_LOCK

outbox_table = sa.table(
    "outbox",
    sa.column("position"),
    sa.column("game_id"),
    sa.column("version"),
    sa.column("kind"),
    sa.column("payload"),
    sa.column("created_at"),
)
seats_table = sa.table(
    "seats", sa.column("game_id"), sa.column("seat_index"), sa.column("player_id"), sa.column("name")
)


@dataclass(frozen=True)
class Seat:
    player_id: str
    name: str


def _as_datetime(value: Any) -> datetime:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, int | float):
        moment = datetime.fromtimestamp(value, UTC)
    elif isinstance(value, str) and value:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    else:
        return datetime.now(UTC)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _as_payload(value: Any) -> Mapping[str, Any]:
    if value is None:
        return {}
    if isinstance(value, bytes | str):
        decoded = json.loads(value or "{}")
        return decoded if isinstance(decoded, dict) else {"value": decoded}
    return value if isinstance(value, Mapping) else {"value": value}


def number_pending(engine: sa.Engine) -> None:
    """Number the outbox rows (and events) committed so far, in a transaction of its own, exactly as
    `PostgresRecorder.number_pending` does (same lock, same statement): before the read, not
    inside the batch transaction, so the numbering lock is held for milliseconds, not for a whole batch.
    SQLite numbers in the writing transaction: nothing to do there."""
    if engine.dialect.name != "postgresql":
        return
    with engine.connect().execution_options(isolation_level="READ COMMITTED") as conn, conn.begin():
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": SEQUENCER_LOCK})
        conn.execute(sa.text(NUMBER_PENDING))


def write_outbox(conn: sa.Connection, game_id: int, version: int | None,
                 events: Iterable[OutboxEvent]) -> int:
    """Typed outbox rows written inside the caller's SQLAlchemy transaction, so they commit (or not) with the
    decision they announce, numbered exactly as the recorder numbers its own: on PostgreSQL left unnumbered
    for `number_pending`; SQLite numbers them in the writing transaction, from the same counter row."""
    rows = [{"game_id": game_id, "version": version, "kind": e.kind.value,
             "payload": json.dumps(e.payload(), separators=(",", ":"), sort_keys=True), "created_at": time.time()}
            for e in events]
    if not rows:
        return 0
    if conn.dialect.name == "postgresql":
        conn.execute(outbox_table.insert(), [{**r, "position": None} for r in rows])
        return len(rows)
    counters = sa.table("counters", sa.column("name"), sa.column("value"))
    conn.execute(counters.update().where(counters.c.name == "outbox_position")
                 .values(value=counters.c.value + len(rows)))
    top = int(conn.execute(sa.select(counters.c.value).where(counters.c.name == "outbox_position")).scalar_one())
    conn.execute(outbox_table.insert(), [{**r, "position": top - len(rows) + i} for i, r in enumerate(rows, 1)])
    return len(rows)


def read_after(conn: sa.Connection, position: int, limit: int) -> list[OutboxRecord]:
    rows = conn.execute(
        sa.select(outbox_table).where(outbox_table.c.position > position).order_by(outbox_table.c.position).limit(limit)
    ).mappings()
    return [
        OutboxRecord(
            position=int(r["position"]),
            game_id=str(r["game_id"]),
            version=None if r["version"] is None else int(r["version"]),
            kind=str(r["kind"]),
            payload=_as_payload(r["payload"]),
            created_at=_as_datetime(r["created_at"]),
        )
        for r in rows
    ]


def latest_position(conn: sa.Connection) -> int:
    return int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(outbox_table.c.position), 0))).scalar_one())


def game_key(game_id: str) -> int | str:
    """The event store's game ids are integers; we keep them as text, and convert back to use its index."""
    return int(game_id) if game_id.isdigit() else game_id


def seats_of(conn: sa.Connection, game_id: str) -> list[Seat]:
    rows = conn.execute(
        sa.select(seats_table.c.player_id, seats_table.c.name)
        .where(seats_table.c.game_id == game_key(game_id))
        .order_by(seats_table.c.seat_index)
    )
    return [Seat(str(pid), str(name or pid)) for pid, name in rows if pid is not None]


def names_of(seats: Iterable[Seat]) -> dict[str, str]:
    return {s.player_id: s.name for s in seats}

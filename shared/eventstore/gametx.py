"""One writer's transaction on one game, as every backend buffers it: the writes are collected while the
caller decides, then sent together at the end."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any, Protocol

from ..jsontext import dumps
from .errors import Conflict
from .outbox import OutboxEvent
from .records import QUEUED, SETTLED_FIELDS, Game, NewEvent, Receipt, StoredEvent
from .rows import INSERT_ROWS, QUEUED_ONLY, Cursor, Row, event_of, receipt_of


def settled_fields(status: str, new_version: int | None, reason: str | None, rule: str | None,
                   http_status: int | None, valid: Any) -> dict[str, Any]:
    """A receipt's settled fields, settled now."""
    settled = {"status": status, "new_version": new_version, "reason": reason, "rule": rule,
               "http_status": http_status, "settled_at": time.time(), "valid": valid}
    assert settled.keys() == SETTLED_FIELDS  # what a waiting caller is told is what is stored
    return settled


class Backend(Protocol):
    """What a transaction asks of its recorder: `sql.SqlRecorder` (and each backend's subclass) provides it;
    declared here, below the recorder, which builds its transactions from this module."""

    _numbers_in_transaction: bool

    def _all(self, cur: Cursor, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    def _pipeline(self, cur: Cursor) -> Any: ...

    def _send_writes(self, cur: Cursor, statements: Sequence[tuple[str, Sequence[Any]]]) -> None: ...


class GameTx:
    """One writer's transaction on one locked game (`guarded.py` is the unlocked kind). Writes (receipt, game
    row, snapshot) and the events and outbox rows are buffered and sent together at the very end, so the
    counter lock is held for the shortest time and the writes cost one round trip where the backend
    pipelines."""

    def __init__(self, recorder: Backend, cur: Cursor, game: Game) -> None:
        self._rec = recorder
        self._cur = cur
        self.game = game
        self._events: list[tuple[int, NewEvent]] = []
        self._outbox: list[tuple[int | None, str, dict[str, Any]]] = []
        self._writes: list[tuple[str, Sequence[Any]]] = []
        self.more_queued = False
        self.settled: dict[str, dict[str, Any]] = {}  # command id -> fields settled in this transaction
        self.head = game  # the game row's head once this transaction commits (`update_game` moves it)

    def next_queued(self) -> Receipt | None:
        """The oldest queued command; `more_queued` then tells whether another one was queued behind it."""
        rows = self._rec._all(
            self._cur,
            f"SELECT * FROM receipts WHERE game_id = %s AND {QUEUED_ONLY} "
            "ORDER BY expected_version, created_at LIMIT 2",
            (self.game.id,),
        )
        self.more_queued = len(rows) > 1
        return receipt_of(rows[0]) if rows else None

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Rows of another table read on this transaction's connection (the table log's stand-in, asked by
        services/play/apply.py only for a seat moving an entity it does not control): no second pool."""
        return self._rec._all(self._cur, sql, params)

    def read_events(self, after_version: int, limit: int) -> list[StoredEvent]:
        """The game's stored events after `after_version` (at most `limit`), on this transaction's connection:
        who sent the moves an undo would take back, asked when an undo settles."""
        rows = self._rec._all(self._cur, "SELECT * FROM events WHERE game_id = %s AND version > %s "
                              "ORDER BY version LIMIT %s", (self.game.id, after_version, limit))
        return [event_of(r) for r in rows]

    def append(self, version: int, event: NewEvent) -> None:
        expected = self.game.version + len(self._events) + 1
        if version != expected:
            raise Conflict(f"event version {version} is not the next version {expected}", "stale_version")
        self._events.append((version, event))

    def outbox(self, kind: str, payload: dict[str, Any], version: int | None = None) -> None:
        self._outbox.append((version, kind, payload))

    def emit(self, event: OutboxEvent, version: int | None = None) -> None:
        """A typed outbox record (shared/eventstore/outbox.py is the contract readers parse back)."""
        self.outbox(event.kind.value, event.payload(), version)

    def settle(self, receipt: Receipt, status: str, *, new_version: int | None = None, reason: str | None = None,
               rule: str | None = None, http_status: int | None = None, valid: Any = None) -> dict[str, Any]:
        """Settle a queued receipt; returns the fields stored (they are final once the transaction commits)."""
        settled = settled_fields(status, new_version, reason, rule, http_status, valid)
        condition, condition_params = self._receipt_condition(receipt)
        self._later(
            "UPDATE receipts SET status = %s, new_version = %s, reason = %s, rule = %s, http_status = %s, "
            "settled_at = %s, valid = %s WHERE game_id = %s AND command_id = %s AND status = %s" + condition,
            (*list(settled.values())[:-1], None if valid is None else dumps(valid), receipt.game_id,
             receipt.command_id, QUEUED, *condition_params),
        )
        self.settled[receipt.command_id] = settled
        return settled

    def update_game(self, *, version: int | None = None, state: dict[str, Any] | None = None,
                    status: str | None = None, result: dict[str, Any] | None = None) -> None:
        """Change the game row read at `game.version` (and `game.status`); it is still so, as the row is
        locked (or, in an optimistic transaction, the write is refused when it is not)."""
        self.head = dataclasses.replace(
            self.head, version=self.head.version if version is None else version, status=status or self.head.status,
            result=self.head.result if result is None else result, state=None)
        self._later(
            "UPDATE games SET version = COALESCE(%s, version), state = COALESCE(%s, state), "
            "status = COALESCE(%s, status), result = COALESCE(%s, result), updated_at = %s "
            "WHERE id = %s AND version = %s AND status = %s",
            (version, None if state is None else dumps(state), status, None if result is None else dumps(result),
             time.time(), self.game.id, self.game.version, self.game.status),
        )

    def save_snapshot(self, version: int, blob: bytes) -> None:
        """Store the fold at `version` and drop the game's older snapshots: only the newest is ever read
        (`latest_snapshot`; the log itself is the history), so a game keeps one snapshot, not one per
        SNAPSHOT_EVERY events (tens of kilobytes each)."""
        self._later(
            "INSERT INTO snapshots (game_id, version, data, created_at) VALUES (%s, %s, %s, %s)",
            (self.game.id, version, blob, time.time()),
        )
        self._later("DELETE FROM snapshots WHERE game_id = %s AND version < %s", (self.game.id, version))

    def _receipt_condition(self, receipt: Receipt) -> tuple[str, Sequence[Any]]:
        """More the settled receipt's row must satisfy (SQL after `AND`, and its parameters): nothing for a
        receipt read inside this transaction."""
        return "", ()

    def _later(self, sql: str, params: Sequence[Any]) -> None:
        self._writes.append((sql, params))

    def _flush(self) -> None:
        with self._rec._pipeline(self._cur):
            self._write()

    def _write(self) -> None:
        """Run the buffered writes, then insert the events and outbox rows, in order, so no statement waits on
        another's result: on PostgreSQL the whole tail of the transaction is one statement (`_send_writes`)."""
        self._rec._send_writes(self._cur, self._statements())

    def _statements(self) -> list[tuple[str, Sequence[Any]]]:
        """The buffered writes, then the events' and outbox rows' INSERTs. Rows get their positions here from
        the counter rows (bumped, then read back inside each INSERT) where the backend numbers in the writing
        transaction, else they are left NULL for `number_pending`."""
        statements = list(self._writes)
        now = time.time()
        in_tx = self._rec._numbers_in_transaction
        for name, table, rows in (
            ("event_position", "events (game_id, version, position, command_id, type, type_version, data, "
             "created_at)", [(self.game.id, version, ev.command_id, ev.type, ev.type_version, dumps(ev.data), now)
                             for version, ev in self._events]),
            ("outbox_position", "outbox (game_id, version, position, kind, payload, created_at)",
             [(self.game.id, version, kind, dumps(payload), now) for version, kind, payload in self._outbox]),
        ):
            if not rows:
                continue
            holes = ", ".join(["%s"] * (len(rows[0]) - 2))
            if not in_tx:
                # one INSERT per INSERT_ROWS of a table's rows: its VALUES are inserted (and given ids) in order
                for start in range(0, len(rows), INSERT_ROWS):
                    chunk = rows[start:start + INSERT_ROWS]
                    values = ", ".join([f"(%s, %s, NULL, {holes})"] * len(chunk))
                    statements.append((f"INSERT INTO {table} VALUES {values}", [v for row in chunk for v in row]))
                continue
            statements.append(("UPDATE counters SET value = value + %s WHERE name = %s", (len(rows), name)))
            sql = (f"INSERT INTO {table} VALUES (%s, %s, (SELECT value FROM counters WHERE name = '{name}') - %s, "
                   f"{holes})")
            for offset, row in enumerate(rows):
                statements.append((sql, (row[0], row[1], len(rows) - 1 - offset, *row[2:])))
        return statements

"""PostgreSQL recorder: psycopg 3 with a connection pool; a game's writers queue on its row lock
(`SELECT ... FOR UPDATE`), so unrelated games commit in parallel. Reads are single statements on
autocommit connections; every write goes through an explicit transaction.

Positions are numbered after commit, in batches (`number_pending`, see `sql.py`): a global lock in the
write path, held through each commit's WAL flush, would put every game's commits in one queue."""

from __future__ import annotations

import select
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ..jsontext import dumps
from .errors import Conflict, NotFound
from .gametx import GameTx
from .guarded import READ, GuardedTx, one_statement
from .records import ACTIVE, QUEUED, SEAT_COMMAND_ID, Game, Receipt, Seat
from .rows import QUEUED_RECEIPT, Cursor, seat_of
from .sql import SqlRecorder

COMBINED_PARAMETERS = 20_000  # beyond this (an import's events) the writes go one statement each: 65,535 is the limit
# One key for the numbering transactions, in the advisory-lock space of this database.
SEQUENCER_LOCK = 0x7261696C706F7374  # "railpost"

# Number every committed, unnumbered row, in one statement: events in (game, version) order, so a game's
# events keep their version order; outbox rows in insertion order (`id`), so a transaction's rows keep
# theirs. A counter is bumped only when something is pending: with nothing to number the statement writes
# nothing, the transaction gets no xid and its COMMIT needs no WAL flush.
_PART = """
{t}_pending AS (
    SELECT {key}, row_number() OVER (ORDER BY {key}) AS n FROM {table} WHERE position IS NULL
), {t}_base AS (
    UPDATE counters SET value = value + (SELECT count(*) FROM {t}_pending)
    WHERE name = '{counter}' AND EXISTS (SELECT 1 FROM {t}_pending)
    RETURNING value - (SELECT count(*) FROM {t}_pending) AS base
), {t}_done AS (
    UPDATE {table} AS t SET position = {t}_base.base + {t}_pending.n FROM {t}_pending, {t}_base
    WHERE {join} RETURNING 1
)"""
NUMBER_PENDING = "WITH " + ",".join((
    _PART.format(t="ev", table="events", key="game_id, version", counter="event_position",
                 join="t.game_id = ev_pending.game_id AND t.version = ev_pending.version"),
    _PART.format(t="ob", table="outbox", key="id", counter="outbox_position", join="t.id = ob_pending.id"),
)) + "\nSELECT (SELECT count(*) FROM ev_done) + (SELECT count(*) FROM ob_done) AS numbered"


# The token's seat and, for a seat of the game named, its command queued (see `SqlRecorder.queue_as_seat`).
QUEUE_AS_SEAT = (
    "WITH s AS (SELECT game_id, seat_index, player_id, name, token_hash FROM seats WHERE token_hash = %s), "
    f"q AS (INSERT INTO {QUEUED_RECEIPT} SELECT g.id, {SEAT_COMMAND_ID}, %s, %s, %s, s.player_id, %s, %s "
    "FROM games AS g JOIN s ON s.game_id = g.id WHERE g.id = %s AND g.status = %s AND g.version = %s "
    "ON CONFLICT DO NOTHING RETURNING command_id) "
    "SELECT s.*, (SELECT command_id FROM q) AS queued FROM s")


def _read_committed(conn: psycopg.Connection[Any]) -> None:
    """Every write transaction runs at READ COMMITTED whatever the server default: the game row lock and
    the numbering lock rely on each statement taking a fresh snapshot once the lock is granted."""
    conn.isolation_level = psycopg.IsolationLevel.READ_COMMITTED


def heard_from_server(conn: psycopg.Connection[Any]) -> bool:
    """Whether an idle connection's socket has something to read (or is closed): an idle connection in
    autocommit has no reply pending, so anything there is the server talking on its own — the notice and
    end of stream a shutdown or restart sends every backend's client, or the kernel's reset after a crash."""
    if getattr(conn, "closed", False) or getattr(conn, "broken", False):
        return True
    try:
        return bool(select.select([conn.fileno()], [], [], 0)[0])
    except (OSError, ValueError, psycopg.Error):
        return True


def check_idle(conn: psycopg.Connection[Any]) -> None:
    """The pool's check as a connection leaves it: a round trip only when the server has spoken since the
    connection went idle (`heard_from_server`), so a connection a restart broke is still replaced before a
    request uses it, but a healthy one costs no empty round trip per checkout (it was one per statement)."""
    if heard_from_server(conn):
        ConnectionPool.check_connection(conn)


class PostgresRecorder(SqlRecorder):
    # The game row's writer lock. NO KEY UPDATE, not UPDATE: a receipt queued for the game checks its foreign
    # key with a KEY SHARE lock on this row, which FOR UPDATE would make wait until the applying transaction
    # commits (a player's move, chat or refused retry held up behind another's). Writers still exclude
    # each other, and nothing changes a game's key.
    _lock_suffix = " FOR NO KEY UPDATE"
    _numbers_in_transaction = False
    settles_unstored = True  # `settle_known(stored=False)`: a command nobody stored is inserted settled

    def __init__(self, conninfo: str, max_size: int = 8, timeout: float = 30.0) -> None:
        # autocommit: a read is its single statement (one round trip, no BEGIN/COMMIT); a write opens an
        # explicit transaction block. During an outage a caller waits at most `timeout` for a connection
        # (PoolTimeout, answered 503). A connection is checked as it leaves the pool (`check_idle`: a round
        # trip only if the server has spoken since it went idle, as a restart does), so connections a server
        # restart broke are replaced before a request uses them: once PostgreSQL is
        # back the next request is served, instead of one 503 per idle connection of every process. A failed
        # reconnection retries with a doubling delay; it gives up after 10 s (the next request then grows the
        # pool at once), so a long outage is not followed by minutes of waiting for a far-off retry.
        self._pool = ConnectionPool(
            conninfo, min_size=1, max_size=max_size,
            kwargs={"row_factory": dict_row, "autocommit": True, "connect_timeout": max(1, int(timeout))},
            configure=_read_committed, check=check_idle, open=True, timeout=timeout,
            reconnect_timeout=10,
        )

    @contextmanager
    def _begun(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection with its transaction begun. The pool's check finds a connection a restart
        killed once the server's goodbye has reached its socket; one drawn a moment sooner (the backend is
        told to end, the notice is still on its way) fails its BEGIN. Nothing has been done on it then, so
        it is dropped and another drawn, rather than failing the request that drew it."""
        failed: psycopg.OperationalError | None = None
        for _ in range(self._pool.max_size + 1):
            with ExitStack() as stack:
                conn = stack.enter_context(self._pool.connection())
                try:
                    stack.enter_context(conn.transaction())
                except psycopg.OperationalError as err:
                    if not conn.broken:
                        raise
                    failed = err
                    continue  # the pool drops the broken connection as it takes it back
                yield conn
                return
        assert failed is not None
        raise failed

    @contextmanager
    def _tx(self, write: bool = False) -> Iterator[Cursor]:
        if write:
            with self._begun() as conn:
                yield conn.cursor()
        else:
            with self._pool.connection() as conn:
                yield conn.cursor()

    @contextmanager
    def _statement(self) -> Iterator[Cursor]:
        with self._pool.connection() as conn:  # autocommit: the statement is its own transaction
            yield conn.cursor()

    @contextmanager
    def game_transaction(self, game_id: int) -> Iterator[GameTx]:
        """As the portable one: the reads (the game row's lock, the queued receipts) are plain statements, and
        the buffered writes one statement (`_send_writes`). The whole transaction was one psycopg pipeline
        once, but its handling cost more client CPU than it saved where a result is waited for anyway
        (measured: an empty game transaction 0.93 against 0.71 ms of CPU, a full one 1.32 against 1.17)."""
        with self._begun() as conn:
            cur = conn.cursor()
            tx = GameTx(self, cur, self._lock_game(cur, game_id, read_model=False))
            yield tx
            tx._write()

    def queue_as_seat(self, game_id: int, token_hash: str, key: str, body_hash: str, expected_version: int,
                      action: dict[str, Any]) -> tuple[Seat | None, Receipt | None]:
        """One statement: the token's seat, and the command inserted only for a seat of this game, exactly
        as `queue_command`'s usual case inserts it (the game active at `expected_version`, nothing on either
        unique key)."""
        now = time.time()
        with self._statement() as cur:
            row = self._one(cur, QUEUE_AS_SEAT, (token_hash, key, body_hash, QUEUED, expected_version, dumps(action),
                                                 now, game_id, ACTIVE, expected_version))
        if row is None:
            return None, None
        seat = seat_of(row)
        if row["queued"] is None:
            return seat, None
        return seat, Receipt(game_id, row["queued"], body_hash, QUEUED, expected_version, seat.player_id, action, now)

    @contextmanager
    def settle_transaction(self, game_id: int) -> Iterator[GameTx]:
        """Optimistic (`guarded.py`): one read, then one guarded write, on one autocommit connection."""
        with self._pool.connection() as conn:
            cur = conn.cursor()
            rows = self._all(cur, READ, (game_id,))
            if not rows:
                raise NotFound(f"game {game_id} does not exist")
            yield from self._guarded(GuardedTx.from_read(self, cur, rows))

    @contextmanager
    def settle_known(self, game: Game, receipt: Receipt, action_text: str, stored: bool = True) -> Iterator[GameTx]:
        """Optimistic and without the read: one guarded write that also checks what was known (`guarded.py`),
        and inserts the receipt settled when nobody stored it (`stored=False`)."""
        with self._pool.connection() as conn:
            yield from self._guarded(GuardedTx(self, conn.cursor(), game, [receipt], action_text, stored))

    @staticmethod
    def _guarded(tx: GuardedTx) -> Iterator[GameTx]:
        yield tx
        try:
            tx._write()
        except psycopg.errors.SerializationFailure as exc:
            raise Conflict(exc.diag.message_primary or str(exc), "game_changed") from None

    def number_pending(self) -> int:
        """One numbering transaction, sent as one pipeline (one round trip). Correct only because the
        lock is taken by an earlier statement than the UPDATE: at READ COMMITTED each statement takes a
        fresh snapshot, so once this transaction holds the lock its UPDATE sees every earlier numbering
        transaction's commit (Postgres releases the lock after the commit is visible) and every writer's
        commit that preceded it. Nothing else ever sets a position, so no row can be numbered twice."""
        with self._pool.connection() as conn, conn.pipeline(), conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (SEQUENCER_LOCK,))
            numbered = conn.execute(NUMBER_PENDING)
        row = numbered.fetchone()  # the pipeline has been synced by the COMMIT
        return int(row["numbered"]) if row else 0

    def _send_writes(self, cur: Cursor, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
        """The writes as one statement of data-modifying CTEs: each runs exactly once, all on the transaction's
        snapshot, and none reads another's rows (a snapshot's DELETE of older versions does not see the INSERT
        beside it; a table's rows are one multi-row INSERT, so their order is kept; positions are numbered
        later, so no INSERT reads a counter another statement bumped). One execute instead of
        one per write: psycopg's client work per statement was most of the worker's CPU on the write path."""
        if (len(statements) <= 1 or self._numbers_in_transaction  # its INSERTs read the counter bumped before
                or sum(len(params) for _sql, params in statements) > COMBINED_PARAMETERS):
            for sql, params in statements:
                self._exec(cur, sql, params)
            return
        self._exec(cur, *one_statement(statements))

    def _pipeline(self, cur: Cursor) -> Any:
        return cur.connection.pipeline()  # type: ignore[attr-defined]

    def _is_unique(self, exc: BaseException) -> bool:
        return isinstance(exc, psycopg.errors.UniqueViolation)

    def close(self) -> None:
        self._pool.close()

"""PostgreSQL recorder: psycopg 3 with a connection pool; a game's writers queue on its row lock
(`SELECT ... FOR UPDATE`), so unrelated games commit in parallel. Reads are single statements on
autocommit connections; every write goes through an explicit transaction."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from .sql import Cursor, GameTx, SqlRecorder


class PostgresRecorder(SqlRecorder):
    _lock_suffix = " FOR UPDATE"

    def __init__(self, conninfo: str, max_size: int = 8) -> None:
        # autocommit: a read is its single statement (one round trip, no BEGIN/COMMIT); a write opens an
        # explicit transaction block
        self._pool = ConnectionPool(
            conninfo, min_size=1, max_size=max_size, kwargs={"row_factory": dict_row, "autocommit": True},
            open=True,
        )

    @contextmanager
    def _tx(self, write: bool = False) -> Iterator[Cursor]:
        with self._pool.connection() as conn:
            if write:
                with conn.transaction():
                    yield conn.cursor()
            else:
                yield conn.cursor()

    @contextmanager
    def _statement(self) -> Iterator[Cursor]:
        with self._pool.connection() as conn:  # autocommit: the statement is its own transaction
            yield conn.cursor()

    @contextmanager
    def game_transaction(self, game_id: int) -> Iterator[GameTx]:
        """As the portable one, but the whole transaction is one psycopg pipeline: the reads are settled
        when done (the session is then idle in transaction while the engine decides), and the buffered
        writes go out together with the COMMIT. The position counters' row lock is thus held only for the
        server's own work and WAL flush, never while this process waits for its turn at the CPU."""
        with self._pool.connection() as conn, conn.pipeline() as pipeline, conn.transaction():
            cur = conn.cursor()
            tx = GameTx(self, cur, self._lock_game(cur, game_id))
            tx.reads_done = pipeline.sync  # type: ignore[method-assign]
            yield tx
            tx._write()

    def _pipeline(self, cur: Cursor) -> Any:
        return cur.connection.pipeline()  # type: ignore[attr-defined]

    def _is_unique(self, exc: BaseException) -> bool:
        return isinstance(exc, psycopg.errors.UniqueViolation)

    def close(self) -> None:
        self._pool.close()

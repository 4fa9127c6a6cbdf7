"""PostgreSQL recorder: psycopg 3 with a connection pool; a game's writers queue on its row lock
(`SELECT ... FOR UPDATE`), so unrelated games commit in parallel."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from .sql import Cursor, SqlRecorder


class PostgresRecorder(SqlRecorder):
    _lock_suffix = " FOR UPDATE"

    def __init__(self, conninfo: str, max_size: int = 8) -> None:
        self._pool = ConnectionPool(
            conninfo, min_size=1, max_size=max_size, kwargs={"row_factory": dict_row}, open=True,
        )

    @contextmanager
    def _tx(self, write: bool = False) -> Iterator[Cursor]:
        with self._pool.connection() as conn, conn.transaction():
            yield conn.cursor()

    def _is_unique(self, exc: BaseException) -> bool:
        return isinstance(exc, psycopg.errors.UniqueViolation)

    def close(self) -> None:
        self._pool.close()

"""SQLite recorder for the embedded default. SQLite has one writer at a time: `BEGIN IMMEDIATE` takes the
database write lock up front, which serialises writers the way the Postgres row lock does per game."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .rows import Cursor
from .sql import SqlRecorder


class SqliteRecorder(SqlRecorder):
    def __init__(self, path: str, timeout: float = 30.0) -> None:
        self._path = path
        self._timeout = timeout
        self._local = threading.local()

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self._path, timeout=self._timeout, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
        return conn

    @contextmanager
    def _tx(self, write: bool = False) -> Iterator[Cursor]:
        conn = self._conn()
        if conn.in_transaction:  # a read nested in this thread's write transaction sees that transaction
            yield conn.cursor()
            return
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield conn.cursor()
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _sql(self, sql: str) -> str:
        return sql.replace("%s", "?")

    def _is_unique(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in str(exc)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

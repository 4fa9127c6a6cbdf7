"""Engines for the shared database. SQLite needs care: the event store's writers take the write lock with
BEGIN IMMEDIATE, so ours do too, otherwise a read-then-write transaction can fail instead of waiting.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from shared.eventstore.migrate import sqlalchemy_url


def make_engine(url: str, pool_size: int = 10) -> sa.Engine:
    url = sqlalchemy_url(url)
    if not url.startswith("sqlite"):
        return sa.create_engine(url, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True)
    engine = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        dbapi_conn.execute("PRAGMA journal_mode=WAL")
        dbapi_conn.execute("PRAGMA busy_timeout=30000")
        dbapi_conn.execute("PRAGMA foreign_keys=ON")

    @sa.event.listens_for(engine, "begin")
    def _begin(conn: sa.Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine

"""Engines for the shared database. SQLite needs care: the event store's writers take the write lock with
BEGIN IMMEDIATE, so ours do too, otherwise a read-then-write transaction can fail instead of waiting.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from shared.eventstore.migrate import sqlalchemy_url
from shared.eventstore.postgres import heard_from_server


def make_engine(url: str, pool_size: int = 10) -> sa.Engine:
    url = sqlalchemy_url(url)
    if not url.startswith("sqlite"):
        engine = sa.create_engine(url, pool_size=pool_size, max_overflow=pool_size)

        @sa.event.listens_for(engine, "checkout")
        def _checkout(dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
            """As the event store's pool (`check_idle`): a connection the server has spoken on since it went
            idle (a restart's notice and end of stream) is replaced; a quiet one is used without the empty
            round trip `pool_pre_ping` spent on every checkout."""
            if heard_from_server(dbapi_conn):
                raise sa.exc.DisconnectionError("the server closed or spoke on an idle connection")

        return engine
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

"""Railpost event store: one stream of versioned events per game, command receipts, snapshots and an outbox,
behind one recorder contract with PostgreSQL and SQLite backends.

`open_recorder(url)` picks the backend from a database URL; `migrate(url)` brings its schema up to date.
"""

from __future__ import annotations

from .errors import Conflict, NotFound, StoreError
from .migrate import migrate
from .records import NewEvent, NewGame, Receipt, StoredEvent
from .sql import SqlRecorder, state_summary
from .upcasting import ACTION_APPLIED, CURRENT_VERSIONS, upcast

__all__ = [
    "ACTION_APPLIED",
    "CURRENT_VERSIONS",
    "Conflict",
    "NewEvent",
    "NewGame",
    "NotFound",
    "Receipt",
    "SqlRecorder",
    "StoreError",
    "StoredEvent",
    "migrate",
    "open_recorder",
    "state_summary",
    "upcast",
]


def sqlite_path(url: str) -> str:
    """`sqlite:///relative.db` and `sqlite:////abs/path.db` as SQLAlchemy spells them."""
    return url.split(":///", 1)[1]


def open_recorder(url: str, pool_size: int = 8, timeout: float = 5.0) -> SqlRecorder:
    """`timeout`: how long a caller waits for a database connection (SQLite: for the write lock) before the
    store gives up with an error the gateway answers as 503, rather than holding the request for minutes."""
    if url.startswith("sqlite"):
        from .sqlite import SqliteRecorder

        return SqliteRecorder(sqlite_path(url), timeout=max(timeout, 1.0))
    if url.startswith(("postgres://", "postgresql://", "postgresql+psycopg://")):
        from .postgres import PostgresRecorder

        return PostgresRecorder(url.replace("postgresql+psycopg://", "postgresql://"), max_size=pool_size,
                                timeout=timeout)
    raise ValueError(f"unsupported DATABASE_URL {url!r}: use postgresql://... or sqlite:///path")

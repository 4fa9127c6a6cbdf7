"""The game's read model and snapshots are compressed with lz4 where PostgreSQL has it, not pglz.

Every settled move rewrites the game row with its read model (`games.state`, 2–3 kB of JSON), which is past
PostgreSQL's TOAST threshold and so compressed on the way in: with pglz, the default, a measurable part of
the server's CPU per move. lz4 compresses the same text several times faster at a slightly larger size, and
decompresses faster for every reader. Only new values are compressed so; stored ones stay readable as they
are. A server built without lz4, and SQLite, keep what they have.

Revision ID: 0010_lz4_read_model
Revises: 0009_settle_guard
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_lz4_read_model"
down_revision = "0009_settle_guard"
branch_labels = None
depends_on = None

COLUMNS = (("games", "state"), ("snapshots", "data"))


def _lz4_available() -> bool:
    return bool(op.get_bind().execute(sa.text(
        "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)")).first())


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql" or not _lz4_available():
        return
    for table, column in COLUMNS:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION lz4")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql" or not _lz4_available():
        return
    for table, column in COLUMNS:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION default")

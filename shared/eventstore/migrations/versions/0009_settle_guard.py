"""The guard of the rules worker's optimistic write (shared/eventstore/guarded.py), PostgreSQL only.

The worker reads a game and its queued commands without locking, decides, and sends every write as one
statement. That statement must store nothing if another writer settled a command of the game in between:
its last clause calls `railpost_guard(ok, message)`, which raises `serialization_failure` (SQLSTATE 40001,
"try again") when `ok` is false, and the error undoes the whole statement. A function, not an expression:
PostgreSQL may evaluate a constant failing expression while planning, whatever the branch taken.

Revision ID: 0009_settle_guard
Revises: 0008_queued_receipts_index
"""

from __future__ import annotations

from alembic import op

revision = "0009_settle_guard"
down_revision = "0008_queued_receipts_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite's worker locks the database instead (one writer); nothing to guard
    op.execute("""
        CREATE OR REPLACE FUNCTION railpost_guard(ok boolean, message text) RETURNS integer
        LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
            IF ok IS NOT TRUE THEN
                RAISE EXCEPTION USING ERRCODE = 'serialization_failure', MESSAGE = message;
            END IF;
            RETURN 1;
        END
        $$
    """)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS railpost_guard(boolean, text)")

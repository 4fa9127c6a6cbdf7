"""Clock events: each game's time-control decisions (settings, turns, reminders, deadlines, votes, consent
requests), one row per event in order, so the clock is replayed like the game; the engine never sees them.

Revision ID: 0005_clock
Revises: 0004_invitations_imports
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_clock"
down_revision = "0004_invitations_imports"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "clock_events",
        sa.Column("game_id", sa.BigInteger, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("clock_events")

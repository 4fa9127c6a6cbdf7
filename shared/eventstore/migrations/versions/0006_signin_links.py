"""Sign-in links: when a seat last revoked its links (every link issued before then stops working).

Revision ID: 0006_signin_links
Revises: 0005_clock
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_signin_links"
down_revision = "0005_clock"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signin_revocations",
        sa.Column("game_id", sa.BigInteger, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("player_id", sa.BigInteger, primary_key=True),
        sa.Column("revoked_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("signin_revocations")

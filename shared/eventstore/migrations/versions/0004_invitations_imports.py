"""Private games' invitations and idempotent imports.

- `games.invite_hash`: the SHA-256 of a private game's invitation token (answered once, at creation); a seat
  in a private game is taken only with it (or the admin token). Seat links are then not guessable even though
  game ids are sequential. NULL for open games and for games created before this revision.
- `imports`: one row per (caller, Idempotency-Key) of `POST /games/import`, written in the import's own
  transaction, so a retried import answers the first one's game (and its tokens) instead of a new game.
  `secrets` holds the tokens answered the first time: the retry must be able to answer them again.

Revision ID: 0004_invitations_imports
Revises: 0003_sequenced_positions
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_invitations_imports"
down_revision = "0003_sequenced_positions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("invite_hash", sa.Text))
    op.create_table(
        "imports",
        sa.Column("caller", sa.Text, primary_key=True),
        sa.Column("idempotency_key", sa.Text, primary_key=True),
        sa.Column("body_hash", sa.Text, nullable=False),
        sa.Column("game_id", sa.BigInteger, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("secrets", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("imports")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("invite_hash")

"""Refused receipts keep the values the engine would have accepted (`valid`), as every other refusal does, so a
client waiting on a receipt reads them from a field instead of parsing the reason's text.

Revision ID: 0007_receipt_valid
Revises: 0006_signin_links
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_receipt_valid"
down_revision = "0006_signin_links"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("receipts") as batch:
        batch.add_column(sa.Column("valid", sa.Text))  # JSON; NULL where the refusal names no values


def downgrade() -> None:
    with op.batch_alter_table("receipts") as batch:
        batch.drop_column("valid")

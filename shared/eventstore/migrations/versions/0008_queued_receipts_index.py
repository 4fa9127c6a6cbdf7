"""The sweep's index holds queued receipts only.

`receipts_status_created` indexed every receipt ever stored by (status, created_at), and each command's
settle (queued -> applied) added a second entry for it; the one reader, the sweep, asks only for queued
receipts. A partial index on `created_at` where the receipt is queued stays as small as the queue, costs
no entry when a receipt settles, and serves the sweep's `status = 'queued' ... ORDER BY created_at`.

Revision ID: 0008_queued_receipts_index
Revises: 0007_receipt_valid
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_queued_receipts_index"
down_revision = "0007_receipt_valid"
branch_labels = None
depends_on = None

QUEUED_ONLY = sa.text("status = 'queued'")


def upgrade() -> None:
    op.drop_index("receipts_status_created", table_name="receipts")
    op.create_index("receipts_queued_created", "receipts", ["created_at"],
                    postgresql_where=QUEUED_ONLY, sqlite_where=QUEUED_ONLY)


def downgrade() -> None:
    op.drop_index("receipts_queued_created", table_name="receipts")
    op.create_index("receipts_status_created", "receipts", ["status", "created_at"])

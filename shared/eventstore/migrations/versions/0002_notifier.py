"""Notifier tables: subscriptions, endpoints and secrets, deliveries and attempts, tracking, reminders,
the email batching queue and unsubscribe tokens.

Revision ID: 0002_notifier
Revises: 0001_eventstore
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_notifier"
down_revision = "0001_eventstore"
branch_labels = None
depends_on = None

Id = sa.String(64)


def Timestamp() -> sa.DateTime:  # noqa: N802 - reads like a column type
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "notifier_tracking",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("updated_at", Timestamp(), nullable=False),
    )
    op.create_table(
        "notifier_endpoints",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("disabled_at", Timestamp()),
        sa.Column("disabled_reason", sa.Text),
        sa.Column("created_at", Timestamp(), nullable=False),
    )
    op.create_index("ix_notifier_endpoints_player_id", "notifier_endpoints", ["player_id"])
    op.create_table(
        "notifier_endpoint_secrets",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("endpoint_id", sa.Integer, sa.ForeignKey("notifier_endpoints.id"), nullable=False),
        sa.Column("secret", sa.Text, nullable=False),
        sa.Column("created_at", Timestamp(), nullable=False),
        sa.Column("expires_at", Timestamp()),
    )
    op.create_index("ix_notifier_endpoint_secrets_endpoint_id", "notifier_endpoint_secrets", ["endpoint_id"])
    op.create_table(
        "notifier_subscriptions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("scope", Id, nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("endpoint_id", sa.Integer, sa.ForeignKey("notifier_endpoints.id")),
        sa.Column("email", sa.Text),
        sa.Column("email_mode", sa.String(16), nullable=False),
        sa.Column("updated_at", Timestamp(), nullable=False),
        sa.UniqueConstraint("player_id", "scope", name="uq_notifier_subscriptions_player_scope"),
    )
    op.create_table(
        "notifier_deliveries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("webhook_id", sa.String(128), nullable=False, unique=True),
        sa.Column("endpoint_id", sa.Integer, sa.ForeignKey("notifier_endpoints.id"), nullable=False),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("event_type", sa.String(64), nullable=False),
        sa.Column("game_id", Id),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", Timestamp()),
        sa.Column("event_at", Timestamp()),
        sa.Column("created_at", Timestamp(), nullable=False),
        sa.Column("last_status", sa.Integer),
    )
    op.create_index("ix_notifier_deliveries_endpoint_id", "notifier_deliveries", ["endpoint_id"])
    op.create_index("ix_notifier_deliveries_due", "notifier_deliveries", ["status", "next_attempt_at"])
    op.create_table(
        "notifier_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("delivery_id", sa.Integer, sa.ForeignKey("notifier_deliveries.id"), nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("started_at", Timestamp(), nullable=False),
        sa.Column("duration_ms", sa.Integer, nullable=False),
        sa.Column("status_code", sa.Integer),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("error", sa.Text),
    )
    op.create_index("ix_notifier_attempts_delivery_id", "notifier_attempts", ["delivery_id"])
    op.create_table(
        "notifier_game_state",
        sa.Column("game_id", Id, primary_key=True),
        sa.Column("title", sa.Text),
        sa.Column("acting", sa.Text, nullable=False),
        sa.Column("position", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "notifier_turns",
        sa.Column("game_id", Id, primary_key=True),
        sa.Column("player_id", Id, primary_key=True),
        sa.Column("title", sa.Text),
        sa.Column("since", Timestamp(), nullable=False),
        sa.Column("reminded_at", Timestamp()),
    )
    op.create_table(
        "notifier_players",
        sa.Column("player_id", Id, primary_key=True),
        sa.Column("vacation_until", Timestamp()),
        sa.Column("last_reminder_at", Timestamp()),
    )
    op.create_table(
        "notifier_mail_queue",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("address", sa.Text, nullable=False),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("event_type", sa.String(64), nullable=False),
        sa.Column("game_id", Id),
        sa.Column("line", sa.Text, nullable=False),
        sa.Column("created_at", Timestamp(), nullable=False),
        sa.Column("due_at", Timestamp(), nullable=False),
        sa.Column("sent_at", Timestamp()),
        sa.UniqueConstraint("source", "player_id", "address", name="uq_notifier_mail_queue_item"),
    )
    op.create_index("ix_notifier_mail_queue_due", "notifier_mail_queue", ["sent_at", "due_at"])
    op.create_table(
        "notifier_unsubscribe_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("address", sa.Text, nullable=False),
        sa.Column("created_at", Timestamp(), nullable=False),
        sa.Column("used_at", Timestamp()),
    )


def downgrade() -> None:
    for name in (
        "notifier_unsubscribe_tokens",
        "notifier_mail_queue",
        "notifier_players",
        "notifier_turns",
        "notifier_game_state",
        "notifier_attempts",
        "notifier_deliveries",
        "notifier_subscriptions",
        "notifier_endpoint_secrets",
        "notifier_endpoints",
        "notifier_tracking",
    ):
        op.drop_table(name)

"""The notifier's own tables (SQLAlchemy Core), shared by the service, the API and the tests.

The migration `0002_notifier` creates the same shapes;
`tests/notifier/test_api.py::test_migration_matches_the_tables` checks they agree.
Identifiers from the event store (game and player ids) are kept as strings so either integer or text keys
upstream fit without a migration.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

DEFAULT_SCOPE = "*"
TRACKING_NAME = "notifier"

metadata = sa.MetaData()


class UTCDateTime(sa.types.TypeDecorator[datetime]):
    """Timezone-aware UTC in and out, on PostgreSQL (timestamptz) and SQLite (naive text) alike."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


Id = sa.String(64)

tracking = sa.Table(
    "notifier_tracking",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

endpoints = sa.Table(
    "notifier_endpoints",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player_id", Id, nullable=False, index=True),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("disabled_at", UTCDateTime),
    sa.Column("disabled_reason", sa.Text),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

endpoint_secrets = sa.Table(
    "notifier_endpoint_secrets",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("endpoint_id", sa.Integer, sa.ForeignKey("notifier_endpoints.id"), nullable=False, index=True),
    sa.Column("secret", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("expires_at", UTCDateTime),
)

subscriptions = sa.Table(
    "notifier_subscriptions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player_id", Id, nullable=False),
    sa.Column("scope", Id, nullable=False),
    sa.Column("channel", sa.String(16), nullable=False),
    sa.Column("endpoint_id", sa.Integer, sa.ForeignKey("notifier_endpoints.id")),
    sa.Column("email", sa.Text),
    sa.Column("email_mode", sa.String(16), nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.UniqueConstraint("player_id", "scope", name="uq_notifier_subscriptions_player_scope"),
)

deliveries = sa.Table(
    "notifier_deliveries",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("webhook_id", sa.String(128), nullable=False, unique=True),
    sa.Column("endpoint_id", sa.Integer, sa.ForeignKey("notifier_endpoints.id"), nullable=False, index=True),
    sa.Column("source", sa.String(64), nullable=False),
    sa.Column("event_type", sa.String(64), nullable=False),
    sa.Column("game_id", Id),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("next_attempt_at", UTCDateTime),
    sa.Column("event_at", UTCDateTime),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("last_status", sa.Integer),
    sa.Index("ix_notifier_deliveries_due", "status", "next_attempt_at"),
)

attempts = sa.Table(
    "notifier_attempts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("delivery_id", sa.Integer, sa.ForeignKey("notifier_deliveries.id"), nullable=False, index=True),
    sa.Column("attempt", sa.Integer, nullable=False),
    sa.Column("started_at", UTCDateTime, nullable=False),
    sa.Column("duration_ms", sa.Integer, nullable=False),
    sa.Column("status_code", sa.Integer),
    sa.Column("outcome", sa.String(16), nullable=False),
    sa.Column("error", sa.Text),
)

game_state = sa.Table(
    "notifier_game_state",
    metadata,
    sa.Column("game_id", Id, primary_key=True),
    sa.Column("title", sa.Text),
    sa.Column("acting", sa.Text, nullable=False),
    sa.Column("position", sa.BigInteger, nullable=False),
)

turns = sa.Table(
    "notifier_turns",
    metadata,
    sa.Column("game_id", Id, primary_key=True),
    sa.Column("player_id", Id, primary_key=True),
    sa.Column("title", sa.Text),
    sa.Column("since", UTCDateTime, nullable=False),
    sa.Column("reminded_at", UTCDateTime),
)

players = sa.Table(
    "notifier_players",
    metadata,
    sa.Column("player_id", Id, primary_key=True),
    sa.Column("vacation_until", UTCDateTime),
    sa.Column("last_reminder_at", UTCDateTime),
)

mail_queue = sa.Table(
    "notifier_mail_queue",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player_id", Id, nullable=False),
    sa.Column("address", sa.Text, nullable=False),
    sa.Column("source", sa.String(64), nullable=False),
    sa.Column("event_type", sa.String(64), nullable=False),
    sa.Column("game_id", Id),
    sa.Column("line", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("due_at", UTCDateTime, nullable=False),
    sa.Column("sent_at", UTCDateTime),
    sa.UniqueConstraint("source", "player_id", "address", name="uq_notifier_mail_queue_item"),
    sa.Index("ix_notifier_mail_queue_due", "sent_at", "due_at"),
)

unsubscribe_tokens = sa.Table(
    "notifier_unsubscribe_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("player_id", Id, nullable=False),
    sa.Column("address", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("used_at", UTCDateTime),
)

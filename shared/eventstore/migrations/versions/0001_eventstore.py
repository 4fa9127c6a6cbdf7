"""Event store: players, games, seats, command receipts, events, snapshots, outbox and position counters.

Times are epoch seconds (double) and JSON is stored as text, so both backends read back the same values.

Revision ID: 0001_eventstore
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_eventstore"
down_revision = None
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")  # INTEGER PRIMARY KEY is SQLite's rowid alias
TIME = sa.Float()
QUEUED_ONLY = sa.text("status = 'queued'")
HAS_COMMAND = sa.text("command_id IS NOT NULL")


def upgrade() -> None:
    counters = op.create_table(
        "counters",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("value", sa.BigInteger, nullable=False),
    )
    op.bulk_insert(counters, [{"name": n, "value": 0} for n in ("event_position", "outbox_position", "player_id")])

    op.create_table(
        "players",
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("token_hash", sa.Text, unique=True),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", ID, primary_key=True, autoincrement=True),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("options", sa.Text, nullable=False, server_default="[]"),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("seat_count", sa.Integer, nullable=False),
        sa.Column("status", sa.Text, nullable=False),  # open | active | finished
        sa.Column("visibility", sa.Text, nullable=False, server_default="open"),  # open | private
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
        sa.Column("state", sa.Text),  # the engine digest after `version` events (a read model)
        sa.Column("result", sa.Text),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )
    op.create_index("games_status_title", "games", ["status", "title"])
    op.create_table(
        "seats",
        sa.Column("game_id", ID, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat_index", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("token_hash", sa.Text, unique=True),
        sa.Column("joined_at", TIME, nullable=False),
        sa.UniqueConstraint("game_id", "player_id", name="seats_one_per_player"),
    )
    op.create_index("seats_player", "seats", ["player_id"])
    op.create_table(
        "receipts",
        sa.Column("game_id", ID, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("command_id", sa.Text, primary_key=True),
        sa.Column("body_hash", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),  # queued | applied | refused
        sa.Column("expected_version", sa.Integer, nullable=False),
        sa.Column("player_id", sa.BigInteger),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("new_version", sa.Integer),
        sa.Column("reason", sa.Text),
        sa.Column("rule", sa.Text),
        sa.Column("http_status", sa.Integer),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("settled_at", TIME),
    )
    # one queued command per game and version: concurrent submitters at the same version lose at once (409)
    op.create_index("receipts_one_queued_per_version", "receipts", ["game_id", "expected_version"], unique=True,
                    postgresql_where=QUEUED_ONLY, sqlite_where=QUEUED_ONLY)
    op.create_index("receipts_status_created", "receipts", ["status", "created_at"])
    op.create_table(
        "events",
        sa.Column("game_id", ID, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False, unique=True),
        sa.Column("command_id", sa.Text),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("type_version", sa.Integer, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("events_command", "events", ["game_id", "command_id"], unique=True,
                    postgresql_where=HAS_COMMAND, sqlite_where=HAS_COMMAND)
    op.create_table(
        "snapshots",
        sa.Column("game_id", ID, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_table(
        "outbox",
        sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("game_id", sa.BigInteger, nullable=False),
        sa.Column("version", sa.Integer),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("outbox_game", "outbox", ["game_id", "position"])


def downgrade() -> None:
    for table in ("outbox", "snapshots", "events", "receipts", "seats", "games", "players", "counters"):
        op.drop_table(table)

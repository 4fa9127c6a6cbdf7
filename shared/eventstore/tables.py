"""The store's tables as SQLAlchemy Core sees them, for the code that reaches the store through SQLAlchemy
(the table log, `identity`'s reads for the notifier). Declared here, beside the migrations that create
them, so no service declares a table of the store's (the recorder writes the same tables in portable SQL)."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

# the table's own event log (migration 0005_clock), written by services/play/table_log.py (`TableLog`): time
# controls, table rules, votes, undo requests, proposals and seat claims. Named `clock_events` from when it
# held time alone; renaming the table needs a migration and a deploy step for no change in behaviour
clock_events = sa.Table(
    "clock_events", metadata,
    sa.Column("game_id", sa.BigInteger, primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("type", sa.Text, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

players = sa.table("players", sa.column("id"), sa.column("name"), sa.column("token_hash"))
seats = sa.table("seats", sa.column("game_id"), sa.column("seat_index"), sa.column("player_id"),
                 sa.column("name"), sa.column("token_hash"))
signin_revocations = sa.table("signin_revocations", sa.column("game_id"), sa.column("player_id"),
                              sa.column("revoked_at"))

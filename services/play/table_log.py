"""The table's own event log: what a game's table decides beside the moves (its time control and deadlines,
its rules, votes, undo and redo requests, proposals, seat claims), folded by `timekeeping.Table.replay`.
Stored in table `clock_events` (migration 0005_clock, declared by the store in `shared/eventstore/tables.py`;
named from when it held time alone). Appended with the sequence number the writer read, so two writers (the
scheduler and a player's vote) can never both extend the same history."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from shared.eventstore.outbox import OutboxEvent
from shared.eventstore.reader import write_outbox
from shared.eventstore.tables import clock_events

# built once: the table's views, votes and the undo check read a game's table log often, and composing the
# statement anew cost as much CPU as running it
_READ = (sa.select(clock_events.c.data).where(clock_events.c.game_id == sa.bindparam("game_id"))
         .order_by(clock_events.c.seq))


class StaleTableLog(Exception):
    """Someone appended to this game's table log since it was read: read again and redo the decision."""


class TableLog:
    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    def read(self, game_id: int) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(_READ, {"game_id": game_id}).all()
        return [json.loads(r.data) for r in rows]

    def append(self, game_id: int, after: int, events: Sequence[dict[str, Any]],
               tell: Sequence[OutboxEvent] = (), version: int | None = None) -> None:
        """Append `events` after the first `after` events; StaleTableLog if the log has grown meanwhile. `tell`
        are the outbox events that announce them (the table asks someone): written in the same transaction,
        so an alert is sent exactly for a decision that was recorded."""
        if not events:
            return
        now = time.time()
        rows = [{"game_id": game_id, "seq": after + i, "type": e["type"], "data": json.dumps(e),
                 "created_at": now} for i, e in enumerate(events)]
        try:
            with self.engine.begin() as conn:
                conn.execute(clock_events.insert(), rows)
                write_outbox(conn, game_id, version, tell)
        except sa.exc.IntegrityError as exc:
            raise StaleTableLog(f"game {game_id}: table log changed meanwhile") from exc

    def games(self) -> list[int]:
        """Games the scheduler follows: those with a time control (configured), an undo request to settle, or a
        seat a player left (a claim of it is settled by the table's tick: silence hands it over after 48 hours)."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(clock_events.c.game_id)
                                .where(clock_events.c.type.in_(("configured", "consent_opened", "seat_resigned")))
                                .distinct()).all()
        return [int(r.game_id) for r in rows]

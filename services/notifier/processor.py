"""Consumes the outbox: one transaction reads a batch after the tracking position, records the deliveries,
email and turn state it implies, and moves the tracking position. Commit or nothing, so a crash at any
point replays the batch with the same stable ids.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa

from services.timesource import TimeSource

from . import events, fanout, outbox
from .reminders import take_slot
from .settings import NotifierSettings
from .tables import TRACKING_NAME, game_state, tracking, turns


@dataclass
class OutboxProcessor:
    engine: sa.Engine
    settings: NotifierSettings
    timesource: TimeSource

    def position(self) -> int:
        with self.engine.connect() as conn:
            value = conn.execute(sa.select(tracking.c.position).where(tracking.c.name == TRACKING_NAME)).scalar()
        return int(value or 0)

    def run_once(self) -> int:
        """Process one batch; returns how many outbox records it consumed (0 when caught up)."""
        outbox.number_pending(self.engine)
        with self.engine.begin() as conn:
            current = conn.execute(
                sa.select(tracking.c.position).where(tracking.c.name == TRACKING_NAME).with_for_update()
            ).scalar()
            if current is None:
                conn.execute(tracking.insert().values(name=TRACKING_NAME, position=0, updated_at=self.timesource.now()))
                current = 0
            records = outbox.read_after(conn, int(current), self.settings.batch_size)
            if not records:
                return 0
            for record in records:
                self._handle(conn, record)
            conn.execute(
                tracking.update()
                .where(tracking.c.name == TRACKING_NAME)
                .values(position=records[-1].position, updated_at=self.timesource.now())
            )
        return len(records)

    def _handle(self, conn: sa.Connection, record: outbox.OutboxRecord) -> None:
        state = conn.execute(sa.select(game_state).where(game_state.c.game_id == record.game_id)).mappings().first()
        previous: Sequence[str] = json.loads(state["acting"]) if state else []
        title = record.payload.get("title") or (state["title"] if state else None)
        seated: list[str] = []
        names: dict[str, str] | None = None
        if record.kind in ("game_started", "game_finished"):
            seats = outbox.seats_of(conn, record.game_id)
            seated, names = [s.player_id for s in seats], outbox.names_of(seats)

        notifications = events.interpret(
            position=record.position, kind=record.kind, game_id=record.game_id, payload=record.payload,
            occurred_at=record.created_at, title=title, previous_acting=previous, seated=seated,
        )
        now = self.timesource.now()
        if record.kind == "clock_reminder":
            gap = timedelta(hours=self.settings.clock_reminder_gap_hours)
            notifications = [n for n in notifications if all(take_slot(conn, p, now, gap) for p in n.recipients)]
        for n in notifications:
            fanout.schedule(conn, n, self.settings, now, names)

        if record.kind == "turn":
            acting = list(events.acting_players(record.payload))
            self._save_state(conn, record, title, acting, exists=state is not None)
            self._track_turns(conn, record, title, acting, self.timesource.now())
        elif record.kind == "game_finished":
            self._save_state(conn, record, title, [], exists=state is not None)
            conn.execute(turns.delete().where(turns.c.game_id == record.game_id))
        elif state is None or (title and title != state["title"]):
            self._save_state(conn, record, title, list(previous), exists=state is not None)

    @staticmethod
    def _save_state(
        conn: sa.Connection, record: outbox.OutboxRecord, title: str | None, acting: list[str], *, exists: bool
    ) -> None:
        values = {"title": title, "acting": json.dumps(acting), "position": record.position}
        if exists:
            conn.execute(game_state.update().where(game_state.c.game_id == record.game_id).values(**values))
        else:
            conn.execute(game_state.insert().values(game_id=record.game_id, **values))

    @staticmethod
    def _track_turns(
        conn: sa.Connection, record: outbox.OutboxRecord, title: str | None, acting: list[str], now: datetime
    ) -> None:
        """Remember since when each player holds the turn; reminders count from here. We use the time we saw
        the event (by our time source) rather than its commit time, so a backlog after downtime cannot fire a burst
        of reminders at once."""
        conn.execute(turns.delete().where(turns.c.game_id == record.game_id, turns.c.player_id.not_in(acting)))
        held = set(
            conn.execute(sa.select(turns.c.player_id).where(turns.c.game_id == record.game_id)).scalars().all()
        )
        for pid in acting:
            if pid not in held:
                conn.execute(
                    turns.insert().values(game_id=record.game_id, player_id=pid, title=title, since=now)
                )

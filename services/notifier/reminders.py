"""Reminders: a player who has held the turn for a while gets one nudge, and never more than one per day
across all their games, so a slow week in five games is one message a day, not five.
Vacation pauses them entirely.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import sqlalchemy as sa

from services.timesource import TimeSource

from . import fanout
from .events import REMINDER, Notification
from .settings import NotifierSettings
from .tables import players, turns


@dataclass
class ReminderScanner:
    engine: sa.Engine
    settings: NotifierSettings
    timesource: TimeSource

    def run_once(self) -> int:
        """Schedule the reminders due now; returns how many players were nudged."""
        now = self.timesource.now()
        overdue_before = now - timedelta(hours=self.settings.reminder_after_hours)
        gap_before = now - timedelta(hours=self.settings.reminder_gap_hours)
        nudged = 0
        with self.engine.begin() as conn:
            rows = conn.execute(
                sa.select(turns.c.game_id, turns.c.player_id, turns.c.title, turns.c.since)
                .outerjoin(players, players.c.player_id == turns.c.player_id)
                .where(
                    turns.c.reminded_at.is_(None),
                    turns.c.since <= overdue_before,
                    sa.or_(players.c.vacation_until.is_(None), players.c.vacation_until <= now),
                    sa.or_(players.c.last_reminder_at.is_(None), players.c.last_reminder_at <= gap_before),
                )
                .order_by(turns.c.since)
                .with_for_update(of=turns)
            ).all()
            by_player: dict[str, list[Any]] = defaultdict(list)
            for row in rows:
                by_player[row.player_id].append(row)
            for pid, held in by_player.items():
                oldest = held[0]
                games = [{"game_id": r.game_id, "title": r.title, "since": r.since.isoformat()} for r in held]
                n = Notification(
                    REMINDER, f"r{pid}.{int(now.timestamp())}", oldest.game_id, oldest.title, (pid,), now,
                    {"games": games},
                )
                fanout.schedule(conn, n, self.settings, now)
                conn.execute(
                    turns.update()
                    .where(turns.c.player_id == pid, turns.c.game_id.in_([r.game_id for r in held]))
                    .values(reminded_at=now)
                )
                self._mark(conn, pid, now)
                nudged += 1
        return nudged

    @staticmethod
    def _mark(conn: sa.Connection, pid: str, now: Any) -> None:
        updated = conn.execute(players.update().where(players.c.player_id == pid).values(last_reminder_at=now))
        if updated.rowcount == 0:
            conn.execute(players.insert().values(player_id=pid, last_reminder_at=now))


def take_slot(conn: sa.Connection, pid: str, now: Any, gap: timedelta) -> bool:
    """A player's reminder slot: True (and marked) when the player is not on vacation and got no reminder
    within `gap`, from any game or kind; False means this reminder is dropped, so a player in five clocked
    games gets one message per period, not five."""
    row = conn.execute(sa.select(players.c.last_reminder_at, players.c.vacation_until)
                       .where(players.c.player_id == pid).with_for_update()).first()
    if row is not None:
        if row.vacation_until is not None and row.vacation_until > now:
            return False
        if row.last_reminder_at is not None and row.last_reminder_at > now - gap:
            return False
    ReminderScanner._mark(conn, pid, now)
    return True

"""The table's heartbeat: every CLOCK_TICK_SECONDS one pass over the games the table log follows (a time
control's deadlines, an undo request or proposal to settle, a seat left to claim; `TableLog.games`).

Driven by Celery beat on the same Redis (task `railpost.table_tick`), or by a daemon thread in the embedded
`make run` mode. Doubles are harmless: a pass appends its decisions after the sequence number it read (a
second scheduler's append fails and it re-reads), and the moves it queues carry command ids derived from
that sequence number, so the store takes each once. A Redis lock still keeps a fleet of beats from all doing
the same pass.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from services.play import commands
from services.play.beat import TICK_SECONDS
from services.play.dispatch import Dispatcher
from services.play.handover import hand_over
from services.play.legal import seat_actions, stand_in_told
from services.play.pending import asks_made
from services.play.sessions import SessionCache
from services.play.table_log import StaleTableLog, TableLog
from services.play.timekeeping import Follow, Table, tick
from services.timesource import SystemTime, TimeSource
from shared.engine import GameSession
from shared.engine.programs import next_auto_actions
from shared.eventstore import SqlRecorder
from shared.eventstore.outbox import ClockReminder
from shared.eventstore.sql import state_summary

log = logging.getLogger("railpost.table")
LOCK_KEY = "railpost:table:tick"

# (game_id, player_id) -> (the action the player's standing order takes now, the pass they may make now)
Remedies = Callable[[int, int], tuple[dict[str, Any] | None, dict[str, Any] | None]]


def no_remedies(_game_id: int, _player_id: int) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    return None, None


def seat_remedies(session: GameSession, player_id: int) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """What the clock may play for a seat whose time ran out: a standing order due for it, a legal pass."""
    options = seat_actions(session, player_id, orders=False)
    orders = [a for a in next_auto_actions(session.game) if session.controller(a.get("entity")) == player_id]
    passing = next((a for a in options if a.get("type") == "pass"), None)
    return (orders[0] if orders else None), passing


def session_remedies(recorder: SqlRecorder, sessions: SessionCache) -> Remedies:
    """Remedies read from the game itself (`seat_remedies`)."""
    def remedies(game_id: int, player_id: int) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        game = recorder.get_game(game_id)
        if game is None:
            return None, None
        with sessions.use(game) as session:
            return seat_remedies(session, player_id)
    return remedies


@dataclass
class Scheduler:
    recorder: SqlRecorder
    log: TableLog
    dispatcher: Dispatcher
    remedies: Remedies = no_remedies
    timesource: TimeSource = field(default_factory=SystemTime)
    reminded: list[tuple[int, int, int]] = field(default_factory=list)  # (game, player, step), newest last
    timed: dict[int, bool] = field(default_factory=dict)  # game -> has a time control (set before its start)

    def run_once(self) -> int:
        """One pass; returns how many decisions were recorded."""
        return sum(self.tick_game(game_id) for game_id in self.log.games())

    def follow_move(self, game_id: int) -> int:
        """A move of the game just settled: its clock follows at once (whose turn, since when), so nobody
        reads the previous player's clock until the next tick. Only games with a time control have one to
        follow; that is chosen before the game starts, so it is looked up once per game."""
        timed = self.timed.get(game_id)
        if timed is None:
            if len(self.timed) > 100_000:
                self.timed.clear()
            timed = self.timed[game_id] = self.recorder.clock_configured(game_id)  # one probe, the store's pool
        if not timed:
            return 0
        try:
            return self.tick_game(game_id)
        except Exception:  # the move is stored; the next tick follows it
            log.exception("clock did not follow a move", extra={"game_id": game_id})
            return 0

    def tick_game(self, game_id: int, attempts: int = 3) -> int:
        for _ in range(attempts):
            try:
                return self._tick(game_id, self.timesource.now())
            except StaleTableLog:
                continue
        log.warning("table log contended, trying next pass", extra={"game_id": game_id})
        return 0

    def _tick(self, game_id: int, now: datetime) -> int:
        game = self.recorder.get_game(game_id)
        if game is None:
            return 0
        before = self.log.read(game_id)
        table = Table.replay(before)
        summary = state_summary(game.state or {})
        follow = Follow(game.status, game.version, [int(p) for p in summary["acting"]],
                        [s.player_id for s in self.recorder.seats(game_id)])
        result = tick(table, follow, now, lambda player: self.remedies(game_id, player))
        # a vote the deadline opened: the voters are told with the decision (services/play/pending.py)
        told = [*asks_made(game_id, game.title, before, result.events), *stand_in_told(game, result.events)]
        self.log.append(game_id, table.seq, result.events, told, game.version)
        for claim in result.handovers:  # a claim nobody declined in time: the newcomer holds the seat
            hand_over(self.recorder, game_id, claim)
        for i, (player, action) in enumerate(result.actions):
            body = {"action": action, "expected_version": game.version}
            commands.submit(self.recorder, self.dispatcher, game_id, f"clock-{game_id}-{table.seq}-{i}", body,
                            player)
        self.reminded.extend((game_id, p, s) for p, s in result.reminders)
        if result.reminders:  # to the notifier, which sends each through the player's channels
            deadline = Table.replay(self.log.read(game_id)).clock
            due = deadline.deadline() if deadline is not None else None
            with self.recorder.game_transaction(game_id) as tx:
                for player, step in result.reminders:
                    tx.emit(ClockReminder(game_id, game.title, player, step, due.isoformat() if due else None),
                            game.version)
        return len(result.events)


def locked(redis_url: str | None, seconds: float) -> bool:
    """True if this process may run the pass now (always, without Redis)."""
    if not redis_url:
        return True
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        return bool(client.set(LOCK_KEY, os.getpid(), nx=True, ex=max(1, int(seconds * 0.9))))
    finally:
        client.close()


class InProcessScheduler:
    """The embedded mode's beat: a daemon thread calling `run_once` every `seconds`."""

    def __init__(self, scheduler: Scheduler, seconds: float = TICK_SECONDS) -> None:
        self.scheduler = scheduler
        self.seconds = seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="railpost-table-tick", daemon=True)

    def start(self) -> InProcessScheduler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            try:
                self.scheduler.run_once()
            except Exception:  # a pass that fails (store down) is retried by the next one
                log.exception("table tick failed")

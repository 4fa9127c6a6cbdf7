"""Handing committed commands to the rules worker. Callers publish only after the queued receipt has
committed, so a task never names a write that was rolled back; a publish lost in a crash is covered by the
sweep, which re-publishes receipts still queued after `sweep_after_seconds`."""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Protocol

from services.config import Config
from services.play.apply import apply_pending
from services.play.sessions import SessionCache
from services.play.signals import SettleSignals
from shared.eventstore import SqlRecorder

log = logging.getLogger("railpost.dispatch")
APPLY_TASK = "railpost.apply"
SWEEP_TASK = "railpost.sweep"
WARM_TASK = "railpost.warm"


class Dispatcher(Protocol):
    def publish(self, game_id: int, command_id: str) -> None: ...

    def warm(self, game_id: int) -> None:
        """A hint that commands for this game will follow (it just started): build its session now, where
        its commands will be applied, rather than on the first move."""

    def close(self) -> None: ...


def stale_games(recorder: SqlRecorder, config: Config) -> dict[int, str]:
    """One command id per game with receipts queued too long (one task drains a game's whole queue)."""
    return {r.game_id: r.command_id for r in recorder.stale_receipts(time.time() - config.sweep_after_seconds)}


class CeleryDispatcher:
    def __init__(self, config: Config) -> None:
        from services.rules_worker.celery_app import make_celery

        self._celery = make_celery(config)
        self._config = config

    def publish(self, game_id: int, command_id: str) -> None:
        self._celery.send_task(APPLY_TASK, args=[game_id, command_id], queue=self._config.queue_for(game_id))

    def warm(self, game_id: int) -> None:
        self._celery.send_task(WARM_TASK, args=[game_id], queue=self._config.queue_for(game_id))

    def close(self) -> None:
        self._celery.close()


class InProcessDispatcher:
    """The embedded default: a daemon thread in the gateway process applies queued commands in order.
    Same code path as the Celery task; the sweep also picks up receipts left by a previous process."""

    def __init__(self, recorder: SqlRecorder, config: Config, signals: SettleSignals | None = None) -> None:
        self._recorder = recorder
        self._config = config
        self._signals = signals
        self._sessions = SessionCache(recorder, config.session_cache_size)
        self._queue: queue.Queue[int | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="railpost-rules", daemon=True)
        self._thread.start()

    def publish(self, game_id: int, command_id: str) -> None:
        self._queue.put(game_id)

    def warm(self, game_id: int) -> None:
        pass  # the embedded thread builds a session on first use

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)

    def _run(self) -> None:
        next_sweep = 0.0
        while True:
            try:
                game_id = self._queue.get(timeout=self._config.sweep_interval_seconds)
            except queue.Empty:
                game_id = -1
            if game_id is None:
                return
            try:
                if game_id >= 0:
                    apply_pending(self._recorder, self._sessions, self._config, game_id, self._signals)
                if time.monotonic() >= next_sweep:
                    next_sweep = time.monotonic() + self._config.sweep_interval_seconds
                    self._recorder.number_pending()  # positions for rows nobody has read yet (as the Celery sweep)
                    for stale in stale_games(self._recorder, self._config):
                        apply_pending(self._recorder, self._sessions, self._config, stale, self._signals)
            except Exception:
                log.exception("apply failed", extra={"game_id": game_id})


def make_dispatcher(recorder: SqlRecorder, config: Config, signals: SettleSignals | None = None) -> Dispatcher:
    return InProcessDispatcher(recorder, config, signals) if config.embedded else CeleryDispatcher(config)

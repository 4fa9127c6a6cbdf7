"""Celery tasks: thin wrappers over `services.play.apply`, with a per-process store and session cache that
are opened lazily after the prefork pool forks (connections must not cross a fork)."""

from __future__ import annotations

import logging
import os

from celery import current_app, shared_task

from services.config import Config
from services.logs import setup_logging
from services.play.apply import apply_pending
from services.play.dispatch import APPLY_TASK, SWEEP_TASK, stale_games
from services.play.sessions import SessionCache
from shared.eventstore import SqlRecorder, open_recorder

log = logging.getLogger("railpost.worker")
_runtime: dict[int, tuple[SqlRecorder, SessionCache, Config]] = {}


def runtime() -> tuple[SqlRecorder, SessionCache, Config]:
    pid = os.getpid()
    if pid not in _runtime:
        config: Config = current_app.conf.railpost_config
        setup_logging(config.log_level)
        recorder = open_recorder(config.database_url, pool_size=2)
        _runtime.clear()
        _runtime[pid] = (recorder, SessionCache(recorder, config.session_cache_size), config)
    return _runtime[pid]


@shared_task(name=APPLY_TASK, acks_late=True, reject_on_worker_lost=True, autoretry_for=(OSError,),
             retry_backoff=True, max_retries=5)
def apply_commands(game_id: int, command_id: str) -> int:
    """Drain the game's queue (not just `command_id`): order comes from the store, not from delivery."""
    recorder, sessions, config = runtime()
    return apply_pending(recorder, sessions, config, game_id)


@shared_task(name=SWEEP_TASK, acks_late=True)
def sweep() -> int:
    recorder, _, config = runtime()
    stale = stale_games(recorder, config)
    for game_id, command_id in stale.items():
        log.warning("re-publishing stale receipt", extra={"game_id": game_id, "command_id": command_id})
        current_app.send_task(APPLY_TASK, args=[game_id, command_id], queue=config.celery_queue)
    return len(stale)

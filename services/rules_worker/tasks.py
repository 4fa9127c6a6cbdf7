"""Celery tasks: thin wrappers over `services.play.apply`, with a per-process store and session cache that
are opened lazily after the prefork pool forks (connections must not cross a fork)."""

from __future__ import annotations

import dataclasses
import logging
import os
import threading

from celery import current_app, shared_task

from services.config import Config
from services.logs import setup_logging
from services.notifier.db import make_engine
from services.play.apply import apply_pending
from services.play.beat import TICK_SECONDS
from services.play.beat import TICK_TASK as TABLE_TICK_TASK
from services.play.bells import DRAIN_TASK, Bells
from services.play.dispatch import (
    APPLY_TASK,
    SWEEP_TASK,
    WARM_TASK,
    CeleryDispatcher,
    queued_receipt,
    stale_games,
)
from services.play.offers import Shelf, make_shelf, prepare_quietly
from services.play.scheduler import Scheduler, locked, session_remedies
from services.play.sessions import HEAP, SessionCache
from services.play.signals import SettleSignals, make_signals
from services.play.table_log import TableLog
from shared.eventstore import SqlRecorder, open_recorder
from shared.eventstore.records import ACTIVE

log = logging.getLogger("railpost.worker")
_runtime: dict[int, tuple[SqlRecorder, SessionCache, Config, SettleSignals]] = {}
_runtime_lock = threading.Lock()


def runtime() -> tuple[SqlRecorder, SessionCache, Config, SettleSignals]:
    pid = os.getpid()
    if pid in _runtime:
        return _runtime[pid]
    with _runtime_lock:  # a thread pool's first tasks arrive together
        if pid not in _runtime:
            config: Config = current_app.conf.railpost_config
            setup_logging(config.log_level)
            recorder = open_recorder(config.database_url, pool_size=config.db_pool_size)
            HEAP.enable()  # a long-lived server process: keep the collector off its cached sessions
            _runtime.clear()
            _runtime[pid] = (recorder, SessionCache(recorder, config.session_cache_size), config,
                             make_signals(config.redis_url, config.celery_queue))
        return _runtime[pid]


@shared_task(name=APPLY_TASK, acks_late=True, reject_on_worker_lost=True, autoretry_for=(OSError,),
             retry_backoff=True, max_retries=5)
def apply_commands(game_id: int, command_id: str, reply_to: str | None = None, queued: object = None) -> int:
    """Drain the game's queue (not just `command_id`): order comes from the store, not from delivery.
    `command_id`'s outcome is announced on `reply_to` when the submitting gateway named one; `queued` is its
    receipt as stored (`dispatch.doorbell_receipt`), settled without a read when this process holds the game."""
    return _apply(game_id, command_id, reply_to, queued)


def _apply(game_id: int, command_id: str, reply_to: str | None = None, queued: object = None) -> int:
    recorder, sessions, config, signals = runtime()
    known = queued_receipt(game_id, command_id, queued, config.doorbell_key) if queued is not None else None
    if queued is not None and known is None:
        log.warning("a doorbell's command is not one this worker can trust (the gateway and the worker must share "
                    "DATABASE_URL or DOORBELL_SECRET); its game's stored queue is read instead",
                    extra={"game_id": game_id, "command_id": command_id})
    settled = apply_pending(recorder, sessions, config, game_id, signals, (command_id, reply_to), known)
    if settled:
        scheduler().follow_move(game_id)  # the game's clock follows the move now, not at the next tick
        prepare_quietly(sessions, shelf(), game_id)  # the position's offers, for a game someone reads
    return settled


@shared_task(name=DRAIN_TASK, acks_late=True)
def drain(queue_name: str) -> int:
    """Settle a batch of the queue's doorbells (`services.play.bells`), each as its own apply task would. A
    doorbell that fails is handed to an apply task of its own, which retries as `apply_commands` does; the
    rest of the batch goes on."""
    settled = 0
    for args in doorbells().take(queue_name):
        try:
            settled += _apply(*args)
        except Exception:
            log.warning("doorbell failed in a batch; retried on its own", exc_info=True,
                        extra={"game_id": args[0] if args else None})
            current_app.send_task(APPLY_TASK, args=args, queue=queue_name)
    return settled


@shared_task(name=WARM_TASK)
def warm(game_id: int) -> int:
    """Build (or catch up) the session of a game that just started, so its first command finds it hot."""
    recorder, sessions, _, _ = runtime()
    with sessions.hold(game_id):  # no settle of this process moves the game between the read and `remember`
        game = recorder.get_game(game_id)
        if game is None or game.status != ACTIVE:
            return 0
        with sessions.use(game) as session:
            version = session.version
        sessions.remember(dataclasses.replace(game, state=None))  # its first command then needs no read either
    return version


@shared_task(name=SWEEP_TASK, acks_late=True)
def sweep() -> int:
    """Re-publish stale receipts, and give positions to events and outbox rows committed since the last
    numbering: tailing readers (the notifier) number before they read, this bounds the delay for everyone
    else (a reader that only reads, a notifier that is down)."""
    recorder, _, config, _ = runtime()
    numbered = recorder.number_pending()
    if numbered:
        log.info("numbered positions", extra={"rows": numbered})
    stale = stale_games(recorder, config)
    for game_id, command_id in stale.items():
        log.warning("re-publishing stale receipt", extra={"game_id": game_id, "command_id": command_id})
        current_app.send_task(APPLY_TASK, args=[game_id, command_id], queue=config.queue_for(game_id))
    if dispatcher().rings_in_batches:  # a drain lost with its worker: its doorbells are taken now, not at their sweep
        for queue_name in {config.queue_for(shard) for shard in range(max(1, config.worker_shards))}:
            if doorbells().waiting(queue_name):
                current_app.send_task(DRAIN_TASK, args=[queue_name], queue=queue_name)
    return len(stale)


_shelf: dict[int, Shelf] = {}


def shelf() -> Shelf:
    """This process's shelf of kept offers (its Redis client made after the fork, like `runtime`)."""
    found = _shelf.get(os.getpid())
    if found is None:
        _shelf.clear()
        found = _shelf[os.getpid()] = make_shelf(runtime()[2].redis_url)
    return found


_dispatcher: dict[int, CeleryDispatcher] = {}


def dispatcher() -> CeleryDispatcher:
    """This process's dispatcher (its Redis client made after the fork, like `runtime`): the clock's commands
    ring through it, and the drains take their doorbells from its lists."""
    found = _dispatcher.get(os.getpid())
    if found is None:
        _dispatcher.clear()
        found = _dispatcher[os.getpid()] = CeleryDispatcher(runtime()[2])
    return found


def doorbells() -> Bells:
    return dispatcher().doorbells()


_clock: dict[int, Scheduler] = {}


def scheduler() -> Scheduler:
    """This process's time-control scheduler (created after the fork, like `runtime`)."""
    found = _clock.get(os.getpid())
    if found is None:
        recorder, sessions, config, _ = runtime()
        found = Scheduler(recorder, TableLog(make_engine(config.database_url, pool_size=2)),
                          dispatcher(), session_remedies(recorder, sessions))
        _clock.clear()
        _clock[os.getpid()] = found
    return found


@shared_task(name=TABLE_TICK_TASK)
def clock_tick() -> int:
    """One pass of the time-control scheduler; with many workers and beats, the Redis lock lets one run it."""
    config = runtime()[2]
    if not locked(config.redis_url, TICK_SECONDS):
        return 0
    return scheduler().run_once()

"""Handing committed commands to the rules worker. Callers publish only after the queued receipt has
committed, so a task never names a write that was rolled back; a publish lost in a crash is covered by the
sweep, which re-publishes receipts still queued after `sweep_after_seconds`."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import queue
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from services.config import Config
from services.play.apply import Known, apply_pending
from services.play.bells import DRAIN_TASK, Bells
from services.play.offers import Shelf, prepare_quietly
from services.play.sessions import SessionCache
from services.play.signals import SettleSignals
from shared.eventstore import Receipt, SqlRecorder
from shared.eventstore.records import QUEUED
from shared.jsontext import dumps, dumps_bytes, loads

log = logging.getLogger("railpost.dispatch")
APPLY_TASK = "railpost.apply"
SWEEP_TASK = "railpost.sweep"
WARM_TASK = "railpost.warm"


class Dispatcher(Protocol):
    carries_commands: bool  # whether a doorbell may carry a command nobody stored (`publish(stored=False)`)

    def publish(self, game_id: int, command_id: str, reply_to: str | None = None,
                queued: Receipt | None = None, stored: bool = True) -> None:
        """Ring the game's doorbell once `command_id` has committed; `reply_to` names the channel of the
        process waiting for its outcome (see `services.play.signals`); `queued` is the receipt as it was
        stored, which a worker holding the game hot settles without reading it (`services.play.apply`).
        With `stored=False` nothing was stored: the doorbell carries the whole command, which the worker
        stores, settled or queued (`services.play.commands.send_and_wait`)."""

    def warm(self, game_id: int) -> None:
        """A hint that commands for this game will follow (it just started): build its session now, where
        its commands will be applied, rather than on the first move."""

    def close(self) -> None: ...


def stale_games(recorder: SqlRecorder, config: Config) -> dict[int, str]:
    """One command id per game with receipts queued too long (one task drains a game's whole queue)."""
    return {r.game_id: r.command_id for r in recorder.stale_receipts(time.time() - config.sweep_after_seconds)}


def doorbell_receipt(receipt: Receipt, signed_with: bytes | None = None) -> list[Any]:
    """The queued receipt as a doorbell carries it: the action as the store spelled it (`dumps`), so the
    worker's write can require the stored text to be exactly that (shared/eventstore/guarded.py). A command
    nobody stored carries a sixth field, its signature under `signed_with` (`Config.doorbell_key`): the
    worker stores such a command only if the signature holds, so writing to Redis is not a way to move."""
    fields = [receipt.expected_version, receipt.player_id, receipt.body_hash, receipt.created_at,
              dumps(receipt.action)]
    return fields if signed_with is None else [*fields, _signature(signed_with, receipt.game_id,
                                                                   receipt.command_id, fields)]


def _signature(key: bytes, game_id: int, command_id: str, fields: list[Any]) -> str:
    return hmac.new(key, dumps([game_id, command_id, *fields]).encode(), hashlib.sha256).hexdigest()


def queued_receipt(game_id: int, command_id: str, fields: Any, key: bytes = b"") -> Known | None:
    """A doorbell's receipt back, with its action's stored text; None when it is not one (an older or
    foreign doorbell, or a command nobody stored whose signature under `key` does not hold): the worker then
    reads the game's queue, as for a doorbell without one."""
    try:
        version, player_id, digest, created_at, text, *signed = fields
        if not (isinstance(version, int) and isinstance(player_id, int | None) and isinstance(digest, str)
                and isinstance(created_at, int | float) and isinstance(text, str)):
            return None
        if signed and not (len(signed) == 1 and isinstance(signed[0], str) and key and hmac.compare_digest(
                signed[0], _signature(key, game_id, command_id, fields[:5]))):
            return None
        receipt = Receipt(game_id, command_id, digest, QUEUED, version, player_id, loads(text), float(created_at))
        return Known(receipt, text, stored=not signed)
    except (TypeError, ValueError):
        return None


_EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}
DIRECT_SCHEMES = ("redis://", "rediss://", "unix://")


def doorbell_message(task: str, args: list[Any], queue_name: str, origin: str) -> str:
    """A Celery task message (protocol 2, JSON body) as kombu's Redis transport stores it in the queue's list.

    Built by hand because `Celery.send_task` costs about 0.8 ms of CPU per call (a new redis client object
    per message, producer and routing machinery), most of the gateway's CPU per action after the request
    itself. The apply task takes plain JSON arguments and no options (no eta, expiry, retries, callbacks or
    result), so the message is fixed apart from its ids and arguments; a test checks it field for field
    against what `send_task` writes, so a Celery or kombu upgrade that changes the format fails there."""
    task_id = str(uuid.uuid4())
    body = dumps_bytes([args, {}, _EMBED])
    return dumps({
        "body": base64.b64encode(body).decode(),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": {
            "lang": "py", "task": task, "id": task_id, "shadow": None, "eta": None, "expires": None,
            "group": None, "group_index": None, "retries": 0, "timelimit": [None, None], "root_id": task_id,
            "parent_id": None, "argsrepr": repr(args), "kwargsrepr": "{}", "origin": origin,
            "ignore_result": None, "replaced_task_nesting": 0, "stamped_headers": None, "stamps": {},
        },
        "properties": {
            "correlation_id": task_id, "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": queue_name}, "priority": 0,
            "body_encoding": "base64", "delivery_tag": str(uuid.uuid4()),
        },
    })


def make_bells(client: Any, origin: str) -> Bells:
    """The doorbell lists on `client`, their drain tasks sent as `origin` names its sender."""
    return Bells(client, lambda queue_name: doorbell_message(DRAIN_TASK, [queue_name], queue_name, origin))


class CeleryDispatcher:
    """Publishes to the Celery workers. On Redis each command's doorbell is left in its queue's doorbell list,
    and one drain task, pushed straight onto the Celery queue's list (what kombu does for the default
    exchange), takes a batch of them (`services.play.bells`), through one shared, pooled client; rare tasks
    (warm) and non-Redis brokers go through `send_task`, one apply task per command."""

    def __init__(self, config: Config) -> None:
        from services.rules_worker.celery_app import make_celery

        self._celery = make_celery(config)
        self._config = config
        self._direct = (config.redis_url or "").startswith(DIRECT_SCHEMES)
        self._client: Any = None
        self._bells: Bells | None = None
        self._origin = ""

    def _redis(self) -> Any:
        """Created on first use, after gunicorn forks (redis-py's pool also resets itself in a child)."""
        if self._client is None:
            import redis

            self._origin = f"gen{os.getpid()}@{socket.gethostname()}"  # as Celery names a sender
            self._client = redis.Redis.from_url(self._config.redis_url or "", socket_timeout=5,
                                                socket_connect_timeout=5)
        return self._client

    @property
    def rings_in_batches(self) -> bool:
        """Whether doorbells wait in Redis lists for a drain (a Redis broker), not one apply task each."""
        return self._direct

    def doorbells(self) -> Bells:
        """The doorbell lists, on this dispatcher's client (a rules worker's drains take from them too)."""
        if self._bells is None:
            self._bells = make_bells(self._redis(), self._origin)
        return self._bells

    carries_commands = True

    def publish(self, game_id: int, command_id: str, reply_to: str | None = None,
                queued: Receipt | None = None, stored: bool = True) -> None:
        queue_name = self._config.queue_for(game_id)
        args: list[Any] = [game_id, command_id] + ([reply_to] if reply_to or queued else [])
        if queued is not None:
            args.append(doorbell_receipt(queued, None if stored else self._config.doorbell_key))
        if not self._direct:
            self._celery.send_task(APPLY_TASK, args=args, queue=queue_name)
            return
        self.doorbells().ring(queue_name, args)

    def warm(self, game_id: int) -> None:
        """A hint, so it never fails the request that gave it: with the broker down it is dropped (the
        first command builds the session instead), and on Redis it is one LPUSH, not Celery's publish
        with its connection retries."""
        queue_name = self._config.queue_for(game_id)
        try:
            if self._direct:
                self._redis().lpush(queue_name, doorbell_message(WARM_TASK, [game_id], queue_name, self._origin))
            else:
                self._celery.send_task(WARM_TASK, args=[game_id], queue=queue_name)
        except Exception:
            log.warning("warm hint not sent", exc_info=True, extra={"game_id": game_id})

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        self._celery.close()


class InProcessDispatcher:
    """The embedded default: a daemon thread in the gateway process applies queued commands in order.
    Same code path as the Celery task; the sweep also picks up receipts left by a previous process."""

    def __init__(self, recorder: SqlRecorder, config: Config, signals: SettleSignals | None = None,
                 offers: Shelf | None = None) -> None:
        self._recorder = recorder
        self._config = config
        self._signals = signals
        self._offers = offers  # the gateway's shelf: this thread keeps each position's offers on it
        self._sessions = SessionCache(recorder, config.session_cache_size)
        self._queue: queue.Queue[int | None] = queue.Queue()
        # what follows a settled move (the game's clock, `Scheduler.follow_move`), as the Celery task does
        self.after_settle: Callable[[int], object] | None = None
        self._thread = threading.Thread(target=self._run, name="railpost-rules", daemon=True)
        self._thread.start()

    carries_commands = False  # the thread reads what the gateway stored: one process, one store

    def publish(self, game_id: int, command_id: str, reply_to: str | None = None,
                queued: Receipt | None = None, stored: bool = True) -> None:
        self._queue.put(game_id)  # one thread applies: it reads the queue, no race to guard against

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
                    settled = apply_pending(self._recorder, self._sessions, self._config, game_id, self._signals)
                    if settled and self.after_settle is not None:
                        self.after_settle(game_id)
                    if settled and self._offers is not None:
                        prepare_quietly(self._sessions, self._offers, game_id)
                if time.monotonic() >= next_sweep:
                    next_sweep = time.monotonic() + self._config.sweep_interval_seconds
                    self._recorder.number_pending()  # positions for rows nobody has read yet (as the Celery sweep)
                    for stale in stale_games(self._recorder, self._config):
                        apply_pending(self._recorder, self._sessions, self._config, stale, self._signals)
            except Exception:
                log.exception("apply failed", extra={"game_id": game_id})


def make_dispatcher(recorder: SqlRecorder, config: Config, signals: SettleSignals | None = None,
                    offers: Shelf | None = None) -> Dispatcher:
    """`offers`: the shelf the embedded thread keeps each position's offers on (a Celery worker has its own)."""
    return InProcessDispatcher(recorder, config, signals, offers) if config.embedded else CeleryDispatcher(config)

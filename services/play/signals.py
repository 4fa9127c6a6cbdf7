"""Waking long-polls when a command settles, instead of polling the store.

The applier announces each settled command right after its transaction commits, with the outcome it stored
(status, new version, refusal, settle time); a gateway thread waiting on that receipt wakes at once and
answers from it without reading the store again. An announcement is only a hint: it is sent after commit, so
it never names an outcome that was not stored, and a waiter that hears nothing re-reads its receipt at least
every `RECHECK_SECONDS`, so a lost announcement (worker killed between commit and publish, Redis restarted,
subscriber reconnecting) costs latency, never correctness.

- `LocalSignals`: one process (the embedded in-process queue).
- `RedisSignals`: the Celery set-up. Each gateway process runs one subscriber thread, started on first use
  (after gunicorn forks), on two channels: its own reply channel and the deployment's shared one (named after
  the Celery queue: Redis pub/sub ignores the DB number). A request that submits and waits sends its reply
  channel with the doorbell, and the worker announces that command there, so each announcement is decoded
  by the one process waiting for it rather than by every gateway process of every host. Anything else (a
  command submitted without waiting, then long-polled, perhaps elsewhere; one settled by another command's
  task) is announced on the shared channel, which every gateway hears.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

from shared.jsontext import dumps_bytes, loads

log = logging.getLogger("railpost.signals")
RECHECK_SECONDS = 0.5
# An outcome never stored: a command nobody stored that the settle found the gateway should have refused
# (`services.play.apply._store`); its waiter raises it as the gateway would have (`rule` names the Conflict).
REJECTED = "rejected"


Outcome = dict[str, Any]  # command_id plus the settled receipt fields (status, new_version, ...)


class Watch:
    """One waiter: `wait` returns True once its command is announced, with the announced `outcome`.

    A lock held from birth and released by the announcement, rather than a `threading.Event`: one is made
    per waiting request, and an Event is a Condition, a lock and a waiter list to build, enter and notify
    (5% of the gateway's CPU in the flood's profile, for a signal that fires once to one thread)."""

    __slots__ = ("_gate", "_fired", "outcome")

    def __init__(self) -> None:
        self._gate = threading.Lock()
        self._gate.acquire()
        self._fired = False
        self.outcome: Outcome | None = None

    def set(self) -> None:
        """Called under the signals' guard, so a second announcement of the same command is a no-op."""
        if not self._fired:
            self._fired = True
            self._gate.release()

    def wait(self, timeout: float) -> bool:
        if self._gate.acquire(timeout=max(0.0, timeout)):
            self._gate.release()  # wait again and it is still set
            return True
        return False


class SettleSignals(Protocol):
    def announce(self, game_id: int, outcomes: Sequence[Outcome], reply_to: str | None = None) -> None: ...

    def watch(self, game_id: int, command_id: str) -> Any: ...  # context manager yielding a Watch

    def reply_channel(self) -> str | None:
        """Where this process hears its own commands' outcomes (None: the appliers run in this process)."""

    def close(self) -> None: ...


class LocalSignals:
    """Waiters of this process, keyed by (game, command)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._waiters: dict[tuple[int, str], list[Watch]] = {}

    @contextmanager
    def watch(self, game_id: int, command_id: str) -> Iterator[Watch]:
        """Register before reading the receipt, so a settle between the read and the wait is not missed."""
        key = (game_id, command_id)
        watch = Watch()
        with self._guard:
            self._waiters.setdefault(key, []).append(watch)
        try:
            yield watch
        finally:
            with self._guard:
                watches = self._waiters.get(key, [])
                if watch in watches:
                    watches.remove(watch)
                if not watches:
                    self._waiters.pop(key, None)

    def announce(self, game_id: int, outcomes: Sequence[Outcome], reply_to: str | None = None) -> None:
        self._wake(game_id, outcomes)

    def reply_channel(self) -> str | None:
        return None

    def _wake(self, game_id: int, outcomes: Sequence[Outcome]) -> None:
        with self._guard:
            for outcome in outcomes:
                for watch in self._waiters.get((game_id, outcome["command_id"]), ()):
                    watch.outcome = outcome
                    watch.set()

    def close(self) -> None:
        pass


class RedisSignals(LocalSignals):
    def __init__(self, redis_url: str, channel: str) -> None:
        super().__init__()
        self._url = redis_url
        self._channel = f"railpost:settled:{channel}"
        self._own: str | None = None  # this process's reply channel, named after the fork
        self._client: Any = None
        self._listener: threading.Thread | None = None
        self._ready = threading.Event()
        self._closed = False

    def _redis(self) -> Any:
        if self._client is None:
            import redis

            self._client = redis.Redis.from_url(self._url, socket_timeout=5, socket_connect_timeout=5)
        return self._client

    def announce(self, game_id: int, outcomes: Sequence[Outcome], reply_to: str | None = None) -> None:
        """Called after commit: a failure here is logged, never raised (the outcome is already stored).
        `reply_to` is trusted only inside this deployment's namespace: a doorbell cannot make a worker
        publish on some other channel of the Redis server."""
        channel = reply_to if reply_to and reply_to.startswith(self._channel + ":") else self._channel
        try:
            self._redis().publish(channel, dumps_bytes([game_id, list(outcomes)]))
        except Exception:
            log.warning("settle announcement failed", exc_info=True, extra={"game_id": game_id})

    @contextmanager
    def watch(self, game_id: int, command_id: str) -> Iterator[Watch]:
        self._listen()
        with super().watch(game_id, command_id) as watch:
            yield watch

    def reply_channel(self) -> str | None:
        self._listen()
        return self._own

    def _listen(self) -> None:
        if self._listener is None:
            with self._guard:
                if self._listener is None:
                    self._own = f"{self._channel}:{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
                    self._listener = threading.Thread(target=self._run, name="railpost-settled", daemon=True)
                    self._listener.start()
            self._ready.wait(1.0)  # first waiter: give the subscription a moment; rechecks cover the rest

    def _run(self) -> None:
        import redis

        while not self._closed:
            try:
                client = redis.Redis.from_url(self._url, socket_connect_timeout=5)
                pubsub = client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self._channel, self._own)
                for _ in range(2):
                    pubsub.get_message(timeout=1.0)  # the subscribe confirmations
                self._ready.set()
                while not self._closed:
                    message = pubsub.get_message(timeout=1.0)
                    if message is None or message.get("type") != "message":
                        continue
                    game_id, outcomes = loads(message["data"])
                    self._wake(int(game_id), outcomes)
            except Exception:
                self._ready.clear()
                if not self._closed:
                    log.warning("settle subscription lost; reconnecting", exc_info=True)
                    threading.Event().wait(1.0)

    def close(self) -> None:
        self._closed = True


def make_signals(redis_url: str | None, channel: str) -> SettleSignals:
    return RedisSignals(redis_url, channel) if redis_url else LocalSignals()

"""The apply doorbells' own lane in each rules worker: threads that pop compact doorbells off Redis lists and
drain the named game, beside Celery rather than through it.

Why: a doorbell is three fields ("game 7 has queued commands; command c; announce its outcome on channel r")
and its task does all its work in `apply_pending`. Through Celery each one cost the worker's consumer loop
(kombu's hub and BRPOP, the message's two decodings, the request object, the pool hand-off, task tracing) —
measured with py-spy during the service bench, more of the worker's CPU than applying the move. Here a
thread blocks in BRPOP (the GIL released), decodes one short JSON array and applies.

Every guarantee stays where it was, in the store: the receipts table is the durable queue and a doorbell only
a hint. One lost (a worker killed between BRPOP and commit, Redis restarted) leaves its receipt queued, and
the sweep re-publishes it through Celery's `railpost.apply` task, which the workers still serve; a failed
apply is handed to that task too, so its retries with backoff apply as before. Redis being down makes the
threads wait and retry, as Celery's consumer does.

The lists are named after the Celery queues the worker consumes (`doorbell_list`), so shards, the shared
queue and `-Q` keep their meaning; the lane is a worker bootstep, started once the pool is up and stopped
with the worker.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any

from celery import bootsteps

log = logging.getLogger("railpost.lane")
POP_SECONDS = 1  # how long one BRPOP blocks: the bound on noticing a stop


def doorbell_list(queue: str) -> str:
    """The Redis list of a Celery queue's apply doorbells."""
    return f"{queue}:doorbells"


def doorbell(game_id: int, command_id: str, reply_to: str | None) -> str:
    return json.dumps([game_id, command_id] + ([reply_to] if reply_to else []))


class DoorbellLane(bootsteps.StartStopStep):
    """`threads` lane threads per worker process (the worker's WORKER_THREADS)."""

    requires = {"celery.worker.components:Pool"}

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        super().__init__(worker, **kwargs)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self, worker: Any) -> None:
        config = worker.app.conf.railpost_config
        if not (config.redis_url or "").startswith(("redis://", "rediss://", "unix://")):
            return  # another broker: every doorbell goes through Celery
        queues = sorted(worker.app.amqp.queues.consume_from)
        lists = [doorbell_list(q) for q in queues]
        for index in range(max(1, config.worker_threads)):
            thread = threading.Thread(target=self._run, args=(worker.app, config, lists), daemon=True,
                                      name=f"railpost-lane-{index}")
            thread.start()
            self._threads.append(thread)

    def stop(self, worker: Any) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=POP_SECONDS + 5)
        self._threads = []

    def _run(self, app: Any, config: Any, lists: list[str]) -> None:
        import redis

        client = redis.Redis.from_url(config.redis_url, socket_timeout=POP_SECONDS + 10, socket_connect_timeout=5)
        while not self._stop.is_set():
            try:
                popped = client.brpop(lists, timeout=POP_SECONDS)
            except Exception:
                log.warning("doorbell lane: Redis unavailable; retrying", exc_info=True)
                self._stop.wait(1.0)
                continue
            if popped is not None:
                ring(app, config, popped[1])


def ring(app: Any, config: Any, raw: bytes) -> None:
    """Apply one doorbell; on failure hand it to the Celery task (its retries), or leave it to the sweep."""
    from services.play.dispatch import APPLY_TASK
    from services.rules_worker.tasks import apply_doorbell

    try:
        args = json.loads(raw)
        game_id, command_id = int(args[0]), str(args[1])
        reply_to = str(args[2]) if len(args) > 2 else None
    except (ValueError, TypeError, IndexError, KeyError):
        log.error("doorbell lane: unreadable doorbell dropped", extra={"doorbell": raw[:200]})
        return
    try:
        apply_doorbell(game_id, command_id, reply_to)
    except Exception:
        log.warning("doorbell lane: apply failed; handed to the Celery task", exc_info=True,
                    extra={"game_id": game_id, "command_id": command_id})
        try:
            app.send_task(APPLY_TASK, args=[game_id, command_id] + ([reply_to] if reply_to else []),
                          queue=config.queue_for(game_id), countdown=1)
        except Exception:
            log.warning("doorbell lane: hand-off failed; the sweep re-publishes the receipt", exc_info=True)
            time.sleep(0.1)

"""Doorbells rung in batches: many committed commands, one Celery task.

A Celery task costs the rules worker about half a millisecond of CPU to receive and run (the broker's
poll, the message's decoding, the pool's hand-over, the trace), as much again as settling a plain move.
When moves come faster than one at a time, each queue's doorbells wait in a Redis list of their own, and one
`railpost.drain` task takes a batch of them:

- The gateway's `ring` pushes the doorbell onto the queue's list and, only if no drain is already rung for
  that queue (a flag set with NX), pushes one drain task message onto the Celery queue: one Lua script, one
  round trip, atomic.
- The drain task's `take` clears the flag, pops up to `BATCH` doorbells, and rings another drain at once if
  doorbells remain, so the worker's other threads take them while this one settles its batch.

Nothing is trusted to the list: the receipts table stays the durable queue (`services.rules_worker.celery_app`).
A batch lost with a dying worker leaves its receipts queued, rung again by the sweep; a drain message lost
with it leaves the flag set for `FLAG_SECONDS` at most, after which the next doorbell rings again, and the
sweep rings a drain for any list that still holds doorbells."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shared.jsontext import dumps, loads

DRAIN_TASK = "railpost.drain"
BATCH = 8  # doorbells per drain task: small enough that a queue's backlog spreads over the worker's threads
FLAG_SECONDS = 5  # how long a rung drain shields its queue from ringing again, should its message be lost

# KEYS: the queue's doorbells, its "drain rung" flag, the Celery queue's list; ARGV: the doorbell, the flag's
# lifetime, the drain task's message.
_RING = """
redis.call('RPUSH', KEYS[1], ARGV[1])
if redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[2]) then
    redis.call('LPUSH', KEYS[3], ARGV[3])
    return 1
end
return 0
"""
# KEYS as above; ARGV: how many to take, the flag's lifetime, the next drain's message.
_TAKE = """
redis.call('DEL', KEYS[2])
local taken = redis.call('LPOP', KEYS[1], ARGV[1])
if redis.call('LLEN', KEYS[1]) > 0 and redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[2]) then
    redis.call('LPUSH', KEYS[3], ARGV[3])
end
return taken
"""


def bells_key(queue_name: str) -> str:
    return f"railpost:bells:{queue_name}"


def flag_key(queue_name: str) -> str:
    return f"railpost:bells-rung:{queue_name}"


class Bells:
    """One process's view of the doorbell lists, on its own Redis client (made after the fork); its second
    argument builds the Celery message of one drain task for a queue."""

    def __init__(self, client: Any, drain_message: Callable[[str], str]) -> None:
        self._client = client
        self._drain_message = drain_message
        self._ring = client.register_script(_RING)
        self._take = client.register_script(_TAKE)

    def ring(self, queue_name: str, args: list[Any]) -> bool:
        """Leave one command's doorbell (the apply task's arguments) for the queue's next drain; True when this
        call rang that drain."""
        return bool(self._ring(keys=[bells_key(queue_name), flag_key(queue_name), queue_name],
                               args=[dumps(args), FLAG_SECONDS, self._drain_message(queue_name)]))

    def take(self, queue_name: str, batch: int = BATCH) -> list[list[Any]]:
        """Up to `batch` doorbells, oldest first, each the apply task's arguments; another drain is rung if
        more are waiting."""
        taken = self._take(keys=[bells_key(queue_name), flag_key(queue_name), queue_name],
                           args=[batch, FLAG_SECONDS, self._drain_message(queue_name)])
        return [loads(raw) for raw in taken or ()]

    def waiting(self, queue_name: str) -> int:
        """How many doorbells wait in the queue's list (the sweep rings a drain for any that still hold some)."""
        return int(self._client.llen(bells_key(queue_name)))

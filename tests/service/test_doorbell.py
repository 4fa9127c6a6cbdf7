"""The drain task pushed straight onto Redis must be the very message `Celery.send_task` would write, so
the hand-built fast path (see `services.play.dispatch.doorbell_message`) breaks loudly here, not silently in
the workers, if a Celery or kombu upgrade changes the format. The end-to-end tests (test_delivery,
test_play_integration) then show real workers applying what it sends."""

from __future__ import annotations

import base64
import json
import secrets
import time
from typing import Any

import redis

from services.config import Config
from services.play.bells import DRAIN_TASK, FLAG_SECONDS, bells_key, flag_key
from services.play.dispatch import CeleryDispatcher, doorbell_receipt, make_bells
from shared.eventstore import Receipt
from shared.eventstore.records import QUEUED

VARIABLE = ("id", "root_id", "correlation_id", "delivery_tag", "origin", "reply_to")


def _shape(raw: bytes) -> dict[str, Any]:
    """The stored message with its per-message ids blanked and its body decoded."""
    message = json.loads(raw)
    headers = {k: (k in VARIABLE or v) for k, v in message["headers"].items()}
    properties = {k: (k in VARIABLE or v) for k, v in message["properties"].items() if k != "reply_to"}
    body = json.loads(base64.b64decode(message["body"]))
    assert message["headers"]["id"] == message["headers"]["root_id"] == message["properties"]["correlation_id"]
    return {**message, "headers": headers, "properties": properties, "body": body}


def test_doorbell_matches_send_task(service_config: Config) -> None:
    """Each command's doorbell waits in its queue's list, carrying the apply task's arguments, and the drain
    task rung for it is the very message `send_task` writes."""
    config = service_config.with_(celery_queue=f"railpost-bell-{secrets.token_hex(3)}", worker_shards=2)
    client = redis.Redis.from_url(config.redis_url or "")
    dispatcher = CeleryDispatcher(config)
    queue = config.queue_for(7)
    try:
        receipt = Receipt(7, "cmd-1", "ab" * 32, QUEUED, 4, 3, {"type": "pass", "entity": "B1"}, 1765000000.5)
        for given, args in (  # without and with reply_to, and with the stored receipt (and with or without reply_to)
                ((7, "cmd-1"), [7, "cmd-1"]),
                ((7, "cmd-1", "railpost:settled:q:host:1:ab"), [7, "cmd-1", "railpost:settled:q:host:1:ab"]),
                ((7, "cmd-1", "railpost:settled:q:host:1:ab", receipt),
                 [7, "cmd-1", "railpost:settled:q:host:1:ab", doorbell_receipt(receipt)]),
                ((7, "cmd-1", None, receipt), [7, "cmd-1", None, doorbell_receipt(receipt)])):
            client.delete(queue, bells_key(queue), flag_key(queue))
            dispatcher.publish(*given)  # type: ignore[arg-type]
            dispatcher._celery.send_task(DRAIN_TASK, args=[queue], queue=queue)
            stored = client.lrange(queue, 0, -1)  # newest first: send_task's, then the drain rung
            assert len(stored) == 2
            celery_message, drain = (_shape(raw) for raw in stored)
            assert drain == celery_message
            assert drain["body"][0] == [queue]
            assert drain["properties"]["delivery_info"] == {"exchange": "", "routing_key": queue}
            assert [json.loads(raw) for raw in client.lrange(bells_key(queue), 0, -1)] == [args]
    finally:
        client.delete(queue, bells_key(queue), flag_key(queue))
        dispatcher.close()


def test_one_drain_takes_many_doorbells(service_config: Config) -> None:
    """Doorbells rung while a drain is rung ring nothing more; a drain takes a batch, oldest first, and rings
    the next drain itself while doorbells remain; once the list is empty, the next doorbell rings again."""
    queue = f"railpost-bell-{secrets.token_hex(3)}"
    client = redis.Redis.from_url(service_config.redis_url or "")
    bells = make_bells(client, "test@host")
    try:
        rang = [bells.ring(queue, [game, f"cmd-{game}"]) for game in range(1, 6)]
        assert rang == [True, False, False, False, False]
        assert client.llen(queue) == 1 and bells.waiting(queue) == 5
        assert bells.take(queue, batch=3) == [[1, "cmd-1"], [2, "cmd-2"], [3, "cmd-3"]]
        assert client.llen(queue) == 2  # two left: the next drain was rung at once
        assert bells.take(queue, batch=3) == [[4, "cmd-4"], [5, "cmd-5"]]
        assert client.llen(queue) == 2 and bells.waiting(queue) == 0  # nothing left: no third drain
        assert bells.take(queue) == []  # the second drain finds nothing, and unblocks ringing
        assert bells.ring(queue, [6, "cmd-6"]) is True
        assert client.llen(queue) == 3
    finally:
        client.delete(queue, bells_key(queue), flag_key(queue))
        client.close()


def test_a_lost_drain_holds_its_queue_only_for_a_while(service_config: Config) -> None:
    """A drain message lost with its worker leaves the "rung" flag behind: it expires, and the next doorbell
    rings a drain that takes every doorbell left, the earlier ones included."""
    queue = f"railpost-bell-{secrets.token_hex(3)}"
    client = redis.Redis.from_url(service_config.redis_url or "")
    bells = make_bells(client, "test@host")
    try:
        assert bells.ring(queue, [1, "cmd-1"]) is True
        client.delete(queue)  # the drain's message is lost
        assert bells.ring(queue, [2, "cmd-2"]) is False
        assert 0 < client.ttl(flag_key(queue)) <= FLAG_SECONDS
        client.pexpire(flag_key(queue), 1)  # its lifetime runs out
        time.sleep(0.01)
        assert bells.ring(queue, [3, "cmd-3"]) is True
        assert [a[1] for a in bells.take(queue)] == ["cmd-1", "cmd-2", "cmd-3"]
    finally:
        client.delete(queue, bells_key(queue), flag_key(queue))
        client.close()


def test_non_redis_broker_goes_through_send_task(service_config: Config) -> None:
    dispatcher = CeleryDispatcher(service_config.with_(redis_url="memory://"))
    try:
        dispatcher.publish(3, "cmd-2")  # kombu's in-memory transport: no Redis client is made
        assert dispatcher._client is None
    finally:
        dispatcher.close()

"""The apply doorbell pushed straight onto Redis must be the very message `Celery.send_task` would write, so
the hand-built fast path (see `services.play.dispatch.doorbell_message`) breaks loudly here, not silently in
the workers, if a Celery or kombu upgrade changes the format. The end-to-end tests (test_delivery,
test_play_integration) then show real workers applying what it sends."""

from __future__ import annotations

import base64
import json
import secrets
from typing import Any

import redis

from services.config import Config
from services.play.dispatch import APPLY_TASK, CeleryDispatcher, doorbell_receipt
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
    config = service_config.with_(celery_queue=f"railpost-bell-{secrets.token_hex(3)}", worker_shards=2)
    client = redis.Redis.from_url(config.redis_url or "")
    dispatcher = CeleryDispatcher(config)
    try:
        queue = config.queue_for(7)
        receipt = Receipt(7, "cmd-1", "ab" * 32, QUEUED, 4, 3, {"type": "pass", "entity": "B1"}, 1765000000.5)
        for given, args in (  # without and with reply_to, and with the stored receipt (and with or without reply_to)
                ((7, "cmd-1"), [7, "cmd-1"]),
                ((7, "cmd-1", "railpost:settled:q:host:1:ab"), [7, "cmd-1", "railpost:settled:q:host:1:ab"]),
                ((7, "cmd-1", "railpost:settled:q:host:1:ab", receipt),
                 [7, "cmd-1", "railpost:settled:q:host:1:ab", doorbell_receipt(receipt)]),
                ((7, "cmd-1", None, receipt), [7, "cmd-1", None, doorbell_receipt(receipt)])):
            client.delete(queue)
            dispatcher.publish(*given)  # type: ignore[arg-type]
            dispatcher._celery.send_task(APPLY_TASK, args=args, queue=queue)
            stored = client.lrange(queue, 0, -1)  # newest first: send_task's, then the doorbell
            assert len(stored) == 2
            celery_message, doorbell = (_shape(raw) for raw in stored)
            assert doorbell == celery_message
            assert doorbell["body"][0] == args
            assert doorbell["properties"]["delivery_info"] == {"exchange": "", "routing_key": queue}
    finally:
        client.delete(config.queue_for(7))
        dispatcher.close()


def test_non_redis_broker_goes_through_send_task(service_config: Config) -> None:
    dispatcher = CeleryDispatcher(service_config.with_(redis_url="memory://"))
    try:
        dispatcher.publish(3, "cmd-2")  # kombu's in-memory transport: no Redis client is made
        assert dispatcher._client is None
    finally:
        dispatcher.close()

"""Accepting a command: store the queued receipt, and only once it has committed, publish the task."""

from __future__ import annotations

import hashlib
import time
from typing import Any

from services.metrics import ACTIONS_ACCEPTED
from services.play.dispatch import Dispatcher
from shared.eventstore import Receipt, SqlRecorder
from shared.eventstore.records import QUEUED
from shared.eventstore.sql import dumps


def body_hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(dumps(body).encode()).hexdigest()


def submit(recorder: SqlRecorder, dispatcher: Dispatcher, game_id: int, command_id: str,
           body: dict[str, Any], player_id: int | None) -> tuple[Receipt, bool]:
    receipt, created = recorder.queue_command(game_id, command_id, body_hash(body), body["expected_version"],
                                              player_id, body["action"])
    if created:
        ACTIONS_ACCEPTED.inc()
        dispatcher.publish(game_id, command_id)
    return receipt, created


def wait_for(recorder: SqlRecorder, game_id: int, command_id: str, seconds: float) -> Receipt | None:
    """Long-poll the receipt until it settles or `seconds` pass; polls fast first, since most commands
    settle within a few milliseconds."""
    deadline = time.monotonic() + seconds
    delay = 0.002
    receipt = recorder.get_receipt(game_id, command_id)
    while receipt is not None and receipt.status == QUEUED and time.monotonic() < deadline:
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 1.5, 0.05)
        receipt = recorder.get_receipt(game_id, command_id)
    return receipt

"""Accepting a command: store the queued receipt, and only once it has committed, publish the task."""

from __future__ import annotations

import dataclasses
import hashlib
import time
from typing import Any

from services.metrics import ACTIONS_ACCEPTED
from services.play.dispatch import Dispatcher
from services.play.signals import RECHECK_SECONDS, SettleSignals, Watch
from shared.eventstore import Receipt, SqlRecorder
from shared.eventstore.records import QUEUED, SETTLED_FIELDS
from shared.jsontext import canonical


def body_hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(canonical(body).encode()).hexdigest()


def submit(recorder: SqlRecorder, dispatcher: Dispatcher, game_id: int, command_id: str,
           body: dict[str, Any], player_id: int | None, reply_to: str | None = None) -> tuple[Receipt, bool]:
    receipt, created = recorder.queue_command(game_id, command_id, body_hash(body), body["expected_version"],
                                              player_id, body["action"])
    if created:
        _ring(dispatcher, receipt, reply_to)
    return receipt, created


def _ring(dispatcher: Dispatcher, receipt: Receipt, reply_to: str | None) -> None:
    """A command just queued (committed): count it and ring its game's doorbell."""
    ACTIONS_ACCEPTED.inc()
    dispatcher.publish(receipt.game_id, receipt.command_id, reply_to, receipt)


def ring_and_wait(recorder: SqlRecorder, dispatcher: Dispatcher, signals: SettleSignals | None, receipt: Receipt,
                  seconds: float) -> Receipt:
    """For a command the caller has just queued itself (`SqlRecorder.queue_as_seat`): ring the doorbell and
    wait up to `seconds` for the outcome, as `submit_and_wait` does. The watch is registered before the
    doorbell rings, so the doorbell's own settle cannot slip by; only a settle by another command's task in
    the moment between the commit and the watch could, and the wait re-reads the receipt within
    RECHECK_SECONDS."""
    if signals is None or not seconds:
        _ring(dispatcher, receipt, None)
        return (wait_for(recorder, receipt.game_id, receipt.command_id, seconds) if seconds else None) or receipt
    deadline = time.monotonic() + seconds
    with signals.watch(receipt.game_id, receipt.command_id) as watch:
        _ring(dispatcher, receipt, signals.reply_channel())
        return _await(recorder, receipt.game_id, receipt.command_id, deadline, watch, receipt) or receipt


def submit_and_wait(recorder: SqlRecorder, dispatcher: Dispatcher, signals: SettleSignals | None, game_id: int,
                    command_id: str, body: dict[str, Any], player_id: int | None,
                    seconds: float) -> tuple[Receipt, bool]:
    """`submit`, then wait up to `seconds` for the outcome. The settle watch is registered before the command
    is queued, so its announcement cannot slip by and a new command needs no re-read before the wait; the
    doorbell names this process's reply channel, so the outcome is announced to this process alone."""
    if signals is None or not seconds:
        receipt, created = submit(recorder, dispatcher, game_id, command_id, body, player_id)
        if seconds and receipt.status == QUEUED:
            receipt = wait_for(recorder, game_id, command_id, seconds) or receipt
        return receipt, created
    deadline = time.monotonic() + seconds
    with signals.watch(game_id, command_id) as watch:
        receipt, created = submit(recorder, dispatcher, game_id, command_id, body, player_id,
                                  signals.reply_channel())
        if receipt.status == QUEUED:
            receipt = _await(recorder, game_id, command_id, deadline, watch, receipt if created else None) \
                or receipt
    return receipt, created


def wait_for(recorder: SqlRecorder, game_id: int, command_id: str, seconds: float,
             signals: SettleSignals | None = None) -> Receipt | None:
    """Long-poll the receipt until it settles or `seconds` pass. With `signals` the wait wakes when the
    applier announces the command (re-reading the store at least every RECHECK_SECONDS); without, it polls
    the store, fast first, since most commands settle within a few milliseconds."""
    deadline = time.monotonic() + seconds
    if signals is not None:
        with signals.watch(game_id, command_id) as watch:
            return _await(recorder, game_id, command_id, deadline, watch, None)
    delay = 0.002
    receipt = recorder.get_receipt(game_id, command_id)
    while receipt is not None and receipt.status == QUEUED and time.monotonic() < deadline:
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 1.5, 0.05)
        receipt = recorder.get_receipt(game_id, command_id)
    return receipt


def _await(recorder: SqlRecorder, game_id: int, command_id: str, deadline: float, watch: Watch,
           receipt: Receipt | None) -> Receipt | None:
    """Wait on a registered watch; `receipt` is a queued receipt known to be current (None: read it first).
    An announced outcome completes the receipt without another read."""
    if receipt is None:
        receipt = recorder.get_receipt(game_id, command_id)
    while receipt is not None and receipt.status == QUEUED:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if watch.wait(min(left, RECHECK_SECONDS)) and watch.outcome is not None:
            fields = {k: v for k, v in watch.outcome.items() if k in SETTLED_FIELDS}
            return dataclasses.replace(receipt, **fields)
        receipt = recorder.get_receipt(game_id, command_id)
    return receipt

"""Accepting a command: store the queued receipt, and only once it has committed, publish the task."""

from __future__ import annotations

import dataclasses
import hashlib
import time
from typing import Any

from services.metrics import ACTIONS_ACCEPTED
from services.play.dispatch import Dispatcher
from services.play.signals import RECHECK_SECONDS, REJECTED, SettleSignals, Watch
from shared.eventstore import Conflict, NotFound, Receipt, SqlRecorder
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
    if dispatcher.carries_commands:
        return send_and_wait(recorder, dispatcher, signals, game_id, command_id, body, player_id, seconds)
    deadline = time.monotonic() + seconds
    with signals.watch(game_id, command_id) as watch:
        receipt, created = submit(recorder, dispatcher, game_id, command_id, body, player_id,
                                  signals.reply_channel())
        if receipt.status == QUEUED:
            receipt = _await(recorder, game_id, command_id, deadline, watch, receipt if created else None) \
                or receipt
    return receipt, created


def send_and_wait(recorder: SqlRecorder, dispatcher: Dispatcher, signals: SettleSignals, game_id: int,
                  command_id: str, body: dict[str, Any], player_id: int | None,
                  seconds: float) -> tuple[Receipt, bool]:
    """`submit_and_wait` for a caller that waits, without storing first: the doorbell carries the whole
    command, and the rules worker stores it with its outcome in the one write that settles it
    (shared/eventstore/guarded.py), so a move costs one transaction, not two. The answer is the announced
    outcome, which is sent only after that commit; a retry, and whatever the store would have refused at once
    (`REJECTED`: a key used with another body, a stale version, a game not active), come back the same way.
    If no word comes in `seconds`, the command is stored queued before the answer, as without waiting (or
    what the worker stored meanwhile is read), so an answer never names a command the store does not hold."""
    deadline = time.monotonic() + seconds
    receipt = Receipt(game_id, command_id, body_hash(body), QUEUED, body["expected_version"], player_id,
                      body["action"], time.time())
    with signals.watch(game_id, command_id) as watch:
        ACTIONS_ACCEPTED.inc()
        dispatcher.publish(game_id, command_id, signals.reply_channel(), receipt, stored=False)
        while (left := deadline - time.monotonic()) > 0:
            if watch.wait(min(left, RECHECK_SECONDS)) and watch.outcome is not None:
                return _heard(receipt, watch.outcome), True
            found = recorder.get_receipt(game_id, command_id)  # an announcement lost: the store says
            if found is not None and found.status != QUEUED:
                return SqlRecorder.same_body(found, receipt.body_hash), False
    return submit(recorder, dispatcher, game_id, command_id, body, player_id)


def _heard(receipt: Receipt, outcome: dict[str, Any]) -> Receipt:
    """The receipt as an announcement settled it, or the refusal the store would have raised at once."""
    if outcome.get("status") == REJECTED:
        if outcome.get("rule") == "not_found":
            raise NotFound(str(outcome.get("reason")))
        raise Conflict(str(outcome.get("reason")), str(outcome.get("rule")))
    return dataclasses.replace(receipt, **{k: v for k, v in outcome.items() if k in SETTLED_FIELDS})


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

"""Applying queued commands: the one place where the engine's verdict becomes stored events.

Each command is settled in its own transaction (`settle_transaction`): read the oldest queued receipt,
check version and control, let the engine validate, then store event, receipt outcome, read model,
snapshot and outbox rows together. A second delivery finds nothing queued and does nothing, which is what
makes at-least-once delivery exactly-once in effect. On PostgreSQL the transaction locks nothing while the
engine decides: its write is refused if another applier settled a command of the game since the read
(`shared/eventstore/guarded.py`), and the loop reads again.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from services.config import Config
from services.metrics import ACCEPT_TO_COMMIT, ACTIONS_APPLIED, ACTIONS_REFUSED, APPLY_SECONDS, QUEUE_LATENCY
from services.play import undo_policy
from services.play.sessions import SessionCache
from services.play.signals import REJECTED, SettleSignals
from services.play.timekeeping import Table
from shared.engine import EngineError, GameSession, MalformedAction
from shared.eventstore import ACTION_APPLIED, CURRENT_VERSIONS, NewEvent, SqlRecorder
from shared.eventstore.errors import Conflict, NotFound
from shared.eventstore.gametx import GameTx
from shared.eventstore.outbox import ActionRefused, GameFinished, MessagePosted, TurnChanged
from shared.eventstore.records import (
    ACTIVE,
    APPLIED,
    FINISHED,
    QUEUED,
    REFUSED,
    SETTLED_FIELDS,
    Game,
    Receipt,
    seat_of_command,
)
from shared.eventstore.rows import TABLE_LOG

log = logging.getLogger("railpost.apply")
META_TYPES = frozenset({"undo", "redo", "message"})
MAX_CONFLICTS = 20  # each one is another writer's progress; past this, the task fails and Celery retries it


@dataclass(frozen=True)
class Refusal:
    reason: str
    rule: str
    http_status: int
    valid: Any = None  # the values the engine would have accepted, where it names them


@dataclass(frozen=True)
class Known:
    """A doorbell's command: its receipt, its action's text as stored, and whether anyone stored it (no: the
    gateway waited for the outcome and left the storing to the settle, `services/play/commands.py`)."""

    receipt: Receipt
    text: str
    stored: bool = True


@dataclass(frozen=True)
class StandIn:
    """The seat moves for `absent`, as the table chose (a `substitute` vote): in the absent seat's name, the
    record naming who moved (`user`)."""

    absent: int


def table_of(tx: GameTx) -> Table:
    """The game's table (its table log), read on the game transaction's own connection (no second pool).
    The table log has its own concurrency rule (services/play/table_log.py), so the game row's lock never
    covered it."""
    return Table.replay([json.loads(row["data"]) for row in tx.read(TABLE_LOG, (tx.game.id,))])


def stand_in_of(tx: GameTx) -> tuple[int, int] | None:
    """(absent seat, the seat the table chose to move for it this turn)."""
    return table_of(tx).stand_in


def held_to_the_table(tx: GameTx, session: GameSession, receipt: Receipt) -> Refusal | None:
    """A seat's own command is held once more, as it settles, to the table's rules the door applied
    (services/play/moves.py): an undo or redo into other players' moves needs their consent, and so does a
    move that takes from another player or ends the game where the table chose so. Commands the table
    decided (an accepted request or proposal, a decline) and the operator's are not seat commands."""
    player = seat_of_command(receipt.command_id)
    if player is None:
        return None
    action = receipt.action
    kind = action.get("type")
    if kind in ("undo", "redo"):
        table = table_of(tx)
        if not table.undo_consent:
            return None
        try:
            moves = undo_policy.touched(session, kind, undo_policy.target_of(action),
                                        undo_policy.senders_from(tx.read_events))
        except undo_policy.UndoTargetError as exc:
            return Refusal(str(exc), "undo_target", 422)
        others = undo_policy.others(moves, player)
        if others:
            return Refusal(f"this {kind} touches moves of player(s) {', '.join(map(str, others))}: ask them with "
                           f"an undo request", "undo_needs_consent", 409)
        return None
    consent, affected = session.consenters(action)
    if consent is None or not affected or not table_of(tx).needs(consent):
        return None
    return Refusal(f"this move needs the agreement of player(s) {', '.join(map(str, affected))}: it is "
                   "proposed to them, not played", "needs_consent", 409)


def apply_pending(recorder: SqlRecorder, sessions: SessionCache, config: Config, game_id: int,
                  signals: SettleSignals | None = None,
                  reply: tuple[str, str | None] = ("", None), known: Known | None = None) -> int:
    """Settle every queued command of one game, oldest expected version first. Returns how many settled.

    Each settled command is announced on `signals` after its commit, waking the gateway's long-poll (the
    command named in `reply` on that reply channel, any other on the shared one). The
    loop stops as soon as the last transaction saw no other queued command: one queued after that read has
    its own task published after its commit, so no extra empty transaction is needed per task.

    `known` is the queued receipt as the doorbell carried it (with its action's stored text): for a game
    whose session and head this process holds, the command is settled without reading the game first, and
    the store refuses the write unless all of it is still so (`SqlRecorder.settle_known`); the loop then
    reads as usual. The doorbell's receipt is settled alone: any other queued command has its own.

    A command nobody stored (`known.stored` False) is inserted settled by that write; where it cannot be (this
    process does not hold the game, or the write found the game or its queue otherwise), it is stored queued
    first, as the gateway would have (`_store`), and the loop reads."""
    settled = 0
    more = True
    conflicts = 0
    if known is not None and not known.stored and (not recorder.settles_unstored or sessions.head(game_id) is None):
        if not _store(recorder, signals, known.receipt, reply[1]):
            return 0
        known = None
    while more:
        started = time.perf_counter()
        hint, known = known, None  # at most once: after a lost race the loop reads
        try:
            with sessions.hold(game_id), _settling(recorder, sessions, game_id, hint) as tx:
                receipt = tx.next_queued()
                if receipt is None:
                    sessions.remember(tx.head)
                    return settled
                more = tx.more_queued
                QUEUE_LATENCY.observe(max(0.0, time.time() - receipt.created_at))
                outcome = _settle(tx, receipt, sessions, config)
                if config.test_sleep_before_commit:
                    time.sleep(config.test_sleep_before_commit)
        except Conflict as exc:
            # another applier (another host's worker, a re-published doorbell) settled a command of this
            # game after it was read: nothing was stored, this session is ahead of the store; read again
            sessions.forget(game_id)
            conflicts += 1
            if exc.code != "game_changed" or conflicts > MAX_CONFLICTS:
                raise
            log.info("settled elsewhere first; reading again", extra={"game_id": game_id})
            more = True  # the command may still be queued (the game moved on under it, or it was misstated)
            if hint is not None and not hint.stored and not _store(recorder, signals, hint.receipt, reply[1]):
                return settled
            continue
        except BaseException:
            sessions.forget(game_id)
            raise
        sessions.remember(tx.head)
        if signals is not None:
            signals.announce(game_id, [{"command_id": c, **fields} for c, fields in tx.settled.items()],
                             reply[1] if receipt.command_id == reply[0] else None)
        elapsed = time.perf_counter() - started
        APPLY_SECONDS.observe(elapsed)
        settled += 1
        if isinstance(outcome, Refusal):
            ACTIONS_REFUSED.labels("worker", outcome.rule).inc()
            log.info("refused", extra={"game_id": game_id, "command_id": receipt.command_id,
                                       "rule": outcome.rule, "reason": outcome.reason})
        else:
            ACTIONS_APPLIED.inc()
            ACCEPT_TO_COMMIT.observe(max(0.0, time.time() - receipt.created_at))
            log.info("applied", extra={"game_id": game_id, "command_id": receipt.command_id, "version": outcome,
                                       "apply_ms": round(elapsed * 1000, 2)})
    return settled


def _settling(recorder: SqlRecorder, sessions: SessionCache, game_id: int,
              known: Known | None) -> AbstractContextManager[GameTx]:
    """The settle transaction: without its read when the doorbell carried the receipt and this process
    remembers the game's head (called under the game's session lock, so the head is this process's latest)."""
    head = sessions.head(game_id) if known is not None else None
    if head is None or known is None:
        if known is not None and not known.stored:  # the head went between the check and the lock
            raise Conflict(f"game {game_id} is not held here", "game_changed")
        return recorder.settle_transaction(game_id)
    return recorder.settle_known(head, known.receipt, known.text, known.stored)


def _store(recorder: SqlRecorder, signals: SettleSignals | None, receipt: Receipt, reply_to: str | None) -> bool:
    """Store a command nobody stored, queued, as the gateway stores one it does not wait for; True when it is
    queued now and the caller's loop settles it. Else its waiter is told here: a retry of a command already
    settled gets that outcome, and what the gateway would have refused at once (a key used with another
    body, a stale version, a game not active or not found) comes as a `REJECTED` outcome it raises."""
    try:
        stored, _created = recorder.queue_command(receipt.game_id, receipt.command_id, receipt.body_hash,
                                                  receipt.expected_version, receipt.player_id, receipt.action)
    except (Conflict, NotFound) as exc:
        outcome = {"status": REJECTED, "rule": exc.code if isinstance(exc, Conflict) else "not_found",
                   "reason": str(exc), "http_status": None}
        if signals is not None:
            signals.announce(receipt.game_id, [{"command_id": receipt.command_id, **outcome}], reply_to)
        return False
    if stored.status == QUEUED:
        return True
    if signals is not None:
        signals.announce(receipt.game_id, [{"command_id": receipt.command_id,
                                            **{k: getattr(stored, k) for k in SETTLED_FIELDS}}], reply_to)
    return False


def _settle(tx: GameTx, receipt: Receipt, sessions: SessionCache, config: Config) -> int | Refusal:
    game = tx.game
    if game.status != ACTIVE:
        return _refuse(tx, receipt, Refusal(f"game {game.id} is {game.status}", "not_active", 409))
    if receipt.expected_version != game.version:
        return _refuse(tx, receipt, Refusal(
            f"expected version {receipt.expected_version} but game {game.id} is at version {game.version}",
            "stale_version", 409))
    with sessions.use(game) as session:
        verdict = authorise(session, receipt, lambda: stand_in_of(tx))
        if isinstance(verdict, Refusal):
            return _refuse(tx, receipt, verdict)
        held = held_to_the_table(tx, session, receipt)
        if held is not None:
            return _refuse(tx, receipt, held)
        action, sender = receipt.action, receipt.player_id
        if isinstance(verdict, StandIn):
            # the table's substitute moves for the absent seat: sent in the seat's name, the record names who
            action, sender = {**action, "user": receipt.player_id}, None
        if action.get("type") in META_TYPES and receipt.player_id is not None and "user" not in action:
            action = {**action, "user": receipt.player_id}  # the record names who clicked undo or chatted
        before = turn_of(tx.game, session)  # whose turn it was: the stored read model is not read
        try:
            stored = session.submit(action)
        except EngineError as err:
            status = 400 if isinstance(err, MalformedAction) else 422
            return _refuse(tx, receipt, Refusal(err.message, err.rule, status, err.valid))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError, RecursionError):
            # an action shaped in a way the engine's checks did not foresee: refuse it rather than leave it
            # queued to crash every later delivery (a poison command blocks the game's queue); the session
            # may be half-changed, so it is dropped and rebuilt from the store
            log.exception("engine failed on an action; refused", extra={"game_id": game.id})
            sessions.forget(game.id)
            return _refuse(tx, receipt, Refusal("the action is malformed: the engine could not read it",
                                                "malformed_action", 400))
        version = session.version
        data: dict[str, Any] = {"action": stored, "player_id": sender}
        if isinstance(verdict, StandIn):  # the record names both: who moved (`user`) and for whom
            data["for_player"] = verdict.absent
        tx.append(version, NewEvent(ACTION_APPLIED, data, CURRENT_VERSIONS[ACTION_APPLIED], receipt.command_id))
        state = read_model(session, stored)
        result = session.result if session.finished else None
        tx.update_game(version=version, state=state, status=FINISHED if session.finished else None, result=result)
        tx.settle(receipt, APPLIED, new_version=version, http_status=200)
        _announce(tx, session, stored, receipt, state, version, before)
        if version % config.snapshot_every == 0:
            tx.save_snapshot(version, session.snapshot())
    return version


# what the stored read model adds to the engine's digest (a recorded game's golden trace has neither)
READ_MODEL_EXTRAS = ("acting_players", "holders")


def read_model(session: GameSession, action: dict[str, Any] | None = None) -> dict[str, Any]:
    """The engine digest plus the acting player ids and who holds each private and train a purchase could take
    (`GameSession.holders`: the door tells a purchase from the bank or the depot by it), stored with each
    event so reads need no engine."""
    return {**session.digest(action), "acting_players": list(session.acting_players()),
            "holders": session.holders()}


def authorise(session: GameSession, receipt: Receipt,
              stand_in: Callable[[], tuple[int, int] | None] | None = None) -> Refusal | StandIn | None:
    """The seat check, the only one (the gateway, the page and mail all queue commands and read the refusal
    from the receipt, 403): a seat acts only for entities its player controls, and always in its own name
    (`user`); undo, redo and chat concern the table, so any seat may send them. The one exception: the seat
    the table chose to stand in for an absent one (`substitute` vote) acts for the entities the absent seat
    controls while it still holds the turn (StandIn). The table log that says so is read only for a seat
    that does not control the entity, so an ordinary move costs no read for it."""
    player = receipt.player_id
    if player is None:  # operator (admin token)
        return None
    action = receipt.action
    user = action.get("user", player)
    if user != player:
        return Refusal(f"player {player} cannot act as user {user}", "not_your_entity", 403)
    if action.get("type") in META_TYPES:
        return None
    try:
        controller = session.controller(action.get("entity"), action.get("entity_type"))
    except EngineError as err:
        return Refusal(err.message, err.rule, 400)
    if controller != player:
        chosen = stand_in() if stand_in is not None and controller is not None else None
        if (chosen is not None and chosen == (controller, player)
                and controller in [int(p) for p in session.acting_players()]):
            return StandIn(controller)
        return Refusal(f"player {player} does not control {action.get('entity')!r}", "not_your_entity", 403)
    return None


def _refuse(tx: GameTx, receipt: Receipt, refusal: Refusal) -> Refusal:
    tx.settle(receipt, REFUSED, reason=refusal.reason, rule=refusal.rule, http_status=refusal.http_status,
              valid=refusal.valid)
    tx.emit(ActionRefused(receipt.game_id, tx.game.title, receipt.player_id, receipt.command_id, refusal.reason,
                          refusal.rule), tx.game.version)
    return refusal


def turn_of(game: Game, session: GameSession) -> TurnChanged:
    """`TurnChanged.of_state(read_model(session))` without the digest."""
    return TurnChanged.of_state(game.id, game.title,
                                {**session.turn_fields(), "acting_players": session.acting_players()})


def _announce(tx: GameTx, session: GameSession, stored: dict[str, Any], receipt: Receipt,
              state: dict[str, Any], version: int, before: TurnChanged) -> None:
    game = tx.game
    if stored.get("type") == "message":
        text = str(stored.get("message", ""))
        tx.emit(MessagePosted(game.id, game.title, receipt.player_id, text,
                              tuple(mentioned(text, session.players))), version)
    if session.finished:
        tx.emit(GameFinished(game.id, game.title, session.result), version)
        return
    turn = TurnChanged.of_state(game.id, game.title, state)
    if turn != before or stored.get("type") in ("undo", "redo"):
        tx.emit(turn, version)


def mentioned(text: str, players: list[dict[str, Any]]) -> list[int]:
    """Player ids named in a chat line as `@Name` (case-insensitive) or `@id`."""
    words = {w.lower() for w in re.findall(r"@([\w.\-]+)", text)}
    return [p["id"] for p in players
            if str(p["id"]) in words or str(p.get("name", "")).lower().replace(" ", "") in words]

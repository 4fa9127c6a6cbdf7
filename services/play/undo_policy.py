"""Undo with consent (docs/time-controls.md, "Undo and redo"): whose moves an undo or redo touches.

The rule: a player may take back his own moves while nobody else has moved since; an undo (or redo) that
would take back (or bring back) another player's move is a request those players answer. A move belongs to
the seat that sent it, as the store recorded it (`player_id` of its event), not to whoever controls the
moved entity now: a share sale can change a president. A move sent by the operator or the clock on nobody's
behalf belongs to the entity's controller. Standing orders that fired inside a move are that order's
owner's moves too, so undoing a move that set off someone else's standing order needs their consent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from services.play.sessions import SessionCache
from services.play.table_log import TableLog
from shared.engine import GameSession
from shared.eventstore import ACTION_APPLIED, SqlRecorder
from shared.eventstore.records import ACTIVE, Game, StoredEvent

META = frozenset({"undo", "redo", "message"})


class UndoTargetError(ValueError):
    """The undo names an action the game does not have."""


Senders = Callable[[Sequence[int]], Mapping[int, "int | None"]]  # game versions -> who sent each


def senders(recorder: SqlRecorder, game_id: int) -> Senders:
    """`senders_from` the store's own reads of the game's events."""
    return senders_from(lambda after, limit: recorder.read_events(game_id, after_version=after, limit=limit))


def senders_from(read_events: Callable[[int, int], Sequence[StoredEvent]]) -> Senders:
    """Game version -> the seat that sent the action stored at that version (None: the operator), read for
    the versions asked only (`read_events(after_version, limit)`: the store's, or a settling transaction's):
    an undo touches the last move or a few, and reading (and decoding) the game's whole log for them cost a
    long game's every undo hundreds of events."""
    def read(versions: Sequence[int]) -> Mapping[int, int | None]:
        if not versions:
            return {}
        low, high = min(versions), max(versions)
        return {e.version: e.data.get("player_id") for e in read_events(low - 1, high - low + 1)
                if e.type == ACTION_APPLIED}
    return read


def _movers_of(session: GameSession, index: int, sent_by: Mapping[int, int | None]) -> list[int]:
    action = session.entries[index].action
    sender = sent_by.get(index + 1)
    out: list[int] = []
    first = sender if sender is not None else session.controller(action.get("entity"))
    if isinstance(first, int):
        out.append(first)
    for auto in action.get("auto_actions") or []:
        owner = session.controller(auto.get("entity"))
        if isinstance(owner, int):
            out.append(owner)
    return out


def touched(session: GameSession, kind: str, target: int | None, sent_by: Senders) -> list[int]:
    """The seats whose moves the undo (to just after action `target`; None: the last move; 0: all) or the
    redo (of the newest undo) would take back or bring back, in the order of those moves."""
    entries = session.entries
    active = [i for i, e in enumerate(entries) if e.active and e.action["type"] not in META]
    if kind == "redo":
        chosen = list(session.redo_stack[-1]) if session.redo_stack else []
    elif target is None:
        chosen = active[-1:]
    elif target == 0:
        chosen = active
    else:
        pos = next((i for i, e in enumerate(entries) if e.action.get("id") == target), None)
        if pos is None:
            raise UndoTargetError(f"action {target} is not in this game")
        chosen = [i for i in active if i > pos]
    sent = sent_by([i + 1 for i in chosen])
    return [p for i in chosen for p in _movers_of(session, i, sent)]


def others(moves: list[int], requester: int) -> list[int]:
    """The seats besides the requester whose moves are touched: empty means the undo is free."""
    return sorted({p for p in moves if p != requester})


def target_of(action: Mapping[str, Any]) -> int | None:
    target = action.get("action_id")
    return target if isinstance(target, int) and not isinstance(target, bool) else None


class UndoRefused(Exception):
    """An undo or redo a seat may not play by itself: `rule` and `status` say why, `affected` whose consent."""

    def __init__(self, status: int, rule: str, message: str, affected: list[int] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.rule = rule
        self.affected = affected or []


def check(recorder: SqlRecorder, sessions: SessionCache, log: TableLog, game: Game, player_id: int,
          action: Mapping[str, Any], expected_version: int) -> None:
    """The undo rule for a seat's own `undo`/`redo` action (REST or mail): played only if it touches no one
    else's moves, or the game chose free undo; otherwise UndoRefused(409) pointing at the request. Checked
    against the version the action expects, which must be the current one, so the check and the apply see
    the same game. Raises before anything is queued, so a refusal stores nothing."""
    from services.play.timekeeping import Table

    if action.get("type") not in ("undo", "redo") or game.status != ACTIVE:
        return  # other actions, and games not being played (the store refuses those), are not its business
    if not Table.replay(log.read(game.id)).undo_consent:
        return
    if expected_version != game.version:
        raise UndoRefused(409, "stale_version", f"expected version {expected_version} but game {game.id} is at "
                          f"version {game.version}: an undo is checked against the current game")
    kind = str(action["type"])
    with sessions.use(game) as session:
        try:
            moves = touched(session, kind, target_of(action), senders(recorder, game.id))
        except UndoTargetError as exc:
            raise UndoRefused(422, "undo_target", str(exc)) from None
    affected = others(moves, player_id)
    if affected:
        raise UndoRefused(409, "undo_needs_consent",
                          f"this {kind} touches moves of player(s) {', '.join(map(str, affected))}: ask them "
                          f"with POST /games/{game.id}/undo-requests", affected)

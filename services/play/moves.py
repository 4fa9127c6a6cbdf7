"""The one door a move comes in by. REST (`POST /games/{id}/actions`), the game page (a REST client) and mail
replies are thin adapters over `MoveDoor.accept`: the caller's own key is scoped to the caller, the move is
read once into a `Move`, the table's rules are applied (an undo into others' moves needs their consent; a
move that takes from another player, or ends the game, is put to the players it touches as a proposal; a
player answering another's proposal may decline it), and only then is the command queued and waited for.

Whether the seat may move the entity at all is asked when the command settles (`apply.authorise`), where
the game is at hand; the undo rule and the table's consent are checked again there, so a command that came
in by any other way is held to the same rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any

from services.play import undo_policy
from services.play.commands import body_hash, ring_and_wait, submit_and_wait
from services.play.dispatch import Dispatcher
from services.play.pending import Ask, Pending, Refused
from services.play.sessions import SessionCache
from services.play.signals import SettleSignals
from services.play.table_log import TableLog
from services.play.timekeeping import Table
from shared.eventstore import Receipt, SqlRecorder
from shared.eventstore.records import ACTIVE, Game, Seat, seat_command_id, table_command_id

UNDO_TYPES = frozenset({"undo", "redo"})
DECLINE = "decline"  # the table's move: a player asked by another's move declines it (it is taken back)
# moves that may reach into another player's game (`GameSession.consenters`): never queued unread
MAY_NEED_CONSENT = frozenset({"end_game", "buy_company", "buy_train"})
NOTES = frozenset({"needs_consent", "proposed_by"})  # what legal-actions states beside a move, not the move


@dataclass(frozen=True)
class Move:
    """A move as the door read it, frozen: its type, entity and every other field; `as_action` gives back the
    18xx.games action the store keeps and the engine judges (a malformed one is refused there, with the
    engine's reason, like any illegal move)."""

    type: str | None
    entity: Any
    fields: Mapping[str, Any]

    @classmethod
    def read(cls, action: Mapping[str, Any]) -> Move:
        kind = action.get("type")
        rest = {k: v for k, v in action.items() if k not in ("type", "entity") and k not in NOTES}
        return cls(kind if isinstance(kind, str) else None, action.get("entity"), MappingProxyType(rest))

    def as_action(self) -> dict[str, Any]:
        out: dict[str, Any] = {} if self.type is None else {"type": self.type}
        if self.entity is not None:
            out["entity"] = self.entity
        out.update(self.fields)
        return out

    @property
    def ruled(self) -> bool:
        """Whether the table's rules may touch this move (an undo, a decline, a move that may need consent)."""
        return self.type in UNDO_TYPES or self.type in MAY_NEED_CONSENT or self.type == DECLINE


@dataclass(frozen=True)
class Caller:
    """Who moves: a seat's player, or the operator (`player_id` None)."""

    player_id: int | None

    def command_id(self, key: str) -> str:
        """The stored command id: the caller's own key inside the caller's namespace, so one caller's key
        never answers another caller's receipt."""
        return f"admin:{key}" if self.player_id is None else seat_command_id(self.player_id, key)


@dataclass(frozen=True)
class Accepted:
    """What the door did with a move: queued (its `receipt`, and whether this call `created` it), or put to
    the table (`proposal`: the question asked, the move played once every player asked accepts)."""

    receipt: Receipt | None = None
    created: bool = False
    proposal: Ask | None = None


def _may_take_from_another(game: Game, player: int, move: Move) -> bool:
    """Whether a purchase may take from another player's holding, by the read model stored at the game's
    version (`holders`: each private and train a player holds, directly or through a corporation he presides).
    No: nobody holds it (a private from the bank, a train from the depot), or `player` does (then the engine
    answers no one, as it does when the mover holds it, or `player` is not the mover). Yes when the read model
    cannot tell (one stored before it named holders): the engine is asked then."""
    held = (game.state or {}).get("holders")
    key = move.fields.get("company" if move.type == "buy_company" else "train")
    if not isinstance(held, dict) or not isinstance(key, str):
        return True
    holder = held.get("companies" if move.type == "buy_company" else "trains", {}).get(key)
    return holder is not None and holder != player


def client_key(command_id: str) -> str:
    """The caller's own key back from a stored command id (older rows have no namespace)."""
    scope, sep, key = command_id.partition(":")
    return key if sep and (scope == "admin" or (scope[:1] == "p" and scope[1:].isdigit())) else command_id


@dataclass
class MoveDoor:
    recorder: SqlRecorder
    dispatcher: Dispatcher
    signals: SettleSignals | None
    sessions: SessionCache
    log: Callable[[], TableLog]
    now: Callable[[], datetime]
    carry_out: Callable[[int], object] | None = None  # the table's decision carried out at once (Pending)

    def pending(self) -> Pending:
        return Pending(self.recorder, self.sessions, self.log(), self.carry_out)

    # -- the door ----------------------------------------------------------------------------------------

    def accept(self, game_id: int, caller: Caller, key: str, action: Mapping[str, Any], expected_version: int,
               wait: float) -> Accepted:
        """Take a caller's move: an undo or redo under the consent rule that touches others' moves is refused
        (409: ask with an undo request); a move that needs the table's word becomes a proposal; a decline
        takes the proposer's move back; anything else, and any retry, is queued (the queue answers a retry
        with its first receipt) and waited for up to `wait` seconds. Refusals raise `Refused`, and
        nothing is stored then. A plain move costs no read here: the queue and the settle check the rest."""
        command_id = caller.command_id(key)
        move = Move.read(action)
        if caller.player_id is not None and move.ruled:
            # a retry is answered by the queue; a decline is stored under the table's id (`_decline` asks).
            # One read for all three (`door_reads`): the retry, the game's head, the table log a proposal asks
            game, table_log = self.recorder.door_reads(game_id, "" if move.type == DECLINE else command_id,
                                                      move.type in MAY_NEED_CONSENT)
            if game is not None and game.status == ACTIVE:
                if move.type == DECLINE:
                    return self._decline(game, caller.player_id, key, expected_version, wait)
                if move.type in UNDO_TYPES:
                    self._undo_rule(game, caller.player_id, move, expected_version)
                else:
                    ask = self._propose_if_needed(game, caller.player_id, move, expected_version, table_log)
                    if ask is not None:
                        return Accepted(proposal=ask)
        return self._queue(game_id, command_id, caller, move.as_action(), expected_version, wait)

    def accept_as_seat(self, game_id: int, token_hash: str, key: str, action: Mapping[str, Any],
                       expected_version: int, wait: float) -> tuple[Seat | None, Accepted | None]:
        """A seat's plain move queued in the same statement as its token's lookup (`queue_as_seat`: a
        play-by-mail move comes further apart than a token is remembered). Only a move the table's rules
        cannot touch (no undo, redo, decline, nor a move that may need consent) takes it; (seat, None) when
        this path does not apply, and the caller goes through `accept`."""
        if action.get("type") in UNDO_TYPES | MAY_NEED_CONSENT | {DECLINE}:
            return None, None
        body = {"action": dict(action), "expected_version": expected_version}
        seat, receipt = self.recorder.queue_as_seat(game_id, token_hash, key, body_hash(body), expected_version,
                                                    dict(action))
        if receipt is None:
            return seat, None
        return seat, Accepted(ring_and_wait(self.recorder, self.dispatcher, self.signals, receipt, wait), True)

    # -- what the table's rules add ------------------------------------------------------------------------

    def _undo_rule(self, game: Game, player: int, move: Move, expected_version: int) -> None:
        try:
            undo_policy.check(self.recorder, self.sessions, self.log(), game, player, move.as_action(),
                              expected_version)
        except undo_policy.UndoRefused as exc:
            details: dict[str, Any] | None = {"affected": exc.affected} if exc.affected else None
            if exc.rule == "undo_target":
                details = {"action_id": [str(exc)]}
            raise Refused(exc.status, exc.rule, str(exc), details=details) from None

    def _propose_if_needed(self, game: Game, player: int, move: Move, expected_version: int,
                           table_log: list[dict[str, Any]]) -> Ask | None:
        """The move as a proposal to the players it touches, when this table's rules (its `table_log`) ask
        them; None when it is the mover's alone (or refused by the engine anyway: it is queued and refused
        with its reason)."""
        table = Table.replay(table_log)
        if not (table.needs("end_game") if move.type == "end_game" else table.needs("purchase")):
            return None
        if move.type != "end_game" and not _may_take_from_another(game, player, move):
            return None  # from the bank, the depot or the mover's own hands: no one else's word, no engine
        action = move.as_action()
        with self.sessions.use(game) as session:
            kind, affected = session.consenters(action)
            if not table.needs(kind) or session.controller(move.entity) != player:
                return None
            if kind == "purchase" and not session.game.accepts(action):
                return None  # an illegal purchase is refused as any move is, not put to anyone
        if expected_version != game.version:
            raise Refused(409, "stale_version", f"expected version {expected_version} but game {game.id} is at "
                          f"version {game.version}")
        assert kind is not None
        return self.pending().propose(game, player, kind, action, affected, self.now())

    def _decline(self, game: Game, player: int, key: str, expected_version: int, wait: float) -> Accepted:
        """A player asked by another's move (an 1828 merger started with his corporation) declines it: the
        table takes that move back, in the decliner's name, as a table decision (no consent asked)."""
        command_id = table_command_id(game.id, f"decline-p{player}:{key}")
        undo = {"type": "undo", "entity": player, "entity_type": "player", "user": player}
        if self.recorder.get_receipt(game.id, command_id) is not None:  # a retry: its first receipt
            return self._queue(game.id, command_id, Caller(player), undo, expected_version, wait)
        with self.sessions.use(game) as session:
            proposer = session.proposed_by(player)
        if proposer is None:
            raise Refused(422, "nothing_to_decline", "no other player's move waits for your answer now",
                          "action.type")
        if expected_version != game.version:
            raise Refused(409, "stale_version", f"expected version {expected_version} but game {game.id} is at "
                          f"version {game.version}")
        return self._queue(game.id, command_id, Caller(player), undo, expected_version, wait)

    def _queue(self, game_id: int, command_id: str, caller: Caller, action: dict[str, Any], expected_version: int,
               wait: float) -> Accepted:
        body = {"action": action, "expected_version": expected_version}
        receipt, created = submit_and_wait(self.recorder, self.dispatcher, self.signals, game_id, command_id,
                                           body, caller.player_id, wait)
        return Accepted(receipt, created)

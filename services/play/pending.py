"""What the table has to decide, as use cases: one path for REST, the game page and email replies.

A vote at a deadline, an undo or redo request and its answers, a newcomer's claim of an open seat and its
answers, a player leaving his seat: each reads the game's table log, decides (services/play/timekeeping.py,
votes.py, handover.py) and appends the decision after what it read; a concurrent write (the scheduler, another
player) makes it read and decide again. The caller names the acting seat (from its own authentication: seat
token, signed reply address); nothing here takes a seat from a request body.

Refusals are `Refused` (an HTTP status, a rule, the field at fault), which each channel words its own way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from services.play import handover, undo_policy
from services.play import timekeeping as tk
from services.play.legal import stand_in_told
from services.play.sessions import SessionCache
from services.play.table_log import StaleTableLog, TableLog
from services.play.timecontrol import ClockError
from services.play.votes import VoteError
from shared.eventstore import SqlRecorder
from shared.eventstore.outbox import OutboxEvent, TableAsks
from shared.eventstore.records import ACTIVE, Game

OPENERS = ("vote_opened", "consent_opened", "seat_claimed")  # the table log's events that ask the table something
Decision = Callable[[tk.Table], list[dict[str, Any]]]
ATTEMPTS = 3


class Refused(Exception):
    """A decision the table does not take: `status` (HTTP), `rule`, `field` (the culprit)."""

    def __init__(self, status: int, rule: str, message: str, field: str | None = None,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.rule = rule
        self.field = field
        self.details = details if details is not None else ({field: [message]} if field else None)


@dataclass
class Pending:
    recorder: SqlRecorder
    sessions: SessionCache
    log: TableLog
    # the table's decision carried out in the request that takes it (a vote's result, an accepted undo or
    # proposal, a seat handed over): the scheduler's pass over that one game (`Scheduler.tick_game`); the
    # table's tick stays the safety net for deadlines
    carry_out: Callable[[int], object] | None = None

    # -- the one way a decision is recorded ------------------------------------------------------------

    def decide(self, game_id: int, decision: Decision, carry: bool = True) -> list[dict[str, Any]]:
        """Read the table log, decide, append after what was read; a concurrent write makes it decide again.
        Then what was decided is carried out (`carry_out`), unless the caller carries it out itself."""
        for _ in range(ATTEMPTS):
            events = self.log.read(game_id)
            try:
                new = decision(tk.Table.replay(events))
            except ClockError as exc:
                raise Refused(400, "invalid_request", str(exc), exc.field) from None
            except VoteError as exc:
                raise Refused(exc.status, "clock_refused", str(exc), exc.field) from None
            tell, version = self.tell(game_id, events, new)
            try:
                self.log.append(game_id, len(events), new, tell, version)
            except StaleTableLog:
                continue
            if new and carry and self.carry_out is not None:
                self.carry_out(game_id)
            return new
        raise Refused(409, "clock_busy", "the table changed while deciding; try again")

    def tell(self, game_id: int, before: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]]
             ) -> tuple[list[OutboxEvent], int | None]:
        """The `table_asks` outbox events that announce the questions `new` opens (and the stand-in's turn
        alert when the table chooses him), and the game version."""
        if not any(e["type"] in OPENERS or e["type"] == "vote_decided" for e in new):
            return [], None
        game = self.recorder.get_game(game_id)
        title = game.title if game is not None else None
        told = [*asks_made(game_id, title, before, new), *stand_in_told(game, new)]
        return told, game.version if game is not None else None

    def table(self, game_id: int) -> tk.Table:
        return tk.Table.replay(self.log.read(game_id))

    # -- the deadline vote ------------------------------------------------------------------------------

    def vote(self, game_id: int, seat: int, choice: str, substitute: int | None, now: datetime) -> None:
        self.decide(game_id, lambda t: tk.ballot(t, seat, choice, substitute, now))

    # -- undo and redo with consent ---------------------------------------------------------------------

    def touched(self, game: Game, kind: str, target: int | None) -> list[int]:
        """The seats whose moves the undo (or redo) would take back (or bring back), in order."""
        sent_by = undo_policy.senders(self.recorder, game.id)
        with self.sessions.use(game) as session:
            try:
                return undo_policy.touched(session, kind, target, sent_by)
            except undo_policy.UndoTargetError as exc:
                raise Refused(422, "undo_target", str(exc), "action_id") from None

    def request(self, game: Game, seat: int, kind: str, target: int | None, now: datetime) -> bool:
        """Ask for an undo or redo; True when it is free (only the seat's own moves: post it as an action)."""
        if game.status != ACTIVE:
            raise Refused(409, "game_not_active", f"game {game.id} is not being played")
        movers = self.touched(game, kind, target)
        free: list[bool] = []

        def decision(t: tk.Table) -> list[dict[str, Any]]:
            events, is_free = tk.request_undo(t, seat, kind, target, movers, now, game.version)
            free[:] = [is_free]
            return events
        self.decide(game.id, decision)
        return bool(free and free[0])

    def answer(self, game_id: int, seat: int, accept: bool, now: datetime) -> None:
        """The seat's answer to the open undo or redo request or proposal; an accepted one is played at once
        (`carry_out`), in the requester's name."""
        self.decide(game_id, lambda t: tk.answer(t, seat, accept, now))

    # -- proposals: moves that reach into other players' game ----------------------------------------------

    def propose(self, game: Game, seat: int, kind: str, action: dict[str, Any], affected: Sequence[int],
                now: datetime) -> Ask:
        """Put `action` to the players it touches (`kind` end_game | purchase), bound to the game's version."""
        if game.status != ACTIVE:
            raise Refused(409, "game_not_active", f"game {game.id} is not being played")
        self.decide(game.id, lambda t: tk.propose(t, seat, kind, action, affected, now, game.version))
        asked = [a for a in self.asks(game.id, None, now) if a.kind == kind and a.by == seat]
        return asked[-1]

    # -- seat hand-over ---------------------------------------------------------------------------------

    def offer(self, game_id: int, by: int, seat: int, invite_hash: str, now: datetime) -> None:
        self.decide(game_id, lambda t: handover.offer(t, by, seat, invite_hash, now))

    def seats(self, game_id: int) -> list[int]:
        return [s.player_id for s in self.recorder.seats(game_id)]

    def check_claim(self, game: Game, seat: int, invite_hash: str, name: str, now: datetime) -> None:
        """Refuse a claim before the newcomer's identity is made."""
        if game.status != ACTIVE:
            raise Refused(409, "game_not_active", f"game {game.id} is not being played")
        try:
            handover.claim(self.table(game.id), seat, invite_hash, name, "", self.seats(game.id), now)
        except VoteError as exc:
            raise Refused(exc.status, "clock_refused", str(exc), exc.field) from None

    def resign(self, game: Game, seat: int, now: datetime) -> None:
        """The seat's player leaves: `seat_resigned`, and the seat is open for the hand-over path."""
        if game.status != ACTIVE:
            raise Refused(409, "game_not_active", f"game {game.id} is not being played")
        seats = self.seats(game.id)
        self.decide(game.id, lambda t: handover.resign(t, seat, seats, game.version, now))

    def claim(self, game: Game, seat: int, invite_hash: str, name: str, token_hash: str, holder: int | None,
              now: datetime) -> None:
        seats = self.seats(game.id)
        self.decide(game.id, lambda t: handover.claim(t, seat, invite_hash, name, token_hash, seats, now, holder))

    def answer_claim(self, game: Game, seat: int, accept: bool, now: datetime) -> list[handover.SeatClaim]:
        """The seat's answer to a newcomer's claim; returns the claims carried out (their seat changed hands:
        the caller drops the old holder's cached token)."""
        self.decide(game.id, lambda t: handover.answer(t, seat, accept, now), carry=False)
        return self.settle_claim(game.id, game.version, now)

    def settle_claim(self, game_id: int, version: int, now: datetime) -> list[handover.SeatClaim]:
        done: list[handover.SeatClaim] = []

        def decision(t: tk.Table) -> list[dict[str, Any]]:
            events, claim = handover.settle(t, version, now)
            done[:] = [claim] if claim is not None else []
            return events
        self.decide(game_id, decision)
        for claim in done:
            handover.hand_over(self.recorder, game_id, claim)
        return done

    # -- what the table asks whom -----------------------------------------------------------------------

    def asks(self, game_id: int, player: int | None, now: datetime) -> list[Ask]:
        return asks_of(self.log.read(game_id), now, player)


@dataclass(frozen=True)
class Ask:
    """One open question of the table: `kind` vote | undo | redo | end_game | purchase | seat_claim; `ask_id` the table-log
    position of the event that opened it (a reply names it, so an answer never lands on a later question);
    `by` the absent seat (vote) or the requester (undo, redo) or the seat claimed; `players` who must
    still answer; `closes` when it is settled without them."""

    kind: str
    ask_id: int
    by: int | None
    players: tuple[int, ...]
    closes: datetime
    name: str | None = None  # the newcomer claiming a seat
    target: int | None = None  # the action an undo goes back to
    voters: tuple[int, ...] = ()  # a vote's electorate (a substitute is one of them)
    move: dict[str, Any] | None = None  # a proposal's move (end_game, purchase)


def asks_made(game_id: int, title: str | None, before: Sequence[dict[str, Any]],
              new: Sequence[dict[str, Any]]) -> list[TableAsks]:
    """The outbox events telling the players who must answer each question that `new` opens (appended
    after `before`): a vote at a deadline, an undo or redo request, a claim of an open seat."""
    events = [*before, *new]
    if not new:
        return []
    now = datetime.fromisoformat(new[-1]["at"]) if "at" in new[-1] else datetime.now(UTC)
    return [TableAsks(game_id, title, a.kind, a.ask_id, a.by, a.players,
                      a.closes.replace(microsecond=0).isoformat(), a.name, a.target, a.voters, a.move)
            for a in asks_of(events, now) if a.ask_id > len(before) and a.players]


def asks_of(events: Sequence[dict[str, Any]], now: datetime, player: int | None = None) -> list[Ask]:
    """The table's open questions after `events` (those `player` must answer, if given)."""
    table = tk.Table.replay(events)
    opened: dict[str, int] = {}
    for seq, e in enumerate(events, 1):
        if e["type"] in OPENERS:
            opened[e["type"]] = seq
    out: list[Ask] = []
    if table.vote is not None:
        v = table.vote
        waiting = tuple(sorted(v.voters - set(v.ballots)))
        out.append(Ask("vote", opened.get("vote_opened", 0), v.absent, waiting, v.opened + v.timeout,
                       voters=tuple(sorted(v.voters))))
    c = table.consent
    if c is not None and c.state(now) == "pending":
        waiting = tuple(sorted(c.affected - c.accepted - c.declined))
        out.append(Ask(c.kind, opened.get("consent_opened", 0), c.requester, waiting, c.opened + c.timeout,
                       target=c.target, move=c.action))
    claim = table.claim
    if claim is not None and claim.state(now) == "pending":
        waiting = tuple(sorted(claim.affected - claim.accepted - claim.declined))
        out.append(Ask("seat_claim", opened.get("seat_claimed", 0), claim.seat, waiting,
                       claim.opened + claim.timeout, name=claim.name))
    return [a for a in out if player is None or player in a.players]

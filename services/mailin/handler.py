"""Playing a reply: check who sent it and for which seat, read its moves, queue them exactly as REST moves
are queued (`services.play.commands.submit`, the same receipts, rules worker and event store), wait for each
verdict, and answer.

Security: only a reply address signed for this game, seat and version acts; From must be the seat's
address (its email subscription for the game, else its default); a Message-ID seen before changes nothing
(its moves' command ids are `mail:<Message-ID>#n`, so the event store names the mail behind each move);
machine mail (bounces, auto-replies) is never read as moves; a sender over the rate limit is dropped. Mail
that fails these checks is dropped without an answer: an answer to a stranger would leak the game, and an
answer to a machine starts a mail loop.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

import sqlalchemy as sa

from services.notifier.fanout import resolve as subscriptions_of
from services.notifier.mailer import HEADER_POLICY
from services.play.dispatch import Dispatcher
from services.play.moves import Caller, MoveDoor
from services.play.pending import Pending, Refused, asks_of
from services.play.scheduler import Scheduler, session_remedies
from services.play.sessions import SessionCache
from services.play.table_log import TableLog
from services.words.describe import describe
from services.words.names import name_of
from shared.engine import GameSession
from shared.eventstore import Conflict, SqlRecorder
from shared.eventstore.records import ACTIVE, APPLIED, QUEUED

from . import answers, language, message, outgoing, tokens
from .render import absent_for, seat_moves, turn_text
from .settings import MailinSettings

log = logging.getLogger("railpost.mailin")
MAX_MOVES = 20  # lines of one reply played at most


@dataclass
class Outcome:
    status: str  # dropped | answered
    reason: str = ""
    applied: list[str] = field(default_factory=list)
    answer: EmailMessage | None = None


def command_id(message_id: str, n: int) -> str:
    """The receipt key of the n-th move of a mail: the Message-ID itself when it fits (so the event store
    shows which mail made a move), its hash when it is absurdly long."""
    mid = message_id.strip()
    if len(mid) > 180:
        mid = "sha256:" + hashlib.sha256(mid.encode()).hexdigest()
    return f"mail:{mid}#{n}"


class RateLimit:
    """At most `per_hour` mails per sender address in any rolling hour (in memory: one receiver process)."""

    def __init__(self, per_hour: int, timer: Callable[[], float] = time.monotonic) -> None:
        self.per_hour = per_hour
        self.timer = timer
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, sender: str) -> bool:
        now = self.timer()
        with self._lock:
            times = self._seen.setdefault(sender, deque())
            while times and times[0] <= now - 3600:
                times.popleft()
            if len(times) >= self.per_hour:
                return False
            times.append(now)
            return True


def played_words(session: GameSession, action: dict[str, Any]) -> str:
    """A move as the history says it ("Ann buys 10% of LNWR"): the answer names what was played, not only
    the number or words the player wrote (services/words, the page's and the mail's one phrase table)."""
    game = session.game
    return describe(action, lambda e: name_of(game, e), game.rules)


@dataclass
class MailHandler:
    recorder: SqlRecorder
    dispatcher: Dispatcher
    sessions: SessionCache
    engine: sa.Engine  # the notifier's tables: the seat's email address
    settings: MailinSettings
    sender: str  # From of our answers
    public_url: str
    send: Callable[[EmailMessage], None]
    rate: RateLimit | None = None
    _seen: OrderedDict[str, None] = field(default_factory=OrderedDict)
    _guard: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.rate is None:
            self.rate = RateLimit(self.settings.rate_per_hour)

    def handle(self, raw: bytes, mail_from: str | None = None, rcpt_tos: list[str] | None = None) -> Outcome:
        incoming = message.read(raw, mail_from, rcpt_tos)
        outcome = self._handle(incoming)
        log.info("mail", extra={"message_id": incoming.message_id, "status": outcome.status,
                                "reason": outcome.reason, "applied": len(outcome.applied)})
        if outcome.answer is not None:
            self.send(outcome.answer)
        return outcome

    def _address_of(self, game_id: int, player_id: int) -> str | None:
        with self.engine.connect() as conn:
            sub = subscriptions_of(conn, [str(player_id)], str(game_id)).get(str(player_id))
        return str(sub["email"]).lower() if sub and sub.get("email") else None

    def _first_time(self, incoming: message.Incoming, game_id: int) -> bool:
        """A Message-ID is acted on once: its first move's receipt is in the store, and a mail that queued no
        move is remembered here once answered (a mail whose handling failed, e.g. during a database outage,
        is not: the MTA's retry is played)."""
        with self._guard:
            if f"{game_id}:{incoming.message_id}" in self._seen:
                return False
        return self.recorder.get_receipt(game_id, command_id(incoming.message_id, 1)) is None

    def _remember(self, incoming: message.Incoming, game_id: int) -> None:
        with self._guard:
            self._seen[f"{game_id}:{incoming.message_id}"] = None
            while len(self._seen) > 10_000:
                self._seen.popitem(last=False)

    def _handle(self, incoming: message.Incoming) -> Outcome:
        if incoming.automatic:
            return Outcome("dropped", f"machine mail ({incoming.automatic})")
        token, _ = tokens.find(self.settings, incoming.recipients)
        if token is None:
            return Outcome("dropped", "no valid reply token")
        if not incoming.message_id:
            return Outcome("dropped", "no Message-ID")
        game = self.recorder.get_game(token.game_id)
        if game is None or token.player_id not in {s.player_id for s in self.recorder.seats(game.id)}:
            return Outcome("dropped", "token of no seat")
        if self._address_of(game.id, token.player_id) != incoming.sender:
            return Outcome("dropped", "From is not the seat's address")
        if self.settings.auth_serv_id and not message.authenticated(incoming, self.settings.auth_serv_id):
            return Outcome("dropped", "no DKIM/SPF pass from the receiving MTA")
        if not self.rate.allow(incoming.sender):  # type: ignore[union-attr]
            return Outcome("dropped", "rate limit")
        if not self._first_time(incoming, game.id):
            return Outcome("dropped", "replayed Message-ID")
        outcome = self._answer_ask(incoming, token) if token.ask is not None else self._play(incoming, token)
        self._remember(incoming, game.id)
        return outcome

    def _play(self, incoming: message.Incoming, token: tokens.ReplyToken) -> Outcome:
        report: list[str] = []
        applied: list[str] = []
        lines = language.lines_of(incoming.body)[:MAX_MOVES]
        game = self.recorder.get_game(token.game_id)
        assert game is not None
        if game.version != token.version:
            report.append(f"The game has moved on since that email (it was at move {token.version}, it is at "
                          f"{game.version} now): nothing was played. Here is where it stands.")
            lines = []
        elif not lines:
            report.append("I found no move in your mail. Answer with the number of a move, or words.")
        numbers: list[dict[str, object]] | None = None
        for n, line in enumerate(lines, 1):
            game = self.recorder.get_game(token.game_id)
            assert game is not None
            if game.status != ACTIVE:
                report.append(f"\u201c{line}\u201d not played: the game is {game.status}.")
                break
            try:
                with self.sessions.use(game) as session:
                    absent = absent_for(session, token.player_id, lambda: TableLog(self.engine).read(token.game_id))
                    moves = seat_moves(session, token.player_id, absent)
                    if n == 1:
                        numbers = moves
                    resolved = language.resolve(line, moves, session.game, token.player_id,
                                                numbers if game.version == token.version else None)
                    said = played_words(session, resolved.action) if resolved.action is not None else line
            except Exception:  # an engine error reading this position: answered, not lost
                log.exception("reading a mail move failed", extra={"game_id": game.id})
                report.append(f"Not played: \u201c{line}\u201d could not be read here; please use the page.")
                break
            if resolved.action is None:
                report.append(f"Not played: {resolved.error}.")
                break
            action = resolved.action
            cid = command_id(incoming.message_id, n)
            try:  # the one door, as over REST: the undo rule, the table's proposals, the queue
                done = self.door().accept(game.id, Caller(token.player_id), cid, action, game.version,
                                          self.settings.wait_seconds)
            except Refused as err:
                report.append(f"Not played: \u201c{line}\u201d \u2014 {err}. Later lines were not played.")
                break
            except Conflict as err:  # another move was queued first (a REST move, another mail)
                report.append(f"Not played: \u201c{line}\u201d \u2014 {err}. Later lines were not played.")
                break
            if done.proposal is not None:
                waiting = ", ".join(self._name(game.id, p) for p in done.proposal.players)
                report.append(f"Proposed: \u201c{line}\u201d needs the agreement of {waiting}; it is played "
                              "in your name once they all accept. Later lines were not played.")
                break
            receipt = done.receipt
            assert receipt is not None
            if receipt.status == APPLIED:
                applied.append(line)
                report.append(f"Played \u201c{line}\u201d: {said}.")
                continue
            if receipt.status == QUEUED:
                report.append(f"\u201c{line}\u201d ({said}) is queued and will be played shortly; later lines were not.")
            else:
                report.append(f"Refused: \u201c{line}\u201d ({said}) \u2014 {receipt.reason}. Later lines were not played.")
            break
        return Outcome("answered", "", applied, self._answer(incoming, token, report))

    def pending(self) -> Pending:
        return Pending(self.recorder, self.sessions, TableLog(self.engine), self.follower().tick_game)

    def follower(self) -> Scheduler:
        """The scheduler's pass over one game, run when a mail decides something (services/play/pending.py)."""
        return Scheduler(self.recorder, TableLog(self.engine), self.dispatcher,
                         session_remedies(self.recorder, self.sessions))

    def door(self) -> MoveDoor:
        """The one door a move comes in by (services/play/moves.py), as REST uses it."""
        return MoveDoor(self.recorder, self.dispatcher, None, self.sessions, lambda: TableLog(self.engine),
                        lambda: datetime.now(UTC), self.follower().tick_game)

    def _name(self, game_id: int, player: int) -> str:
        return next((s.name for s in self.recorder.seats(game_id) if s.player_id == player), f"player {player}")

    def _answer_ask(self, incoming: message.Incoming, token: tokens.ReplyToken) -> Outcome:
        """A reply to the table's question `token.ask`: read the answer, take it through the one path
        (services/play/pending.py), say what happened, or why not."""
        pending = self.pending()
        now = datetime.now(UTC)
        game = self.recorder.get_game(token.game_id)
        assert game is not None
        names = {s.player_id: s.name for s in self.recorder.seats(game.id)}
        ask = next((a for a in pending.asks(game.id, token.player_id, now) if a.ask_id == token.ask), None)
        if ask is None:
            report = ["That question is closed, or no longer waits for your answer: nothing was recorded."]
            return Outcome("answered", "", [], self._answer(incoming, token, report))
        said = answers.read(incoming.body, ask, names)
        if said.error is not None:
            return Outcome("answered", "", [], self._answer(incoming, token, [f"Not recorded: {said.error}"]))
        try:
            if ask.kind == "vote":
                assert said.choice is not None
                pending.vote(game.id, token.player_id, said.choice, said.substitute, now)
                done = f"Your vote is recorded: {said.choice.replace('_', ' ')}" + (
                    f" ({names.get(said.substitute, said.substitute)} moves this turn)" if said.substitute else "")
            elif ask.kind == "seat_claim":
                assert said.accept is not None
                pending.answer_claim(game, token.player_id, said.accept, now)
                done = f"Your answer is recorded: you {'accept' if said.accept else 'decline'} {ask.name}'s claim."
            else:
                assert said.accept is not None
                pending.answer(game.id, token.player_id, said.accept, now)
                done = f"Your answer is recorded: you {'accept' if said.accept else 'decline'} the {ask.kind}."
        except Refused as err:
            return Outcome("answered", "", [], self._answer(incoming, token, [f"Not recorded: {err}."]))
        return Outcome("answered", "", [done], self._answer(incoming, token, [done + "."]))

    def _answer(self, incoming: message.Incoming, token: tokens.ReplyToken, report: list[str]) -> EmailMessage:
        game = self.recorder.get_game(token.game_id)
        assert game is not None
        with self.sessions.use(game) as session:
            absent = absent_for(session, token.player_id, lambda: TableLog(self.engine).read(game.id))
            acting = token.player_id in session.acting_players() or absent is not None
            reply_to = tokens.reply_address(self.settings, game.id, token.player_id, game.version) if acting \
                else None
            link = outgoing.seat_link(self.settings, self.public_url, game.id, token.player_id)
            text = turn_text(session, game.id, token.player_id, link, reply_to, absent)
        if game.status == ACTIVE:  # the questions still waiting for this player, each with its address
            text = outgoing.with_asks(self.settings, text, asks_of(TableLog(self.engine).read(game.id),
                                                                   datetime.now(UTC)),
                                      {s.player_id: s.name for s in self.recorder.seats(game.id)})
        msg = EmailMessage(policy=HEADER_POLICY)
        subject = incoming.subject or f"Railpost game {game.id}"
        msg["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
        msg["From"] = self.sender
        msg["To"] = incoming.sender
        msg["Date"] = formatdate(usegmt=True)
        msg["Message-ID"] = make_msgid(idstring=f"railpost.{game.id}.{game.version}", domain=self.settings.domain)
        msg["In-Reply-To"] = incoming.message_id
        msg["References"] = f"{outgoing.thread_id(self.settings, game.id)} {incoming.message_id}"
        msg["Auto-Submitted"] = "auto-replied"
        if text.reply_to:
            msg["Reply-To"] = text.reply_to
        msg.set_content("\n".join(report) + "\n\n" + text.text + "\n")
        return msg

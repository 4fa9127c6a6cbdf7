"""What email moves add to outgoing mail: the turn block with its reply address, and one thread per game.

Every mail about a game (turn mails, digests of one game, answers to replies) names the same root
`<railpost.game.ID@DOMAIN>` in References and In-Reply-To, so mail clients show a game as one thread; an
answer also names the reply it answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Protocol

from services import signin
from services.notifier.db import make_engine
from services.notifier.payloads import ask_sentence
from services.play.pending import Ask, asks_of
from services.play.sessions import SessionCache
from services.play.table_log import TableLog
from shared.eventstore import SqlRecorder, open_recorder
from shared.eventstore.records import ACTIVE

from . import answers, tokens
from .render import TurnText, absent_for, turn_text
from .settings import MailinSettings


@dataclass(frozen=True)
class MailBlock:
    """The part of a mail that belongs to one game: text, where replies go, the thread it belongs to."""

    text: str
    reply_to: str | None
    thread: str
    headline: str = ""  # the game's line of the mail (its subject when alone), from the same reading as `text`
    acting: bool = True  # the reader has a move to make or a question to answer, as `text` says


class TurnBlocks(Protocol):
    def block(self, game_id: str, player_id: str) -> MailBlock | None: ...


def thread_id(settings: MailinSettings, game_id: int | str) -> str:
    return f"<railpost.game.{game_id}@{settings.domain}>"


def game_link(public_url: str, game_id: int | str) -> str:
    return f"{public_url}/games/{game_id}"


def with_asks(settings: MailinSettings, text: TurnText, asks: list[Ask], names: dict[int, str]) -> TurnText:
    """The turn text with, first, the table's open questions (`asks`: all of them): each one this player must
    answer with its own answer address, the others as where they stand. A player not on move answers by
    replying (Reply-To is the first question's address); one on move replies with moves, and writes his
    answer to the address given."""
    mine = [a for a in asks if text.player_id in a.players]
    others = [a for a in asks if text.player_id not in a.players and a.players]
    if not asks:
        return text
    on_move = text.reply_to is not None
    addresses = [tokens.answer_address(settings, text.game_id, text.player_id, a.ask_id) for a in mine]
    blocks = [answers.block(a, names, address, on_move) for a, address in zip(mine, addresses, strict=True)]
    blocks += [answers.status(a, names) for a in others]
    headline = text.headline
    if mine and not text.moves:  # asked, not on move: the first line says so, never "nothing for you to do"
        data = {"ask": mine[0].kind, "by": mine[0].by, "target": mine[0].target, "name": mine[0].name}
        headline = (f"{ask_sentence(data, {str(k): v for k, v in names.items()})} in game {text.game_id}: "
                    f"you are asked to answer.")
    return replace(text, text="\n\n".join([*blocks, text.text]),
                   reply_to=text.reply_to or (addresses[0] if addresses else None), headline=headline)


def seat_link(settings: MailinSettings, public_url: str, game_id: int, player_id: int) -> str:
    """The page opened with the player's seat on whatever device reads the mail (a signed, expiring link)."""
    return signin.page_link(public_url, game_id, signin.sign(settings.signin_key, game_id, player_id, time.time()))


@dataclass
class TurnMailer:
    """Builds each game's block when the mail is sent (not when the line was queued), so the moves listed
    and the version signed are the game's current ones even after a batching window."""

    recorder: SqlRecorder
    sessions: SessionCache
    settings: MailinSettings
    public_url: str
    log: TableLog | None = None  # the table's questions (votes, undo/redo requests, seat claims)

    @classmethod
    def open(cls, database_url: str, settings: MailinSettings, public_url: str) -> TurnMailer:
        recorder = open_recorder(database_url, pool_size=2)
        return cls(recorder, SessionCache(recorder, 64), settings, public_url, TableLog(make_engine(database_url, 2)))

    def text(self, game_id: int, player_id: int) -> TurnText | None:
        game = self.recorder.get_game(game_id)
        if game is None or game.status not in (ACTIVE, "finished"):
            return None
        log = self.log
        with self.sessions.use(game) as session:
            absent = absent_for(session, player_id, lambda: log.read(game.id)) if log is not None else None
            acting = player_id in session.acting_players() or absent is not None
            reply_to = tokens.reply_address(self.settings, game.id, player_id, game.version) if acting else None
            text = turn_text(session, game.id, player_id, seat_link(self.settings, self.public_url, game.id, player_id),
                             reply_to, absent)
        if self.log is None or game.status != ACTIVE:
            return text
        return with_asks(self.settings, text, asks_of(self.log.read(game.id), datetime.now(UTC)),
                         {s.player_id: s.name for s in self.recorder.seats(game.id)})

    def block(self, game_id: str, player_id: str) -> MailBlock | None:
        if not (game_id.isdigit() and player_id.isdigit()):
            return None
        text = self.text(int(game_id), int(player_id))
        if text is None:
            return None
        return MailBlock(text.text, text.reply_to, thread_id(self.settings, game_id), text.headline,
                         bool(text.moves) or text.reply_to is not None)

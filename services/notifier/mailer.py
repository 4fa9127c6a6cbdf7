"""Email: queued lines are batched per player and address (a minute's worth of turns becomes one mail,
daily-digest lines wait for the digest hour) and sent over SMTP with a one-click unsubscribe link.

The queue rows are marked sent only after the SMTP server accepted the message, so a crash resends rather
than loses (at-least-once, like webhooks).
"""

from __future__ import annotations

import email.policy
import json
import logging
import smtplib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from services.timesource import TimeSource
from services.words.describe import plural

from . import events, fanout, unsubscribe
from .settings import API_PREFIX, NotifierSettings, SmtpSettings
from .tables import game_state, mail_queue

if TYPE_CHECKING:
    from services.mailin.outgoing import MailBlock, TurnBlocks

log = logging.getLogger(__name__)
# Long unfolded lines: a folded-and-encoded List-Unsubscribe URL is one that mail clients cannot use.
HEADER_POLICY = email.policy.SMTP.clone(max_line_length=998)
SmtpFactory = Callable[[SmtpSettings], smtplib.SMTP]
SUBJECT_MAX = 120


def connect_smtp(smtp: SmtpSettings) -> smtplib.SMTP:
    client = smtplib.SMTP(smtp.host, smtp.port, timeout=smtp.timeout)
    if smtp.starttls:
        client.starttls()
    if smtp.user:
        client.login(smtp.user, smtp.password)
    return client


def send_message(smtp: SmtpSettings, msg: EmailMessage, factory: SmtpFactory = connect_smtp) -> None:
    """One message over one SMTP session; the session is closed whatever the send did."""
    client = factory(smtp)
    try:
        client.send_message(msg)
    finally:
        try:
            client.quit()
        except (OSError, smtplib.SMTPException):
            pass


def compose(
    settings: NotifierSettings, address: str, lines: Sequence[str], unsubscribe_url: str, first_id: int,
    block: MailBlock | None = None,
) -> EmailMessage:
    """One mail. With email moves on, a mail about one game carries that game's `block` (numbered moves,
    state, page link), answers go to the block's signed reply address, and the mail joins the game's
    thread."""
    msg = EmailMessage(policy=HEADER_POLICY)
    msg["Subject"] = subject(lines)
    msg["From"] = settings.smtp.sender
    msg["To"] = address
    msg["Date"] = formatdate(usegmt=True)
    msg["Message-ID"] = make_msgid(idstring=f"railpost.{first_id}")
    msg["List-Unsubscribe"] = f"<{unsubscribe_url}>"
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg["Auto-Submitted"] = "auto-generated"
    body = "\n\n".join(lines)
    if block is not None:
        body = f"{body}\n\n{block.text}"
        msg["References"] = block.thread
        msg["In-Reply-To"] = block.thread
        if block.reply_to:
            msg["Reply-To"] = block.reply_to
    msg.set_content(f"{body}\n\n-- \nRailpost. Stop these emails: {unsubscribe_url}\n")
    return msg


def subject(lines: Sequence[str]) -> str:
    """The first line of a one-line mail (cut to a subject's length), else how many updates it brings."""
    if len(lines) == 1:
        first = lines[0].splitlines()[0]
        return first if len(first) <= SUBJECT_MAX else first[: SUBJECT_MAX - 1].rstrip() + "\u2026"
    return f"Railpost: {plural(len(lines), 'update')} in your games"


def current_lines(items: Sequence[Any], acting: Mapping[Any, bool], headlines: Mapping[Any, str]) -> list[str]:
    """The lines still true when the mail leaves, one per game (`latest_per_game`): a "your turn" line of a
    game where the reader no longer acts (`acting`, read now) is dropped, and where the game's state was read
    for this mail its own line (`headlines`) stands in for it, so subject and body say the same thing."""
    kept = []
    for item in items:
        if item.event_type == events.TURN and item.game_id is not None:
            if acting.get(item.game_id) is False:
                continue
            if headlines.get(item.game_id):
                link = item.line.rsplit("\n", 1)[-1] if "\n" in item.line else ""
                item = SimpleNamespace(game_id=item.game_id, line=headlines[item.game_id] + (f"\n{link}" if link else ""))
        kept.append(item)
    return latest_per_game(kept)


def latest_per_game(items: Sequence[Any]) -> list[str]:
    """One line per game, its latest: a batch or a digest tells where each game stands now, so three turns
    of one game within the window are one line, not the same "your turn" three times. Lines of no game
    stay as they are. Games keep the order in which they first appeared."""
    latest: dict[Any, str] = {}
    for i, item in enumerate(items):
        latest[item.game_id if item.game_id is not None else ("line", i)] = item.line
    return list(latest.values())


@dataclass
class Mailer:
    engine: sa.Engine
    settings: NotifierSettings
    timesource: TimeSource
    smtp_factory: SmtpFactory = connect_smtp
    blocks: TurnBlocks | None = None  # email moves: each game's mail lists its moves and takes replies

    def flush_due(self) -> int:
        """Send every batch whose oldest line is due; returns the number of emails sent."""
        if not self.settings.smtp.enabled:
            return 0
        now = self.timesource.now()
        window = now + timedelta(seconds=self.settings.mail_batch_seconds)
        with self.engine.connect() as conn:
            groups = conn.execute(
                sa.select(mail_queue.c.player_id, mail_queue.c.address)
                .where(mail_queue.c.sent_at.is_(None))
                .group_by(mail_queue.c.player_id, mail_queue.c.address)
                .having(sa.func.min(mail_queue.c.due_at) <= now)
            ).all()
        sent = 0
        for player_id, address in groups:
            try:
                sent += self._send_group(player_id, address, window)
            except (OSError, smtplib.SMTPException):
                log.exception("mail to player %s failed; will retry", player_id)
        return sent

    def _block(self, game_id: Any, player_id: str) -> MailBlock | None:
        """The game's moves for this player; a failure to build them (an engine error on an odd state)
        costs the mail its moves, never the mail itself or the notifier loop."""
        if game_id is None or self.blocks is None:
            return None
        try:
            return self.blocks.block(str(game_id), str(player_id))
        except Exception:
            log.exception("turn block for game %s failed; mail sent without moves", game_id)
            return None

    def _send_group(self, player_id: str, address: str, window: datetime) -> int:
        now = self.timesource.now()
        with self.engine.begin() as conn:
            items = conn.execute(
                sa.select(mail_queue.c.id, mail_queue.c.line, mail_queue.c.game_id, mail_queue.c.event_type)
                .where(mail_queue.c.player_id == player_id, mail_queue.c.address == address,
                       mail_queue.c.sent_at.is_(None), mail_queue.c.due_at <= window)
                .order_by(mail_queue.c.created_at, mail_queue.c.id)
            ).all()
            if not items:
                return 0
            token = unsubscribe.issue(conn, player_id, address, now)
            acting = {} if self.blocks is not None else acting_now(conn, {i.game_id for i in items}, player_id)
        url = f"{self.settings.public_base_url}{API_PREFIX}/unsubscribe/{token}"
        if self.blocks is None:
            batches: list[tuple[Sequence[Any], MailBlock | None]] = [(items, None)]
        else:  # one mail per game: each has its own reply address and thread
            by_game: dict[Any, list[Any]] = {}
            for item in items:
                by_game.setdefault(item.game_id, []).append(item)
            batches = [(group, self._block(game, player_id)) for game, group in by_game.items()]
        sent = 0
        for batch, block in batches:
            game = batch[0].game_id
            # the state read for a game's block is the one its lines are held to
            held = {game: block.acting} if block is not None else acting
            lines = current_lines(batch, held, {game: block.headline} if block is not None else {})
            if lines:
                msg = compose(self.settings, address, lines, url, batch[0].id, block)
                send_message(self.settings.smtp, msg, self.smtp_factory)
                sent += 1
            with self.engine.begin() as conn:  # sent, or no longer true: either way never sent again
                conn.execute(mail_queue.update().where(mail_queue.c.id.in_([i.id for i in batch]))
                             .values(sent_at=now))
        return sent


def acting_now(conn: sa.Connection, games: set[Any], player_id: str) -> dict[Any, bool]:
    """For each game, whether the player (or the seat he holds) acts in it now, as the notifier last read
    the game's turn; a game it has not read is left out (its lines stay)."""
    wanted = [g for g in games if g is not None]
    if not wanted:
        return {}
    out: dict[Any, bool] = {}
    for game_id, raw in conn.execute(sa.select(game_state.c.game_id, game_state.c.acting)
                                     .where(game_state.c.game_id.in_(wanted))).all():
        holders = fanout.holders_of(conn, game_id)
        out[game_id] = player_id in {holders.get(str(p), str(p)) for p in json.loads(raw)}
    return out

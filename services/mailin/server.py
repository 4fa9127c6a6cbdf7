"""The receiver: SMTP (or LMTP, behind the site's MTA) on aiosmtpd. Only our reply addresses are accepted
as recipients (it relays nothing), a mail over `max_bytes` is refused during DATA (552), and a mail is
played before the 250 reply, so the sending MTA learns the outcome of delivery, not of a queue of ours.
A database outage answers 451, and the MTA tries again later."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import sqlalchemy as sa
from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from .handler import MailHandler
from .settings import MailinSettings

log = logging.getLogger("railpost.mailin")
logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd logs every SMTP line at INFO


class Receiver:
    """aiosmtpd's handler: the hooks it calls, each handing real work to `MailHandler` in a thread."""

    def __init__(self, handler: MailHandler, settings: MailinSettings) -> None:
        self.handler = handler
        self.settings = settings

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,  # noqa: N802
                          rcpt_options: list[str]) -> str:
        local, _, domain = address.rpartition("@")
        if domain.lower() != self.settings.domain.lower() or \
                local.partition("+")[0].lower() != self.settings.local_part.lower():
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        raw = bytes(envelope.original_content or envelope.content or b"")
        if len(raw) > self.settings.max_bytes:
            return "552 5.3.4 message too big"
        try:
            await asyncio.get_running_loop().run_in_executor(
                None, self.handler.handle, raw, envelope.mail_from or "", list(envelope.rcpt_tos))
        except sa.exc.OperationalError:
            log.exception("database unavailable; the MTA will retry")
            return "451 4.3.0 try again later"
        except Exception:  # a mail we cannot read must not be retried for days: log it and accept
            log.exception("mail not played")
        return "250 OK"


class MailinController(Controller):
    def __init__(self, handler: MailHandler, settings: MailinSettings) -> None:
        self.mailin = settings
        super().__init__(Receiver(handler, settings), hostname=settings.host, port=settings.port,
                         ready_timeout=10)

    def factory(self) -> SMTP:
        kind = LMTP if self.mailin.lmtp else SMTP
        # the limit is checked in DATA as well: aiosmtpd's own check answers 552 only at the end
        return kind(self.handler, data_size_limit=self.mailin.max_bytes, hostname=self.mailin.domain,
                    enable_SMTPUTF8=True)

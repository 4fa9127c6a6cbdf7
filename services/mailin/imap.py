"""The IMAP poller, for a site that only has a mailbox: every unread mail of one folder is handed to the
same `MailHandler` as the SMTP receiver's, then deleted (a mail handled twice after a crash before the
delete changes nothing: its Message-ID has been seen). Uses imap-tools."""

from __future__ import annotations

import imaplib
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from imap_tools import AND, BaseMailBox, MailBox, MailBoxUnencrypted

from .handler import MailHandler

log = logging.getLogger("railpost.mailin.imap")


@dataclass(frozen=True)
class ImapSettings:
    host: str = ""  # empty: no poller
    port: int = 993
    user: str = ""
    password: str = ""
    folder: str = "INBOX"
    ssl: bool = True  # IMAPS; MAILIN_IMAP_SSL=0 for a plain local server
    interval: float = 30.0

    @property
    def enabled(self) -> bool:
        return bool(self.host)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ImapSettings:
        e = os.environ if env is None else env
        ssl = (e.get("MAILIN_IMAP_SSL") or "1").strip().lower() not in ("0", "false", "no", "off")
        return cls(host=e.get("MAILIN_IMAP_HOST", ""), port=int(e.get("MAILIN_IMAP_PORT") or (993 if ssl else 143)),
                   user=e.get("MAILIN_IMAP_USER", ""), password=e.get("MAILIN_IMAP_PASSWORD", ""),
                   folder=e.get("MAILIN_IMAP_FOLDER") or cls.folder, ssl=ssl,
                   interval=float(e.get("MAILIN_IMAP_INTERVAL") or cls.interval))


@dataclass
class ImapPoller:
    handler: MailHandler
    settings: ImapSettings
    max_bytes: int

    def _box(self) -> BaseMailBox:
        kind = MailBox if self.settings.ssl else MailBoxUnencrypted
        return kind(self.settings.host, self.settings.port)

    def poll_once(self) -> int:
        """Handle every unread mail of the folder; returns how many were taken out of it."""
        with self._box().login(self.settings.user, self.settings.password, self.settings.folder) as box:
            done: list[str] = []
            for msg in box.fetch(AND(seen=False), mark_seen=False, bulk=True):
                if msg.uid is None:
                    continue
                raw = msg.obj.as_bytes()
                if max(msg.size, len(raw)) > self.max_bytes:
                    log.info("mail too big; dropped", extra={"uid": msg.uid, "bytes": msg.size})
                else:
                    # the delivering MTA's Return-Path is the envelope sender; `<>` marks a bounce
                    path = msg.obj.get("Return-Path")
                    try:
                        self.handler.handle(raw, None if path is None else str(path), [])
                    except Exception:  # the box keeps going; this mail is logged and removed
                        log.exception("mail not played", extra={"uid": msg.uid})
                done.append(msg.uid)
            if done:
                box.delete(done)
        return len(done)

    def run_forever(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                self.poll_once()
            except (OSError, imaplib.IMAP4.error) as err:
                log.warning("IMAP poll failed; retrying", extra={"error": str(err)})
            stop.wait(self.settings.interval)

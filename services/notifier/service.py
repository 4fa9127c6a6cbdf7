"""The notifier process: one loop that tails the outbox, pumps due webhooks to a thread pool, flushes
email batches and schedules reminders. Each part can also be stepped by hand (tests, benchmark).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import sqlalchemy as sa

from services.timesource import SystemTime, TimeSource

from . import transport
from .delivery import WebhookSender
from .mailer import Mailer, SmtpFactory, connect_smtp
from .processor import OutboxProcessor
from .reminders import ReminderScanner
from .settings import NotifierSettings
from .ssrf import Resolver, system_resolver

if TYPE_CHECKING:
    from services.mailin.outgoing import TurnBlocks

log = logging.getLogger(__name__)
MAIL_FLUSH_SECONDS = 1.0


@dataclass
class Notifier:
    engine: sa.Engine
    settings: NotifierSettings
    timesource: TimeSource = field(default_factory=SystemTime)
    resolver: Resolver = system_resolver
    opener: transport.SocketOpener = transport.open_socket
    smtp_factory: SmtpFactory = connect_smtp
    rng: random.Random = field(default_factory=random.Random)
    blocks: TurnBlocks | None = None  # email moves (services.mailin.outgoing.TurnMailer)

    def __post_init__(self) -> None:
        self.processor = OutboxProcessor(self.engine, self.settings, self.timesource)
        self.sender = WebhookSender(self.engine, self.settings, self.timesource, self.resolver, self.opener, self.rng)
        self.mailer = Mailer(self.engine, self.settings, self.timesource, self.smtp_factory, self.blocks)
        self.reminders = ReminderScanner(self.engine, self.settings, self.timesource)

    def step(self) -> int:
        """Everything due right now, synchronously; returns outbox records consumed + webhooks attempted."""
        consumed = 0
        while (n := self.processor.run_once()) > 0:
            consumed += n
        self.reminders.run_once()
        attempted = 0
        while (n := self.sender.deliver_due()) > 0:
            attempted += n
        self.mailer.flush_due()
        return consumed + attempted

    def run_forever(self, stop: threading.Event) -> None:
        """Poll until `stop` is set. Latency: a committed outbox row is picked up within one poll interval."""
        last_mail = last_reminders = 0.0
        with ThreadPoolExecutor(self.settings.delivery_workers, thread_name_prefix="webhook") as pool:
            while not stop.is_set():
                busy = 0
                try:
                    busy += self.processor.run_once()
                    busy += self.sender.pump(pool)
                    mono = time.monotonic()
                    if mono - last_mail >= MAIL_FLUSH_SECONDS:
                        last_mail = mono
                        self.mailer.flush_due()
                    if mono - last_reminders >= self.settings.reminder_scan_seconds:
                        last_reminders = mono
                        self.reminders.run_once()
                except sa.exc.OperationalError:
                    log.exception("database unavailable; retrying")
                    stop.wait(1.0)
                if not busy:  # a finishing delivery wakes us early: it may have freed a worker for queued work
                    self.sender.finished.wait(self.settings.poll_interval)
                    self.sender.finished.clear()

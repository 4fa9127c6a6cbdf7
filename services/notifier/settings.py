"""Notifier settings, read from the environment in one place (never from globals elsewhere)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from services.config import public_url


def _flag(value: str | None, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class UrlPolicy:
    """What user-supplied webhook URLs may point at. The defaults are the safe ones for production."""

    allow_http: bool = False
    allow_loopback: bool = False


@dataclass(frozen=True)
class SmtpSettings:
    host: str = ""
    port: int = 25
    sender: str = "Railpost <railpost@localhost>"
    user: str = ""
    password: str = ""
    starttls: bool = False
    timeout: float = 10.0

    @property
    def enabled(self) -> bool:
        return bool(self.host)


@dataclass(frozen=True)
class NotifierSettings:
    database_url: str = "sqlite:///var/railpost.sqlite3"
    public_base_url: str = "http://127.0.0.1:8000"
    url_policy: UrlPolicy = field(default_factory=UrlPolicy)
    smtp: SmtpSettings = field(default_factory=SmtpSettings)
    poll_interval: float = 0.05
    batch_size: int = 200
    delivery_workers: int = 8
    connect_timeout: float = 5.0
    read_timeout: float = 10.0
    claim_lease: float = 120.0
    mail_batch_seconds: float = 60.0
    digest_hour_utc: int = 7
    reminder_after_hours: float = 24.0
    reminder_gap_hours: float = 24.0
    # the game clock's reminders: at most one per player per this many hours, across games
    clock_reminder_gap_hours: float = 2.0
    reminder_scan_seconds: float = 60.0
    secret_overlap_hours: float = 24.0
    # web push (services/notifier/webpush.py): the VAPID private key as PEM; empty: web push is off
    webpush_private_key: str = ""
    webpush_subject: str = "mailto:railpost@localhost"  # who the push services may contact about our pushes

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> NotifierSettings:
        e = os.environ if env is None else env
        return cls(
            database_url=e.get("DATABASE_URL", cls.database_url),
            public_base_url=public_url(e),  # the gateway's rule: PUBLIC_URL, else from PORT
            url_policy=UrlPolicy(
                allow_http=_flag(e.get("NOTIFIER_ALLOW_HTTP")),
                allow_loopback=_flag(e.get("NOTIFIER_ALLOW_LOOPBACK")),
            ),
            smtp=SmtpSettings(
                host=e.get("SMTP_HOST", ""),
                port=int(e.get("SMTP_PORT", "25")),
                sender=e.get("SMTP_FROM", SmtpSettings.sender),
                user=e.get("SMTP_USER", ""),
                password=e.get("SMTP_PASSWORD", ""),
                starttls=_flag(e.get("SMTP_STARTTLS")),
                timeout=float(e.get("SMTP_TIMEOUT", "10")),
            ),
            poll_interval=float(e.get("NOTIFIER_POLL_INTERVAL", cls.poll_interval)),
            delivery_workers=int(e.get("NOTIFIER_DELIVERY_WORKERS", cls.delivery_workers)),
            connect_timeout=float(e.get("NOTIFIER_CONNECT_TIMEOUT", cls.connect_timeout)),
            read_timeout=float(e.get("NOTIFIER_READ_TIMEOUT", cls.read_timeout)),
            claim_lease=float(e.get("NOTIFIER_CLAIM_LEASE", cls.claim_lease)),
            mail_batch_seconds=float(e.get("NOTIFIER_MAIL_BATCH_SECONDS", cls.mail_batch_seconds)),
            digest_hour_utc=int(e.get("NOTIFIER_DIGEST_HOUR_UTC", cls.digest_hour_utc)),
            reminder_after_hours=float(e.get("NOTIFIER_REMINDER_AFTER_HOURS", cls.reminder_after_hours)),
            reminder_scan_seconds=float(e.get("NOTIFIER_REMINDER_SCAN_SECONDS", cls.reminder_scan_seconds)),
            clock_reminder_gap_hours=float(e.get("NOTIFIER_CLOCK_REMINDER_GAP_HOURS", cls.clock_reminder_gap_hours)),
            webpush_private_key=e.get("WEBPUSH_VAPID_PRIVATE_KEY", "").replace("\\n", "\n"),
            webpush_subject=e.get("WEBPUSH_SUBJECT", cls.webpush_subject),
        )


API_PREFIX = "/notifier"
"""Where the notifier's REST API is mounted; the unsubscribe links in emails point under it."""

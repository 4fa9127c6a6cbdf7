"""`python -m services.mailin`: the email-moves receiver, until SIGTERM/SIGINT (`make run` starts it)."""

from __future__ import annotations

import logging
import signal
import threading
from email.message import EmailMessage
from types import FrameType

from services.config import Config
from services.logs import setup_logging
from services.notifier.db import make_engine
from services.notifier.mailer import send_message
from services.notifier.settings import NotifierSettings
from services.play.dispatch import make_dispatcher
from services.play.sessions import SessionCache
from services.play.signals import make_signals
from shared.eventstore import open_recorder

from .handler import MailHandler
from .imap import ImapPoller, ImapSettings
from .server import MailinController
from .settings import MailinSettings

log = logging.getLogger("railpost.mailin")


def build(config: Config, notifier: NotifierSettings, settings: MailinSettings) -> MailHandler:
    """The handler with its own store connections and the configured queue (in the embedded default an
    in-process applier, exactly as the gateway's; with Redis the Celery rules workers)."""
    recorder = open_recorder(config.database_url, pool_size=4, timeout=config.db_timeout)
    dispatcher = make_dispatcher(recorder, config, make_signals(config.redis_url, config.celery_queue))

    def send(msg: EmailMessage) -> None:
        if not notifier.smtp.enabled:
            log.warning("answer not sent: SMTP_HOST is not set")
            return
        send_message(notifier.smtp, msg)

    return MailHandler(recorder, dispatcher, SessionCache(recorder, 64), make_engine(config.database_url, 2),
                       settings, notifier.smtp.sender, notifier.public_base_url, send)


def main() -> int:
    config = Config.from_env()
    setup_logging(config.log_level)
    settings = MailinSettings.from_env()
    if not settings.enabled:
        log.error("MAILIN_SECRET is not set: email moves are off")
        return 2
    handler = build(config, NotifierSettings.from_env(), settings)
    stop = threading.Event()
    controller: MailinController | None = MailinController(handler, settings)
    try:
        controller.start()  # type: ignore[union-attr]
        log.info("mailin listening", extra={"host": settings.host, "port": settings.port, "lmtp": settings.lmtp})
    except (OSError, RuntimeError):
        # a taken port must not bring the rest of `make run` down: email moves are off, the site goes on
        log.exception("mailin cannot listen; email moves over SMTP are off", extra={"port": settings.port})
        controller = None
    imap = ImapSettings.from_env()
    if imap.enabled:  # a mailbox polled as well (for sites without their own MTA)
        poller = ImapPoller(handler, imap, settings.max_bytes)
        threading.Thread(target=poller.run_forever, args=(stop,), name="mailin-imap", daemon=True).start()
        log.info("IMAP poller running", extra={"host": imap.host, "folder": imap.folder})

    def _stop(_sig: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    stop.wait()
    if controller is not None:
        controller.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

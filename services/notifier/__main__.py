"""`python -m services.notifier`: run the notifier until SIGTERM/SIGINT."""

from __future__ import annotations

import logging
import os
import signal
import threading
from types import FrameType

from .db import make_engine
from .service import Notifier
from .settings import NotifierSettings


def main() -> int:
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"), format="%(asctime)s %(name)s %(message)s")
    settings = NotifierSettings.from_env()
    if os.environ.get("NOTIFIER_MIGRATE", "1") != "0":
        from shared.eventstore import migrate

        migrate(settings.database_url)
    engine = make_engine(settings.database_url)
    stop = threading.Event()

    def _stop(_sig: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    from services.mailin.settings import MailinSettings

    mailin = MailinSettings.from_env()
    blocks = None
    if mailin.enabled:  # email moves: turn mails list the moves and take replies
        from services.mailin.outgoing import TurnMailer

        blocks = TurnMailer.open(settings.database_url, mailin, settings.public_base_url)
    logging.getLogger(__name__).info("notifier running", extra={"email_moves": mailin.enabled})
    Notifier(engine, settings, blocks=blocks).run_forever(stop)
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

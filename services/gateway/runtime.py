"""What the views share within one gateway process: the store, the dispatcher and a session cache."""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import current_app

from services.config import Config
from services.play.dispatch import Dispatcher
from services.play.offers import Shelf
from services.play.sessions import SessionCache
from services.play.signals import SettleSignals
from shared.eventstore import SqlRecorder
from shared.eventstore.records import Seat


@dataclass
class Runtime:
    config: Config
    recorder: SqlRecorder
    dispatcher: Dispatcher
    sessions: SessionCache
    signals: SettleSignals
    offers: Shelf  # each position's answers to legal-actions, kept (services/play/offers.py)
    seat_tokens: dict[str, Seat] = field(default_factory=dict)  # token hash -> seat (see auth._seat)
    seat_checked: dict[str, float] = field(default_factory=dict)  # token hash -> when it was last looked up

    def close(self) -> None:
        """Stop what the app started (the dispatcher's thread or broker client, the settle listener, the
        store's pool), for an app that ends before its process: a pool left open keeps reconnecting to a
        database that may be gone."""
        self.dispatcher.close()
        self.signals.close()
        self.recorder.close()


def rt() -> Runtime:
    return current_app.extensions["railpost"]

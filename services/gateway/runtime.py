"""What the views share within one gateway process: the store, the dispatcher and a session cache."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from services.config import Config
from services.play.dispatch import Dispatcher
from services.play.sessions import SessionCache
from shared.eventstore import SqlRecorder


@dataclass
class Runtime:
    config: Config
    recorder: SqlRecorder
    dispatcher: Dispatcher
    sessions: SessionCache


def rt() -> Runtime:
    return current_app.extensions["railpost"]

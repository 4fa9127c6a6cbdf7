"""Time as a dependency (a `TimeSource`: its `now()`), shared by the notifier (retries, reminders) and the
play scheduler (deadlines), so schedules are tested without sleeping. Not a game's clock: that is a time
control (`services/play/timecontrol.py`)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol


class TimeSource(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...


class SystemTime:
    def now(self) -> datetime:
        return datetime.now(UTC)


class VirtualTime:
    """A time source that only moves when a test says so."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime.now(UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, delta: timedelta | float) -> datetime:
        step = delta if isinstance(delta, timedelta) else timedelta(seconds=delta)
        with self._lock:
            self._now += step
            return self._now

    def set(self, moment: datetime) -> None:
        with self._lock:
            self._now = moment

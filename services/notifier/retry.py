"""When to try a webhook again: a fixed schedule with jitter spanning days, and what a response means.

The delays follow the usual webhook-provider practice (quick retries for blips, then hours for outages), so
a receiver that is down overnight still gets the alert. Jitter spreads a burst of retries after an outage.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime

# Delay before attempt n (index 0 is the first attempt); 10 attempts over ~3 days.
SCHEDULE: tuple[float, ...] = (0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400)
MAX_ATTEMPTS = len(SCHEDULE)
JITTER = 0.1
MAX_RETRY_AFTER = 86400.0


def next_delay(attempts_made: int, rng: random.Random) -> float | None:
    """Seconds until the next attempt after `attempts_made` attempts, or None when the schedule is spent."""
    if attempts_made >= MAX_ATTEMPTS:
        return None
    base = SCHEDULE[attempts_made]
    return base * rng.uniform(1 - JITTER, 1 + JITTER)


def retry_after_seconds(value: str | None, now: datetime) -> float | None:
    """Parse a Retry-After header (seconds or an HTTP date), capped so one header cannot park us forever."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - now).total_seconds()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


@dataclass(frozen=True)
class Verdict:
    outcome: str  # "success" | "retry" | "gone"
    wait: float | None = None  # a receiver-requested minimum wait (Retry-After)


def judge(status: int | None, retry_after: str | None, now: datetime) -> Verdict:
    if status is not None and 200 <= status < 300:
        return Verdict("success")
    if status == 410:
        return Verdict("gone")
    if status in (429, 503):
        return Verdict("retry", retry_after_seconds(retry_after, now))
    return Verdict("retry")

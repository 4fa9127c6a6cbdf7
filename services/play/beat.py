"""The table's beat as Celery schedules it: the tick task's name and period (`CLOCK_TICK_SECONDS`, the
operators' setting, keeps its name). Apart from the scheduler, which runs the tick, so the Celery app (which `dispatch` builds) can schedule it without importing the play layer
that dispatches through it."""

from __future__ import annotations

import os
from typing import Any

TICK_TASK = "railpost.table_tick"
TICK_SECONDS = float(os.environ.get("CLOCK_TICK_SECONDS", "60"))


def beat_entry(queue: str) -> dict[str, Any]:
    return {"task": TICK_TASK, "schedule": TICK_SECONDS, "options": {"queue": queue}}

"""Versioned event types: stored events keep the shape they were written in, and upcasters lift old shapes
to the current one on read, so a format change never needs a data migration of the event log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ACTION_APPLIED = "ActionApplied"

#: the version writers use today, per event type
CURRENT_VERSIONS: dict[str, int] = {ACTION_APPLIED: 2}

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register the step from `from_version` to `from_version + 1`; steps chain on read."""

    def register(fn: Upcaster) -> Upcaster:
        _UPCASTERS[(event_type, from_version)] = fn
        return fn

    return register


@upcaster(ACTION_APPLIED, 1)
def _action_applied_v1(data: dict[str, Any]) -> dict[str, Any]:
    # v1 stored the bare action; v2 wraps it and names the submitting player (unknown for old events)
    return {"action": data, "player_id": None}


def upcast(event_type: str, version: int, data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Lift `data` to the current version of its type; unknown types pass through untouched."""
    target = CURRENT_VERSIONS.get(event_type, version)
    while version < target:
        step = _UPCASTERS.get((event_type, version))
        if step is None:
            raise LookupError(f"no upcaster for {event_type} v{version}")
        data = step(data)
        version += 1
    return version, data


def _check_complete() -> None:
    """Fail at import if a current version has a gap in its upcaster chain."""
    for event_type, current in CURRENT_VERSIONS.items():
        for v in range(1, current):
            if (event_type, v) not in _UPCASTERS:
                raise LookupError(f"missing upcaster {event_type} v{v} -> v{v + 1}")


_check_complete()

"""Small helpers shared by the notifier tests."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from services.notifier import manage
from services.notifier.settings import UrlPolicy
from services.timesource import TimeSource

LOOPBACK = UrlPolicy(allow_http=True, allow_loopback=True)


def subscribe(engine: sa.Engine, clock: TimeSource, player_id: str, game_id: str | None = None, **req: Any) -> dict[str, Any]:
    with engine.begin() as conn:
        return manage.set_subscription(
            conn, player_id, game_id, manage.SubscriptionRequest(**req), clock.now(), LOOPBACK
        )


def secret_of(view: dict[str, Any]) -> str:
    return str(view["endpoint"]["secrets"][0]["secret"])

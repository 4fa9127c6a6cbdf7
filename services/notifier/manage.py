"""Use cases behind the REST API: subscriptions, endpoints and their secrets, the delivery log, manual
redelivery and vacation. Plain functions over a connection so the API, tests and operators share them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa

from . import retry
from .settings import UrlPolicy
from .signing import new_secret
from .ssrf import Resolver, check_url, system_resolver
from .tables import (
    DEFAULT_SCOPE,
    attempts,
    deliveries,
    endpoint_secrets,
    endpoints,
    players,
    subscriptions,
)

CHANNELS = ("webhook", "email", "none")
EMAIL_MODES = ("immediate", "daily")


class NotFoundError(LookupError):
    """No such thing for this player (we do not tell apart 'absent' and 'someone else's')."""


class StateError(ValueError):
    """The request is well-formed but the thing is in a state that does not allow it."""


@dataclass(frozen=True)
class SubscriptionRequest:
    channel: str
    url: str | None = None
    format: str = "standard"
    email: str | None = None
    email_mode: str = "immediate"


def _endpoint_view(conn: sa.Connection, endpoint_id: int, now: datetime) -> dict[str, Any]:
    row = conn.execute(sa.select(endpoints).where(endpoints.c.id == endpoint_id)).mappings().one()
    secrets = conn.execute(
        sa.select(endpoint_secrets.c.secret, endpoint_secrets.c.expires_at)
        .where(endpoint_secrets.c.endpoint_id == endpoint_id,
               sa.or_(endpoint_secrets.c.expires_at.is_(None), endpoint_secrets.c.expires_at > now))
        .order_by(endpoint_secrets.c.id.desc())
    ).all()
    return {
        "id": row["id"], "url": row["url"], "format": row["format"], "disabled_at": row["disabled_at"],
        "disabled_reason": row["disabled_reason"],
        "secrets": [{"secret": s, "expires_at": e} for s, e in secrets],
    }


def _subscription_view(conn: sa.Connection, row: Any, now: datetime) -> dict[str, Any]:
    return {
        "game_id": None if row["scope"] == DEFAULT_SCOPE else row["scope"],
        "channel": row["channel"],
        "email": row["email"],
        "email_mode": row["email_mode"],
        "endpoint": _endpoint_view(conn, row["endpoint_id"], now) if row["endpoint_id"] else None,
        "updated_at": row["updated_at"],
    }


def list_subscriptions(conn: sa.Connection, player_id: str, now: datetime) -> list[dict[str, Any]]:
    rows = conn.execute(
        sa.select(subscriptions).where(subscriptions.c.player_id == player_id).order_by(subscriptions.c.scope)
    ).mappings()
    return [_subscription_view(conn, r, now) for r in rows]


def _endpoint_for(conn: sa.Connection, player_id: str, url: str, fmt: str, now: datetime) -> int:
    """Reuse the player's endpoint for the same URL (re-enabling it: saving it again is the fix), else make one."""
    found = conn.execute(
        sa.select(endpoints.c.id).where(endpoints.c.player_id == player_id, endpoints.c.url == url,
                                        endpoints.c.format == fmt)
    ).scalar()
    if found is not None:
        conn.execute(endpoints.update().where(endpoints.c.id == found).values(disabled_at=None, disabled_reason=None))
        return int(found)
    endpoint_id = conn.execute(
        endpoints.insert().values(player_id=player_id, url=url, format=fmt, created_at=now)
    ).inserted_primary_key[0]
    conn.execute(endpoint_secrets.insert().values(endpoint_id=endpoint_id, secret=new_secret(), created_at=now))
    return int(endpoint_id)


def set_subscription(
    conn: sa.Connection,
    player_id: str,
    game_id: str | None,
    req: SubscriptionRequest,
    now: datetime,
    policy: UrlPolicy,
    resolver: Resolver = system_resolver,
) -> dict[str, Any]:
    """Create or replace the subscription for one game (or the default). Raises UnsafeUrl for a bad URL."""
    scope = game_id or DEFAULT_SCOPE
    endpoint_id: int | None = None
    email: str | None = None
    if req.channel == "webhook":
        assert req.url is not None
        check_url(req.url, policy, resolver)
        endpoint_id = _endpoint_for(conn, player_id, req.url.strip(), req.format, now)
    elif req.channel == "email":
        email = req.email
    values = {"channel": req.channel, "endpoint_id": endpoint_id, "email": email, "email_mode": req.email_mode,
              "updated_at": now}
    changed = conn.execute(
        subscriptions.update()
        .where(subscriptions.c.player_id == player_id, subscriptions.c.scope == scope)
        .values(**values)
    ).rowcount
    if not changed:
        conn.execute(subscriptions.insert().values(player_id=player_id, scope=scope, **values))
    row = conn.execute(
        sa.select(subscriptions).where(subscriptions.c.player_id == player_id, subscriptions.c.scope == scope)
    ).mappings().one()
    return _subscription_view(conn, row, now)


def delete_subscription(conn: sa.Connection, player_id: str, game_id: str | None) -> None:
    gone = conn.execute(
        subscriptions.delete().where(subscriptions.c.player_id == player_id,
                                     subscriptions.c.scope == (game_id or DEFAULT_SCOPE))
    ).rowcount
    if not gone:
        raise NotFoundError("no such subscription")


def _own_endpoint(conn: sa.Connection, player_id: str | None, endpoint_id: int) -> None:
    query = sa.select(endpoints.c.id).where(endpoints.c.id == endpoint_id)
    if player_id is not None:
        query = query.where(endpoints.c.player_id == player_id)
    if conn.execute(query).first() is None:
        raise NotFoundError(f"no endpoint {endpoint_id}")


def rotate_secret(
    conn: sa.Connection, player_id: str | None, endpoint_id: int, now: datetime, overlap: timedelta
) -> dict[str, Any]:
    """Add a new secret; the old ones stay valid for `overlap` so receivers can switch without dropping us."""
    _own_endpoint(conn, player_id, endpoint_id)
    expires = now + overlap
    conn.execute(
        endpoint_secrets.update()
        .where(endpoint_secrets.c.endpoint_id == endpoint_id,
               sa.or_(endpoint_secrets.c.expires_at.is_(None), endpoint_secrets.c.expires_at > expires))
        .values(expires_at=expires)
    )
    conn.execute(endpoint_secrets.insert().values(endpoint_id=endpoint_id, secret=new_secret(), created_at=now))
    return _endpoint_view(conn, endpoint_id, now)


def _delivery_view(conn: sa.Connection, row: Any, with_attempts: bool) -> dict[str, Any]:
    view = {k: row[k] for k in ("id", "webhook_id", "endpoint_id", "event_type", "game_id", "status", "attempts",
                                "next_attempt_at", "created_at", "last_status")}
    if with_attempts:
        view["attempt_log"] = [
            dict(a) for a in conn.execute(
                sa.select(attempts.c.attempt, attempts.c.started_at, attempts.c.duration_ms, attempts.c.status_code,
                          attempts.c.outcome, attempts.c.error)
                .where(attempts.c.delivery_id == row["id"]).order_by(attempts.c.attempt)
            ).mappings()
        ]
    return view


def _deliveries_query(player_id: str | None) -> sa.Select[Any]:
    query = sa.select(deliveries).join(endpoints, endpoints.c.id == deliveries.c.endpoint_id)
    return query if player_id is None else query.where(endpoints.c.player_id == player_id)


def list_deliveries(
    conn: sa.Connection, player_id: str | None, limit: int = 50, status: str | None = None
) -> list[dict[str, Any]]:
    query = _deliveries_query(player_id).order_by(deliveries.c.id.desc()).limit(limit)
    if status:
        query = query.where(deliveries.c.status == status)
    return [_delivery_view(conn, r, with_attempts=False) for r in conn.execute(query).mappings()]


def get_delivery(conn: sa.Connection, player_id: str | None, delivery_id: int) -> dict[str, Any]:
    row = conn.execute(_deliveries_query(player_id).where(deliveries.c.id == delivery_id)).mappings().first()
    if row is None:
        raise NotFoundError(f"no delivery {delivery_id}")
    return _delivery_view(conn, row, with_attempts=True)


def redeliver(conn: sa.Connection, player_id: str | None, delivery_id: int, now: datetime) -> dict[str, Any]:
    """Try again now with the same webhook-id and body. A finished delivery gets exactly one more attempt."""
    current = get_delivery(conn, player_id, delivery_id)
    disabled = conn.execute(
        sa.select(endpoints.c.disabled_at).where(endpoints.c.id == current["endpoint_id"])
    ).scalar()
    if disabled is not None:
        raise StateError("the endpoint is disabled; save the subscription again to re-enable it")
    made = current["attempts"] if current["status"] == "pending" else max(current["attempts"], retry.MAX_ATTEMPTS - 1)
    conn.execute(
        deliveries.update().where(deliveries.c.id == delivery_id)
        .values(status="pending", next_attempt_at=now, attempts=made)
    )
    return get_delivery(conn, player_id, delivery_id)


def set_vacation(conn: sa.Connection, player_id: str, until: datetime | None) -> dict[str, Any]:
    changed = conn.execute(
        players.update().where(players.c.player_id == player_id).values(vacation_until=until)
    ).rowcount
    if not changed:
        conn.execute(players.insert().values(player_id=player_id, vacation_until=until))
    return {"player_id": player_id, "vacation_until": until}

"""From a notification to concrete work: webhook deliveries and queued email, by each player's
subscription for that game (falling back to their default). Runs inside the caller's transaction, so the
work is recorded exactly when the tracking position moves past the event that caused it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import sqlalchemy as sa

from shared.eventstore import identity

from . import outbox, payloads, webpush
from .events import Notification
from .settings import NotifierSettings
from .tables import DEFAULT_SCOPE, deliveries, endpoints, mail_queue, subscriptions


@dataclass(frozen=True)
class Scheduled:
    webhooks: int = 0
    emails: int = 0


def webhook_id(source: str, endpoint_id: int) -> str:
    """Stable across restarts and retries: receivers deduplicate on it."""
    return f"msg_{source}_e{endpoint_id}"


def resolve(conn: sa.Connection, players: Iterable[str], game_id: str | None) -> dict[str, Mapping[str, object]]:
    """Each player's effective subscription row: the game's own, else their default."""
    wanted = list(players)
    scopes = [DEFAULT_SCOPE] + ([game_id] if game_id else [])
    rows = conn.execute(
        sa.select(subscriptions).where(subscriptions.c.player_id.in_(wanted), subscriptions.c.scope.in_(scopes))
    ).mappings()
    chosen: dict[str, Mapping[str, object]] = {}
    for row in rows:
        pid = str(row["player_id"])
        if pid not in chosen or row["scope"] != DEFAULT_SCOPE:
            chosen[pid] = row
    return chosen


def next_digest(now: datetime, hour: int) -> datetime:
    at = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    return at if at > now else at + timedelta(days=1)


def schedule(
    conn: sa.Connection,
    n: Notification,
    settings: NotifierSettings,
    now: datetime,
    names: Mapping[str, str] | None = None,
) -> Scheduled:
    if n.game_id is not None:  # a seat handed over: its notices go to whoever holds it now
        holders = holders_of(conn, n.game_id)
        if holders:
            n = replace(n, recipients=tuple(dict.fromkeys(holders.get(p, p) for p in n.recipients)))
    subs = resolve(conn, n.recipients, n.game_id)
    devices = webpush.device_endpoints(conn, n.recipients) if settings.webpush_private_key else {}
    if not subs and not devices:
        return Scheduled()
    if names is None:
        names = outbox.names_of(outbox.seats_of(conn, n.game_id)) if n.game_id else {}
    link = payloads.game_link(settings.public_base_url, n.game_id)
    pushes = _queue_pushes(conn, n, devices, names, f"{settings.public_base_url}/games/{n.game_id}/page"
                           if n.game_id else settings.public_base_url, now)

    by_endpoint: dict[int, list[str]] = {}
    emails = 0
    for pid in n.recipients:
        sub = subs.get(pid)
        if sub is None:
            continue
        if sub["channel"] == "webhook" and sub["endpoint_id"] is not None:
            by_endpoint.setdefault(int(str(sub["endpoint_id"])), []).append(pid)
        elif sub["channel"] == "email" and sub["email"]:
            due = (
                next_digest(now, settings.digest_hour_utc)
                if sub["email_mode"] == "daily"
                else now + timedelta(seconds=settings.mail_batch_seconds)
            )
            emails += _queue_mail(conn, n, pid, str(sub["email"]), names, link, now, due)

    webhooks = 0
    if by_endpoint:
        live = conn.execute(
            sa.select(endpoints.c.id, endpoints.c.format).where(
                endpoints.c.id.in_(list(by_endpoint)), endpoints.c.disabled_at.is_(None)
            )
        ).all()
        for endpoint_id, fmt in live:
            msg_id = webhook_id(n.source, endpoint_id)
            if conn.execute(sa.select(deliveries.c.id).where(deliveries.c.webhook_id == msg_id)).first():
                continue
            body = payloads.render(n, fmt, names, link, by_endpoint[endpoint_id])
            conn.execute(
                deliveries.insert().values(
                    webhook_id=msg_id, endpoint_id=endpoint_id, source=n.source, event_type=n.event_type,
                    game_id=n.game_id, body=body, status="pending", attempts=0, next_attempt_at=now,
                    event_at=n.occurred_at, created_at=now,
                )
            )
            webhooks += 1
    return Scheduled(webhooks + pushes, emails)


def _queue_pushes(conn: sa.Connection, n: Notification, devices: Mapping[str, list[int]],
                  names: Mapping[str, str], link: str, now: datetime) -> int:
    """One delivery per enabled device of each recipient (web push), deduplicated like webhooks."""
    made = 0
    for pid in n.recipients:
        for endpoint_id in devices.get(pid, ()):
            msg_id = webhook_id(n.source, endpoint_id)
            if conn.execute(sa.select(deliveries.c.id).where(deliveries.c.webhook_id == msg_id)).first():
                continue
            one = Notification(n.event_type, n.source, n.game_id, n.title, (pid,), n.occurred_at, n.data)
            conn.execute(deliveries.insert().values(
                webhook_id=msg_id, endpoint_id=endpoint_id, source=n.source, event_type=n.event_type,
                game_id=n.game_id, body=webpush.body(one, names, link), status="pending", attempts=0,
                next_attempt_at=now, event_at=n.occurred_at, created_at=now))
            made += 1
    return made


def _queue_mail(
    conn: sa.Connection,
    n: Notification,
    pid: str,
    address: str,
    names: Mapping[str, str],
    link: str,
    now: datetime,
    due: datetime,
) -> int:
    exists = conn.execute(
        sa.select(mail_queue.c.id).where(
            mail_queue.c.source == n.source, mail_queue.c.player_id == pid, mail_queue.c.address == address
        )
    ).first()
    if exists:
        return 0
    line = payloads.text_line(Notification(n.event_type, n.source, n.game_id, n.title, (pid,), n.occurred_at,
                                           n.data), names)
    conn.execute(
        mail_queue.insert().values(
            player_id=pid, address=address, source=n.source, event_type=n.event_type, game_id=n.game_id,
            line=f"{line}\n  {link}", created_at=now, due_at=due,
        )
    )
    return 1


def holders_of(conn: sa.Connection, game_id: str | int) -> dict[str, str]:
    """Seat player id -> the player id of whoever holds it now, for the seats handed over in this game (as
    text, the notifier's ids; shared/eventstore/identity.py): the notifier sends a seat's notices to its
    holder."""
    return {str(seat): str(holder) for seat, holder in identity.holders(conn, game_id).items()
            if holder is not None}

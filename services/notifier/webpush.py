"""Web push: a turn alert straight to a player's phone or browser, without email or a chat app.

A device opts in from the game page (the browser's push service hands it an endpoint URL and two keys); it
is stored as an endpoint of format "webpush" with its keys as the endpoint's secret, so deliveries, retries,
the attempt log and "410 Gone disables the endpoint" are the webhooks' own. What differs is the request: the
body is encrypted for the device (RFC 8291, aes128gcm) and signed for the push service with the server's
VAPID key (RFC 8292). A device is revoked by the player (or by its push service answering 410 Gone).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from . import payloads
from .events import Notification
from .settings import NotifierSettings
from .ssrf import Resolver, check_url
from .tables import deliveries, endpoint_secrets, endpoints

FORMAT = "webpush"
TTL_SECONDS = 24 * 3600  # a turn alert older than a day is news no more


class PushNotConfigured(Exception):
    """The server has no VAPID key: web push is off."""


def _vapid(settings: NotifierSettings) -> Any:
    from py_vapid import Vapid

    if not settings.webpush_private_key:
        raise PushNotConfigured("web push is off on this server (no WEBPUSH_VAPID_PRIVATE_KEY)")
    return Vapid.from_pem(settings.webpush_private_key.encode())


def ensure_vapid_key(env: dict[str, str], var_dir: Path) -> str:
    """The embedded default's VAPID key: WEBPUSH_VAPID_PRIVATE_KEY if set, else one kept in
    `var/webpush-vapid.pem` (made once), so devices subscribed before a restart keep receiving."""
    if env.get("WEBPUSH_VAPID_PRIVATE_KEY"):
        return env["WEBPUSH_VAPID_PRIVATE_KEY"]
    from py_vapid import Vapid

    path = var_dir / "webpush-vapid.pem"
    if not path.exists():
        var_dir.mkdir(parents=True, exist_ok=True)
        made = Vapid()
        made.generate_keys()
        path.write_bytes(made.private_pem())
        path.chmod(0o600)
    env["WEBPUSH_VAPID_PRIVATE_KEY"] = path.read_text()
    return env["WEBPUSH_VAPID_PRIVATE_KEY"]


def public_key(settings: NotifierSettings) -> str:
    """The application server key a browser subscribes with: the VAPID public key, uncompressed, base64url."""
    from cryptography.hazmat.primitives import serialization

    point = _vapid(settings).public_key.public_bytes(serialization.Encoding.X962,
                                                     serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(point).decode().rstrip("=")


def register(conn: sa.Connection, player_id: str, subscription: Mapping[str, Any], now: datetime,
             settings: NotifierSettings, resolver: Resolver) -> int:
    """Store a device (its endpoint checked like any webhook URL); the same endpoint again is the same device,
    enabled again with its new keys."""
    url = str(subscription["endpoint"])
    check_url(url, settings.url_policy, resolver)
    keys = {"p256dh": str(subscription["keys"]["p256dh"]), "auth": str(subscription["keys"]["auth"])}
    found = conn.execute(sa.select(endpoints.c.id).where(endpoints.c.player_id == player_id, endpoints.c.url == url,
                                                         endpoints.c.format == FORMAT)).scalar()
    if found is None:
        found = conn.execute(endpoints.insert().values(player_id=player_id, url=url, format=FORMAT,
                                                       created_at=now).returning(endpoints.c.id)).scalar_one()
    else:
        conn.execute(endpoints.update().where(endpoints.c.id == found).values(disabled_at=None, disabled_reason=None))
        conn.execute(endpoint_secrets.delete().where(endpoint_secrets.c.endpoint_id == found))
    conn.execute(endpoint_secrets.insert().values(endpoint_id=found, secret=json.dumps(keys), created_at=now))
    return int(found)


def devices(conn: sa.Connection, player_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(sa.select(endpoints).where(endpoints.c.player_id == player_id, endpoints.c.format == FORMAT)
                        .order_by(endpoints.c.id)).mappings()
    return [{"id": r["id"], "push_service": urlsplit(str(r["url"])).hostname, "created_at": r["created_at"],
             "disabled_at": r["disabled_at"], "disabled_reason": r["disabled_reason"]} for r in rows]


def revoke(conn: sa.Connection, player_id: str, device_id: int, now: datetime) -> bool:
    done = conn.execute(endpoints.update().where(endpoints.c.id == device_id, endpoints.c.player_id == player_id,
                                                 endpoints.c.format == FORMAT)
                        .values(disabled_at=now, disabled_reason="revoked by the player"))
    conn.execute(deliveries.update().where(deliveries.c.endpoint_id == device_id, deliveries.c.status == "pending")
                 .values(status="cancelled", next_attempt_at=None))
    return bool(done.rowcount)


def device_endpoints(conn: sa.Connection, players: Sequence[str]) -> dict[str, list[int]]:
    """The enabled devices of each player."""
    rows = conn.execute(sa.select(endpoints.c.id, endpoints.c.player_id).where(
        endpoints.c.player_id.in_(list(players)), endpoints.c.format == FORMAT, endpoints.c.disabled_at.is_(None)))
    out: dict[str, list[int]] = {}
    for endpoint_id, pid in rows:
        out.setdefault(str(pid), []).append(int(endpoint_id))
    return out


def body(n: Notification, names: Mapping[str, str], link: str) -> str:
    """What the page's service worker shows: a title, a line, and where a tap leads."""
    title = f"Railpost · {n.title or 'a game'}" + (f" {n.game_id}" if n.game_id else "")
    return json.dumps({"title": title, "body": payloads.text_line(n, names), "url": link, "tag": f"game-{n.game_id}"})


def request(settings: NotifierSettings, url: str, keys_json: str, plain: str) -> tuple[bytes, dict[str, str]]:
    """The encrypted body and the headers of one push (the transport posts them like a webhook)."""
    from pywebpush import WebPusher

    keys = json.loads(keys_json)
    encoded = WebPusher({"endpoint": url, "keys": keys}).encode(plain.encode(), "aes128gcm")
    parts = urlsplit(url)
    claims = {"aud": f"{parts.scheme}://{parts.netloc}", "sub": settings.webpush_subject}
    headers = dict(_vapid(settings).sign(claims))
    headers.update({"Content-Encoding": "aes128gcm", "Content-Type": "application/octet-stream",
                    "TTL": str(TTL_SECONDS), "Urgency": "normal"})
    return bytes(encoded["body"]), headers

"""Sends due webhook deliveries and records every attempt.

A delivery is claimed by pushing its `next_attempt_at` one lease into the future and committing before any
network I/O; if the process dies mid-request the lease expires and the same delivery (same webhook-id, same
body) is tried again. That is the at-least-once half of the contract; receivers deduplicate on webhook-id.
"""

from __future__ import annotations

import http.client
import logging
import random
import threading
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import sqlalchemy as sa

from services.timesource import TimeSource

from . import retry, signing, transport, webpush
from .settings import NotifierSettings
from .ssrf import Resolver, UnsafeUrl, check_url, system_resolver
from .tables import attempts, deliveries, endpoint_secrets, endpoints

log = logging.getLogger(__name__)
CLAIM_AHEAD = 4


@dataclass(frozen=True)
class Claim:
    delivery_id: int
    webhook_id: str
    endpoint_id: int
    url: str
    body: str
    attempts: int
    secrets: tuple[str, ...]
    format: str = "standard"


@dataclass(frozen=True)
class AttemptResult:
    started_at: datetime
    duration_ms: int
    status: int | None
    retry_after: str | None
    error: str | None


def live_secrets(conn: sa.Connection, endpoint_id: int, now: datetime) -> tuple[str, ...]:
    rows = conn.execute(
        sa.select(endpoint_secrets.c.secret)
        .where(
            endpoint_secrets.c.endpoint_id == endpoint_id,
            sa.or_(endpoint_secrets.c.expires_at.is_(None), endpoint_secrets.c.expires_at > now),
        )
        .order_by(endpoint_secrets.c.id.desc())
    )
    return tuple(rows.scalars().all())


@dataclass
class WebhookSender:
    engine: sa.Engine
    settings: NotifierSettings
    timesource: TimeSource
    resolver: Resolver = system_resolver
    opener: transport.SocketOpener = transport.open_socket
    rng: random.Random = field(default_factory=random.Random)
    _inflight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    finished: threading.Event = field(default_factory=threading.Event)  # set when a worker frees up

    def claim_due(self, limit: int) -> list[Claim]:
        now = self.timesource.now()
        lease = now + timedelta(seconds=self.settings.claim_lease)
        with self.engine.begin() as conn:
            rows = conn.execute(
                sa.select(deliveries.c.id, deliveries.c.webhook_id, deliveries.c.endpoint_id, deliveries.c.body,
                          deliveries.c.attempts, endpoints.c.url, endpoints.c.format)
                .join(endpoints, endpoints.c.id == deliveries.c.endpoint_id)
                .where(deliveries.c.status == "pending", deliveries.c.next_attempt_at <= now,
                       endpoints.c.disabled_at.is_(None))
                .order_by(deliveries.c.next_attempt_at)
                .limit(limit)
                .with_for_update(skip_locked=True, of=deliveries)
            ).all()
            if not rows:
                return []
            conn.execute(
                deliveries.update().where(deliveries.c.id.in_([r.id for r in rows])).values(next_attempt_at=lease)
            )
            return [
                Claim(r.id, r.webhook_id, r.endpoint_id, r.url, r.body, r.attempts,
                      live_secrets(conn, r.endpoint_id, now), r.format)
                for r in rows
            ]

    def attempt(self, claim: Claim) -> AttemptResult:
        """The network half: no database access, so a slow receiver holds no transaction open."""
        started = self.timesource.now()
        status: int | None = None
        retry_after: str | None = None
        error: str | None = None
        elapsed = 0.0
        try:
            target = check_url(claim.url, self.settings.url_policy, self.resolver)
            if claim.format == webpush.FORMAT:  # encrypted for the device, signed for its push service
                try:
                    body, headers = webpush.request(self.settings, claim.url, claim.secrets[0], claim.body)
                except Exception as exc:  # keys a browser sent that do not encrypt, or web push turned off
                    raise UnsafeUrl(f"cannot push to this device: {exc}") from exc
            else:
                body = claim.body.encode()
                headers = signing.headers(claim.secrets, claim.webhook_id, started, claim.body)
            resp = transport.post(
                target, body, headers, connect_timeout=self.settings.connect_timeout,
                read_timeout=self.settings.read_timeout, opener=self.opener,
            )
            status, elapsed = resp.status, resp.elapsed
            retry_after = resp.headers.get("retry-after")
            if 300 <= status < 400:
                error = "redirect not followed"
        except UnsafeUrl as exc:
            error = f"refused: {exc}"
        except (OSError, http.client.HTTPException) as exc:
            error = f"{type(exc).__name__}: {exc}"[:500]
        return AttemptResult(started, int(elapsed * 1000), status, retry_after, error)

    def record(self, claim: Claim, result: AttemptResult) -> str:
        """Store the attempt and decide what happens next; returns the delivery's new status."""
        now = self.timesource.now()
        verdict = retry.judge(result.status, result.retry_after, now)
        made = claim.attempts + 1
        with self.engine.begin() as conn:
            conn.execute(
                attempts.insert().values(
                    delivery_id=claim.delivery_id, attempt=made, started_at=result.started_at,
                    duration_ms=result.duration_ms, status_code=result.status, outcome=verdict.outcome,
                    error=result.error,
                )
            )
            values: dict[str, object] = {"attempts": made, "last_status": result.status}
            if verdict.outcome == "success":
                values.update(status="succeeded", next_attempt_at=None)
            elif verdict.outcome == "gone":
                values.update(status="cancelled", next_attempt_at=None)
                self._disable(conn, claim.endpoint_id, "receiver answered 410 Gone", now)
            else:
                delay = retry.next_delay(made, self.rng)
                if delay is None:
                    values.update(status="failed", next_attempt_at=None)
                else:
                    delay = max(delay, verdict.wait or 0.0)
                    values.update(next_attempt_at=now + timedelta(seconds=delay))
            conn.execute(deliveries.update().where(deliveries.c.id == claim.delivery_id).values(**values))
            return str(values.get("status", "pending"))

    @staticmethod
    def _disable(conn: sa.Connection, endpoint_id: int, reason: str, now: datetime) -> None:
        conn.execute(
            endpoints.update().where(endpoints.c.id == endpoint_id).values(disabled_at=now, disabled_reason=reason)
        )
        conn.execute(
            deliveries.update()
            .where(deliveries.c.endpoint_id == endpoint_id, deliveries.c.status == "pending")
            .values(status="cancelled", next_attempt_at=None)
        )

    def deliver(self, claim: Claim) -> str:
        try:
            return self.record(claim, self.attempt(claim))
        except Exception:  # the lease expires and the delivery is retried; never kill the worker thread
            log.exception("delivery %s failed unexpectedly", claim.webhook_id)
            return "error"

    def deliver_due(self, limit: int = 100) -> int:
        """Synchronously attempt everything due now (tests and the benchmark drive this with a virtual time source)."""
        claims = self.claim_due(limit)
        for claim in claims:
            self.deliver(claim)
        return len(claims)

    def pump(self, executor: Executor) -> int:
        """Hand due deliveries to worker threads without waiting. Claims are made a few per worker at a time
        (one commit for many) but bounded, so a slow receiver cannot make us lease the whole backlog."""
        with self._lock:
            free = self.settings.delivery_workers * CLAIM_AHEAD - self._inflight
        if free <= 0:
            return 0
        claims = self.claim_due(free)
        for claim in claims:
            with self._lock:
                self._inflight += 1
            executor.submit(self._run, claim)
        return len(claims)

    def _run(self, claim: Claim) -> None:
        try:
            self.deliver(claim)
        finally:
            with self._lock:
                self._inflight -= 1
            self.finished.set()

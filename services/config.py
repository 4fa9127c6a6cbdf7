"""All service configuration, read from the environment in this one place (12-factor): every process —
gateway, rules worker, run script, tests — builds a `Config` here and passes it down, never reading
`os.environ` itself."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

DEFAULT_SQLITE = "sqlite:///" + str(Path("var") / "railpost.sqlite3")


def public_url(env: Mapping[str, str]) -> str:
    """The URL players reach the gateway at, for links in answers and notifications: PUBLIC_URL, else
    the local address the gateway listens on (PORT). One rule for the gateway and the notifier process."""
    return (env.get("PUBLIC_URL") or f"http://127.0.0.1:{env.get('PORT') or '8000'}").rstrip("/")


@dataclass(frozen=True)
class Config:
    database_url: str = DEFAULT_SQLITE
    redis_url: str | None = None  # None: embedded in-process queue instead of Celery
    port: int = 8000
    host: str = "127.0.0.1"  # where the gateway listens; HOST=0.0.0.0 to accept other machines
    admin_token: str | None = None
    signin_secret: str = ""  # HMAC key of sign-in links (SIGNIN_SECRET, else the email-moves MAILIN_SECRET)
    doorbell_secret: str = ""  # HMAC key of commands carried by doorbells (DOORBELL_SECRET, else DATABASE_URL)
    public_url: str = "http://127.0.0.1:8000"
    max_body_bytes: int = 256 * 1024
    max_import_bytes: int = 16 * 1024 * 1024
    max_wait_seconds: float = 10.0
    snapshot_every: int = 50  # a cold game catches up at most 49 events after its snapshot (docs/performance.md)
    sweep_after_seconds: float = 10.0  # a receipt queued this long is re-published
    sweep_interval_seconds: float = 5.0
    celery_queue: str = "railpost"
    broker_ack_emulation: bool = False  # Redis-side unacked tracking; the sweep covers lost tasks without it
    worker_shards: int = 1  # >1: games are routed to queues `<celery_queue>.<game_id % shards>`, one worker each
    worker_threads: int = 4  # thread pool of each shard worker (`services.run`)
    db_pool_size: int = 8
    db_timeout: float = 5.0  # seconds a request waits for a database connection before answering 503
    session_cache_size: int = 256
    log_level: str = "INFO"
    web_concurrency: int = 0  # gunicorn workers; 0: 2 per core (1 in embedded mode)
    web_threads: int = 16  # gunicorn threads per worker
    metrics_dir: str = str(Path("var") / "prometheus")
    test_sleep_before_commit: float = 0.0  # test hook: widen the window for killing a worker mid-task

    @property
    def embedded(self) -> bool:
        """No broker configured: the gateway applies commands itself on a background thread."""
        return not self.redis_url

    @property
    def doorbell_key(self) -> bytes:
        """The key a gateway signs a doorbell's unstored command with, and the rules worker checks it by
        (`services.play.dispatch.doorbell_receipt`): DOORBELL_SECRET, else made from the store's address,
        which both hold, so only a process that could have stored the command itself can hand one over
        through Redis. Hosts that name the store differently must share a DOORBELL_SECRET."""
        secret = self.doorbell_secret or self.database_url
        return hashlib.sha256(b"railpost doorbell\0" + secret.encode()).digest()

    def queue_for(self, game_id: int) -> str:
        """The Celery queue of one game. With `worker_shards` > 1 each game always lands on the same shard
        queue, consumed by one worker process, so that process's session cache stays hot for the game (no
        reload or catch-up between two of its commands). Order and exactly-once never depend on this: they
        come from the game's row lock and the queued receipts."""
        if self.worker_shards <= 1:
            return self.celery_queue
        return f"{self.celery_queue}.{game_id % self.worker_shards}"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        env = os.environ if env is None else env
        port = int(env.get("PORT", "8000"))

        def num(name: str, default: Any, kind: type = float) -> Any:
            return kind(env[name]) if env.get(name) else default

        return cls(
            database_url=env.get("DATABASE_URL") or DEFAULT_SQLITE,
            redis_url=env.get("REDIS_URL") or None,
            port=port,
            host=env.get("HOST") or cls.host,
            admin_token=env.get("ADMIN_TOKEN") or None,
            signin_secret=env.get("SIGNIN_SECRET") or env.get("MAILIN_SECRET") or "",
            doorbell_secret=env.get("DOORBELL_SECRET") or "",
            public_url=public_url(env),
            max_body_bytes=num("MAX_BODY_BYTES", cls.max_body_bytes, int),
            max_import_bytes=num("MAX_IMPORT_BYTES", cls.max_import_bytes, int),
            max_wait_seconds=num("MAX_WAIT_SECONDS", cls.max_wait_seconds),
            snapshot_every=num("SNAPSHOT_EVERY", cls.snapshot_every, int),
            sweep_after_seconds=num("SWEEP_AFTER_SECONDS", cls.sweep_after_seconds),
            sweep_interval_seconds=num("SWEEP_INTERVAL_SECONDS", cls.sweep_interval_seconds),
            celery_queue=env.get("CELERY_QUEUE") or cls.celery_queue,
            worker_shards=num("WORKER_SHARDS", cls.worker_shards, int),
            worker_threads=num("WORKER_THREADS", cls.worker_threads, int),
            broker_ack_emulation=(env.get("BROKER_ACK_EMULATION") or "").lower() in ("1", "true", "yes"),
            db_pool_size=num("DB_POOL_SIZE", cls.db_pool_size, int),
            db_timeout=num("DB_TIMEOUT", cls.db_timeout),
            session_cache_size=num("SESSION_CACHE_SIZE", cls.session_cache_size, int),
            log_level=env.get("LOG_LEVEL") or cls.log_level,
            web_concurrency=num("WEB_CONCURRENCY", 0, int),
            web_threads=num("WEB_THREADS", cls.web_threads, int),
            metrics_dir=env.get("PROMETHEUS_MULTIPROC_DIR") or cls.metrics_dir,
            test_sleep_before_commit=num("RAILPOST_TEST_SLEEP_BEFORE_COMMIT", 0.0),
        )

    def with_(self, **changes: Any) -> Config:
        return replace(self, **changes)

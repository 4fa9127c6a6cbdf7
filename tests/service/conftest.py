"""Real backing services for the service tests: a fresh PostgreSQL database per session (dropped at the end),
a dedicated Redis database, and helpers to start real Celery workers and a real HTTP gateway."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis

from services.config import Config
from shared.eventstore import migrate

ROOT = Path(__file__).resolve().parents[2]
PG_ADMIN = os.environ.get("RAILPOST_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_BASE = os.environ.get("RAILPOST_TEST_REDIS", "redis://127.0.0.1:6379")
# Service tests own Redis DBs 5..9, one per pytest-xdist worker (gw0 → 5, gw1 → 6, ...): each worker flushes
# its own at its start and end. A plain `pytest` is one process and takes 5; 8 is `make fuzz`'s (bench/fuzz.py).
REDIS_DBS = (5, 6, 7, 9)
ADMIN_TOKEN = "test-admin-token"


def _pg_url(name: str) -> str:
    return PG_ADMIN.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    name = f"railpost_t_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = _pg_url(name)
    migrate(url)
    yield url
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def redis_db() -> int:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")  # set by pytest-xdist in each worker
    index = int(worker.removeprefix("gw"))
    assert index < len(REDIS_DBS), f"{worker}: the service tests have Redis DBs for {len(REDIS_DBS)} workers"
    return REDIS_DBS[index]


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    url = f"{REDIS_BASE}/{redis_db()}"
    client = redis.Redis.from_url(url)
    client.flushdb()
    yield url
    client.flushdb()


@pytest.fixture(scope="session")
def service_config(pg_url: str, redis_url: str) -> Config:
    return Config(
        database_url=pg_url,
        redis_url=redis_url,
        admin_token=ADMIN_TOKEN,
        celery_queue=f"railpost-test-{secrets.token_hex(3)}",
        sweep_after_seconds=2.0,
        sweep_interval_seconds=1.0,
        max_body_bytes=64 * 1024,
        snapshot_every=50,
    )


def worker_env(config: Config, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DATABASE_URL=config.database_url,
        REDIS_URL=config.redis_url or "",
        CELERY_QUEUE=config.celery_queue,
        SWEEP_AFTER_SECONDS=str(config.sweep_after_seconds),
        SWEEP_INTERVAL_SECONDS=str(config.sweep_interval_seconds),
        SNAPSHOT_EVERY=str(config.snapshot_every),
        LOG_LEVEL="WARNING",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
    )
    env.update(extra)
    return env


class WorkerProcess:
    """A real `celery worker` (with its beat scheduler for the redelivery sweep) in its own process group."""

    def __init__(self, config: Config, concurrency: int = 2, **env: str) -> None:
        celery = shutil.which("celery", path=str(Path(sys.executable).parent)) or "celery"
        self.proc = subprocess.Popen(
            [celery, "-A", "services.rules_worker.celery_app", "worker", "--beat", "-Q", config.celery_queue,
             "-c", str(concurrency), "--pool", "prefork", "-l", "WARNING", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "-s", f"/tmp/railpost-beat-{secrets.token_hex(3)}"],
            cwd=ROOT, env=worker_env(config, **env), start_new_session=True,
        )

    def kill(self) -> None:
        """SIGKILL the whole process group: no warm shutdown, no acks, open transactions die with it."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_consuming(redis_url: str, timeout: float = 90.0) -> None:
    """Until a Celery worker blocks on the queues of this Redis DB (BRPOP, as kombu's Redis transport
    consumes): a test's first move must not wait out its long-poll while the worker is still starting, as it
    does for many seconds on a busy machine with another test process starting one beside it."""
    client = redis.Redis.from_url(redis_url)
    db = str(client.connection_pool.connection_kwargs.get("db", 0))
    wait_until(lambda: any(c.get("db") == db and c.get("cmd") == "brpop" for c in client.client_list()),
               timeout=timeout, interval=0.2)


@pytest.fixture(scope="session")
def worker(service_config: Config) -> Iterator[WorkerProcess]:
    proc = WorkerProcess(service_config)
    wait_consuming(service_config.redis_url or "")
    yield proc
    proc.stop()


class LiveServer:
    """The gateway over real HTTP (werkzeug, threaded) so concurrency and body limits behave as deployed."""

    def __init__(self, app: Any) -> None:
        from werkzeug.serving import make_server

        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()


@pytest.fixture(scope="session")
def gateway(service_config: Config) -> Iterator[LiveServer]:
    from services.gateway import create_app

    server = LiveServer(create_app(service_config))
    yield server
    server.stop()


def wait_until(predicate: Any, timeout: float = 20.0, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not met in time")

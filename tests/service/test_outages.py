"""A database or queue that cannot be reached is an outage: 503 with Retry-After in the common error shape,
never a 500, and nothing half-done that a retry with the same Idempotency-Key would double. (The fault run,
tests/service/test_fault_run.py, restarts the real servers; here they are simply unreachable.)"""

from __future__ import annotations

import socket
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from services.config import Config
from services.gateway import create_app
from shared.eventstore import migrate

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess, wait_until
from .helpers import Api, as_submitted, load_record


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once the socket is closed


def assert_unavailable(reply: object) -> None:
    status, body, headers = reply.status_code, reply.get_json(), reply.headers  # type: ignore[attr-defined]
    assert status == 503, (status, body)
    assert body["error"] == "service_unavailable" and body["message"]
    assert int(headers["Retry-After"]) > 0


def test_database_unreachable_is_503(service_config: Config) -> None:
    config = service_config.with_(database_url=f"postgresql://postgres@127.0.0.1:{closed_port()}/none",
                                  db_timeout=1.0)
    client = create_app(config).test_client()
    started = time.monotonic()
    for method, path, body in [("GET", "/games/1", None), ("GET", "/games", None),
                               ("POST", "/games", {"title": "1840", "seats": 2}),
                               ("POST", "/players", {"name": "Ann"}), ("GET", "/healthz", None)]:
        assert_unavailable(client.open(path, method=method, json=body))
    assert time.monotonic() - started < 30  # each waits about db_timeout, not the pool's default 30 s


def test_queue_unreachable_is_503_and_the_retry_is_applied_once(gateway: LiveServer, worker: WorkerProcess,
                                                               service_config: Config) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    first = as_submitted(record["actions"][0])
    cut_off = create_app(service_config.with_(redis_url=f"redis://127.0.0.1:{closed_port()}/5")).test_client()
    key = uuid.uuid4().hex
    headers = {"Authorization": f"Bearer {tokens[first['entity']]}", "Idempotency-Key": key}
    body = {"action": first, "expected_version": 0}
    assert_unavailable(cut_off.post(f"/games/{game_id}/actions", json=body, headers=headers))
    # the client retries with the same key once the queue is back: one command, applied once
    reply = api.act(game_id, tokens[first["entity"]], first, 0, key=key)
    assert reply.status_code in (200, 202), reply.text
    wait_until(lambda: api.call("GET", f"/games/{game_id}/state").json()["version"] == 1, timeout=30)
    events = api.call("GET", f"/games/{game_id}/events").json()["events"]
    assert [e["version"] for e in events] == [1]


def test_embedded_database_locked_is_503_and_clears(tmp_path: Path) -> None:
    """SQLite held by another writer longer than DB_TIMEOUT: 503, and the next request after it is served."""
    url = f"sqlite:///{tmp_path / 'locked.sqlite3'}"
    migrate(url)
    client = create_app(Config(database_url=url, admin_token=ADMIN_TOKEN, db_timeout=1.0)).test_client()
    holder = sqlite3.connect(str(tmp_path / "locked.sqlite3"), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock, held
    try:
        assert_unavailable(client.post("/players", json={"name": "Ann"}))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert client.post("/players", json={"name": "Ann"}).status_code == 201


@contextmanager
def recorder_with_two_connections(prefix: str) -> Iterator[tuple[Any, Callable[[], None]]]:
    """A recorder on a database of its own whose pool holds two connections, and a way to kill every session
    of that database as a server restart does. (A database of its own: killing the sessions of the shared
    test database would hit the other tests' gateway too.)"""
    import secrets

    import psycopg

    from shared.eventstore.postgres import PostgresRecorder

    from .conftest import PG_ADMIN, _pg_url

    database = f"{prefix}_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{database}"')
    migrate(_pg_url(database))
    recorder = PostgresRecorder(_pg_url(database), max_size=2, timeout=10.0)

    def kill() -> None:
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:  # what a restart does to every session
            killed = admin.execute("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                   "WHERE datname = %s AND pid <> pg_backend_pid()) t", [database]).fetchone()
        assert killed and killed[0] >= 2

    try:
        with recorder._pool.connection(), recorder._pool.connection():  # the pool now holds two
            pass
        yield recorder, kill
    finally:
        recorder.close()
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def test_connections_a_server_restart_broke_are_replaced_before_use() -> None:
    """After PostgreSQL comes back, the next request is served: a pooled connection the restart killed is
    found dead as it leaves the pool and replaced, rather than failing the request that drew it."""
    with recorder_with_two_connections("railpost_t_kill") as (recorder, kill):
        kill()
        for n in range(3):  # each of these would have met a dead connection before
            assert recorder.create_player(f"after restart {n}", None).name == f"after restart {n}"


def test_a_killed_connection_the_check_missed_is_replaced_at_its_begin(monkeypatch) -> None:
    """The pool's check cannot see a kill whose notice has not reached the socket yet (a restart's race):
    such a connection fails its BEGIN, before anything was done on it, and the write is served on another
    connection instead of failing. The check is made blind here, so every killed connection gets that far."""
    from shared.eventstore import postgres

    with recorder_with_two_connections("railpost_t_begin") as (recorder, kill):
        monkeypatch.setattr(postgres, "heard_from_server", lambda conn: False)
        kill()
        time.sleep(0.3)  # the kills have landed; the blind check lets both dead connections out
        for n in range(3):
            assert recorder.create_player(f"after kill {n}", None).name == f"after kill {n}"

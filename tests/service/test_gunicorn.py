"""The gateway as deployed: gunicorn with `infra/gunicorn.conf.py` (two workers of gthread's kind,
services/server.py) on PostgreSQL and Redis, with a real Celery worker. The other service tests serve the same app with werkzeug; this one proves
the deployed server handles concurrent long-polls, races and database work."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from services.config import Config

from .conftest import ADMIN_TOKEN, ROOT, WorkerProcess, wait_until, worker_env
from .helpers import Api, as_submitted, load_record, race_first_move


@pytest.fixture(scope="module")
def gunicorn_url(service_config: Config, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tmp = tmp_path_factory.mktemp("gunicorn")
    log = tmp / "gunicorn.log"
    env = worker_env(service_config, PORT=str(port), ADMIN_TOKEN=ADMIN_TOKEN, WEB_CONCURRENCY="2",
                     LOG_LEVEL="INFO", PROMETHEUS_MULTIPROC_DIR=str(tmp / "metrics"),
                     MAX_BODY_BYTES=str(service_config.max_body_bytes))
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent)) or "gunicorn"
    with log.open("w") as out:
        proc = subprocess.Popen([gunicorn, "-c", str(ROOT / "infra" / "gunicorn.conf.py")], cwd=ROOT, env=env,
                                start_new_session=True, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            return requests.get(f"{url}/healthz", timeout=2).ok
        except requests.RequestException:
            return False

    try:
        wait_until(healthy, timeout=30, interval=0.2)
        assert "Using worker: services.server.LingeringThreadWorker" in log.read_text(), log.read_text()
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


def test_twenty_racers_one_winner_on_gunicorn(gunicorn_url: str, worker: WorkerProcess) -> None:
    codes, versions = race_first_move(gunicorn_url, ADMIN_TOKEN)
    assert codes == [200] + [409] * 19
    assert versions == [1]


def test_games_played_side_by_side_through_long_polls(gunicorn_url: str, worker: WorkerProcess) -> None:
    """Four games at once, each action long-polled to its outcome: every one is applied in order."""
    record = load_record()
    moves = 25
    failures: list[str] = []

    def play() -> None:
        api = Api(gunicorn_url, ADMIN_TOKEN)
        game_id, tokens = api.seated_game(record)
        for version, recorded in enumerate(record["actions"][:moves]):
            actor = api.actor(game_id, recorded)
            reply = api.act(game_id, tokens[actor], as_submitted(recorded, actor), version,
                            key=uuid.uuid4().hex)
            if reply.status_code != 200 or reply.json().get("new_version") != version + 1:
                failures.append(f"game {game_id} v{version}: {reply.status_code} {reply.text[:200]}")
                return
        events = api.call("GET", f"/games/{game_id}/events").json()["events"]
        if [e["version"] for e in events] != list(range(1, moves + 1)):
            failures.append(f"game {game_id}: versions {[e['version'] for e in events]}")

    threads = [threading.Thread(target=play) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_kept_alive_connections_are_served_back_to_back_and_after_a_pause(gunicorn_url: str) -> None:
    """services/server.py: a request right behind the last one is served by the lingering thread, one after a
    pause longer than the linger by the poller, and a connection closed while lingering costs nothing."""
    import time

    from services.server import LINGER_SECONDS

    with requests.Session() as http:
        for pause in (0.0, 0.0, LINGER_SECONDS * 3, 0.0, LINGER_SECONDS * 3):
            time.sleep(pause)
            assert http.get(f"{gunicorn_url}/healthz", timeout=10).ok
    with socket.create_connection(("127.0.0.1", int(gunicorn_url.rsplit(":", 1)[1]))) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
    assert requests.get(f"{gunicorn_url}/healthz", timeout=10).ok


def _raw(url: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(request)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def test_the_servers_own_errors_are_json(gunicorn_url: str) -> None:
    """What gunicorn refuses before the app sees it answers in the one error shape (services/server.py)."""
    cases = {
        414: b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",  # request line past limit_request_line
        431: b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n",  # one header too big
        400: b"G@T /healthz HTTP/1.1\r\nHost: x\r\n\r\n",  # no such method token
    }
    for status, request in cases.items():
        code, headers, body = _raw(gunicorn_url, request)
        assert code == status, (code, body[:200])
        assert headers["content-type"] == "application/json"
        answer = json.loads(body)
        assert set(answer) == {"error", "message"} and answer["message"], answer
    too_many = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(200)) + b"\r\n"
    code, headers, body = _raw(gunicorn_url, too_many)
    assert code == 431 and json.loads(body)["error"] == "request_header_fields_too_large"
    # a well-formed method the app does not route is the app's own 405, in the same shape
    reply = requests.request("PATCH", f"{gunicorn_url}/healthz", timeout=10)
    assert reply.status_code == 405 and reply.json()["error"] == "method_not_allowed"

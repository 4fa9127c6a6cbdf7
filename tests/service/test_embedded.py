"""The embedded default: SQLite and the gateway's in-process queue, no Redis, no Celery."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import requests

from services.config import Config
from services.gateway import create_app

from .conftest import ROOT, wait_until
from .helpers import as_submitted, load_record


# services.run keeps its secret and VAPID key in the checkout's var/ (created on first use): the tests that
# start it share that folder, so they run in one xdist worker, one after the other
@pytest.mark.xdist_group("services-run-var")
def test_run_script_serves_on_a_bare_machine(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(PORT=str(port), DATABASE_URL=f"sqlite:///{tmp_path / 'run.sqlite3'}",
               PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "services.run"], cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert "Railpost listening on" in (proc.stdout.readline() if proc.stdout else "")

        def healthy() -> bool:
            try:
                return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).json()["queue"] == "embedded"
            except requests.RequestException:
                return False

        wait_until(healthy, timeout=30, interval=0.2)
        assert requests.get(f"http://127.0.0.1:{port}/metrics", timeout=5).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_embedded_queue_plays_in_order(tmp_path: Path) -> None:
    """Needs the rules engine."""
    from shared.eventstore import migrate

    url = f"sqlite:///{tmp_path / 'embedded.sqlite3'}"
    migrate(url)
    config = Config(database_url=url, redis_url=None, admin_token="adm", snapshot_every=10,
                    sweep_interval_seconds=0.5)
    client = create_app(config).test_client()
    admin = {"Authorization": "Bearer adm"}
    record = load_record()
    made = client.post("/games", json={"undo": "free", "title": record["title"], "seats": 2, "seed": record["settings"]["seed"],
                                       "options": record["settings"]["optional_rules"]})
    assert made.status_code == 201, made.json
    game_id = made.json["id"]
    tokens = {}
    for seat, player in enumerate(record["players"]):
        joined = client.post(f"/games/{game_id}/join", headers=admin,
                             json={"name": player["name"], "seat": seat, "player_id": player["id"]})
        tokens[player["id"]] = joined.json["token"]
    assert client.post(f"/games/{game_id}/start", headers=admin).status_code == 200
    played = 0
    for version, action in enumerate(record["actions"][:40]):
        if action["type"] in ("undo", "redo", "message") or action.get("entity_type") != "player":
            break
        reply = client.post(f"/games/{game_id}/actions?wait=10", json={"action": as_submitted(action, action["entity"]),
                            "expected_version": version},
                            headers={"Authorization": f"Bearer {tokens[action['entity']]}",
                                     "Idempotency-Key": uuid.uuid4().hex})
        assert reply.status_code == 200, reply.json
        assert reply.json["new_version"] == version + 1
        played += 1
    events = client.get(f"/games/{game_id}/events").json["events"]
    assert [e["version"] for e in events] == list(range(1, played + 1)) and played >= 3


def test_links_follow_public_url_or_port_and_the_gateway_binds_loopback() -> None:
    """Notification and answer links use PUBLIC_URL, else the port the gateway serves; the embedded default
    listens on 127.0.0.1 unless HOST says otherwise."""
    import runpy

    from services.notifier.payloads import game_link
    from services.notifier.settings import NotifierSettings

    for env, base in [({"PORT": "9123"}, "http://127.0.0.1:9123"), ({}, "http://127.0.0.1:8000"),
                      ({"PORT": "9123", "PUBLIC_URL": "https://rail.example/"}, "https://rail.example")]:
        assert Config.from_env(env).public_url == base
        assert NotifierSettings.from_env(env).public_base_url == base
        assert game_link(NotifierSettings.from_env(env).public_base_url, "12") == f"{base}/games/12"
    assert Config.from_env({}).host == "127.0.0.1" and Config.from_env({"HOST": "0.0.0.0"}).host == "0.0.0.0"
    conf = ROOT / "infra" / "gunicorn.conf.py"
    saved = {k: os.environ.get(k) for k in ("HOST", "PORT")}
    try:
        os.environ.pop("HOST", None)
        os.environ["PORT"] = "9124"
        assert runpy.run_path(str(conf))["bind"] == "127.0.0.1:9124"
        os.environ["HOST"] = "0.0.0.0"
        assert runpy.run_path(str(conf))["bind"] == "0.0.0.0:9124"
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

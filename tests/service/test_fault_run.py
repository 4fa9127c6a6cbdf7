"""The fault run (issue 16): two recorded games played move by move over REST, side by side, through the
gateway as deployed (gunicorn), while rules workers and gunicorn workers are killed with SIGKILL, Redis
restarts (losing every queued doorbell: it keeps no data) and PostgreSQL restarts. The
client does what the docs tell a client to do: retry on 503 or a dropped connection with the same
Idempotency-Key. Afterwards every state equals the golden trace line for its action, each action is stored
once, and no answer was a 500.

The servers are shared with other test runs on this machine: each outage is short, and a finally block
makes sure both servers are up again whatever happens."""

from __future__ import annotations

import functools
import gzip
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from services.config import Config
from services.play.apply import READ_MODEL_EXTRAS
from shared.conformance import first_diff

from .conftest import ADMIN_TOKEN, ROOT, WorkerProcess, wait_until, worker_env
from .helpers import Api, as_submitted

# it restarts the PostgreSQL and Redis every other test uses: nothing else may run meanwhile (tests/conftest.py)
pytestmark = pytest.mark.alone

GAME = ROOT / "tests" / "fixtures" / "conformance" / "1840" / "2player"
RETRY_FOR = 90.0  # seconds one action may take to get through the faults
NOT_IN_GOLDEN = ("action_id", *READ_MODEL_EXTRAS)  # server-assigned ids; the read model's extra fields


def restart_postgres() -> None:
    version = sorted(p.name for p in Path("/etc/postgresql").iterdir())[0]
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"], check=True,
                   capture_output=True, timeout=60)


def restart_redis() -> None:
    subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", "6379", "shutdown", "nosave"], capture_output=True,
                   timeout=20)
    time.sleep(0.5)
    ensure_services()


def ensure_services() -> None:
    subprocess.run(["bash", str(ROOT / "infra" / "ensure-services.sh")], capture_output=True, timeout=120)


class Workers:
    """The rules worker of this run, replaced by a fresh process after each SIGKILL."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.current = WorkerProcess(config, concurrency=2)

    def kill_and_replace(self) -> None:
        self.current.kill()
        time.sleep(1.0)  # commands queue up meanwhile; the new worker's sweep finds them
        self.current = WorkerProcess(self.config, concurrency=2)

    def stop(self) -> None:
        self.current.stop()


@pytest.fixture
def fault_config(service_config: Config) -> Config:
    return service_config.with_(celery_queue=f"railpost-fault-{secrets.token_hex(3)}", db_timeout=2.0)


class Gunicorn:
    """The gateway as deployed (gunicorn, `infra/gunicorn.conf.py`, two gthread workers); its workers can be
    SIGKILLed, and the master starts new ones."""

    def __init__(self, config: Config, tmp: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = worker_env(config, PORT=str(port), ADMIN_TOKEN=ADMIN_TOKEN, WEB_CONCURRENCY="2", DB_TIMEOUT="2",
                         PROMETHEUS_MULTIPROC_DIR=str(tmp / "metrics"))
        gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent)) or "gunicorn"
        self.proc = subprocess.Popen([gunicorn, "-c", str(ROOT / "infra" / "gunicorn.conf.py")], cwd=ROOT,
                                     env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            try:
                return requests.get(f"{self.url}/healthz", timeout=2).ok
            except requests.RequestException:
                return False

        wait_until(healthy, timeout=60, interval=0.2)

    def kill_a_worker(self) -> None:
        children = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout.split()
        if children:
            os.kill(int(children[0]), signal.SIGKILL)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=30)


@pytest.fixture
def fault_gateway(fault_config: Config, tmp_path: Path) -> Iterator[Gunicorn]:
    server = Gunicorn(fault_config, tmp_path)
    yield server
    server.stop()


def retrying(statuses: Counter[int], call: Callable[[], requests.Response],
             done: Callable[[requests.Response], bool]) -> requests.Response:
    """Call until `done` says the answer is final; 503 and dropped connections are retried (as documented)."""
    deadline = time.monotonic() + RETRY_FOR
    while True:
        try:
            reply = call()
        except requests.RequestException:
            reply = None
        if reply is not None:
            statuses[reply.status_code] += 1
            if done(reply):
                return reply
        assert time.monotonic() < deadline, f"no final answer in {RETRY_FOR} s: {reply and reply.text[:300]}"
        time.sleep(0.3)


def play(api: Api, game_id: int, tokens: dict[int, str], record: dict[str, Any], golden: list[dict[str, Any]],
         statuses: Counter[int], on_version: Callable[[int], None] = lambda _: None) -> None:
    """Play the record move by move as a client that retries; check every state against its golden line."""
    state = api.call("GET", f"/games/{game_id}/state", api.admin).json()
    for version, action in enumerate(record["actions"]):
        on_version(version)
        player = _actor(action, state)
        submitted = as_submitted(action, player)
        reply = retrying(statuses, functools.partial(api.act, game_id, tokens[player], submitted, version,
                                                     key=f"move-{version}", wait=5),
                         lambda r: r.status_code not in (202, 503))
        assert reply.status_code == 200, f"action {action['id']} ({action['type']}): {reply.text[:300]}"
        assert reply.json()["new_version"] == version + 1
        state = retrying(statuses, lambda: api.call("GET", f"/games/{game_id}/state", api.admin),
                         lambda r: r.status_code == 200).json()
        digest = {k: v for k, v in state["digest"].items() if k not in NOT_IN_GOLDEN}
        expected = {k: v for k, v in golden[version].items() if k not in NOT_IN_GOLDEN}
        assert first_diff(expected, digest) is None, (game_id, version, action["type"], first_diff(expected, digest))


def test_recorded_games_survive_worker_kills_and_server_restarts(fault_gateway: Gunicorn,
                                                                 fault_config: Config) -> None:
    record = json.loads(GAME.with_suffix(".json").read_text())
    with gzip.open(f"{GAME}.trace.jsonl.gz", "rt") as f:
        golden = [json.loads(line) for line in f]
    statuses: Counter[int] = Counter()
    workers = Workers(fault_config)
    total = len(record["actions"])
    faults: dict[int, Callable[[], None]] = {
        total // 8: workers.kill_and_replace, total // 4: fault_gateway.kill_a_worker, total // 3: restart_redis,
        total // 2: restart_postgres, 5 * total // 8: fault_gateway.kill_a_worker,
        3 * total // 4: workers.kill_and_replace,
    }
    running: list[threading.Thread] = []

    def strike(version: int) -> None:  # the fault strikes while the next moves are on their way
        if version in faults:
            running.append(threading.Thread(target=faults[version], daemon=True))
            running[-1].start()

    api = Api(fault_gateway.url, ADMIN_TOKEN)
    games = [api.seated_game(record) for _ in range(2)]  # one after the other: they bind the same players
    errors: list[BaseException] = []

    def second_game() -> None:
        try:
            play(Api(fault_gateway.url, ADMIN_TOKEN), *games[1], record, golden, statuses)
        except BaseException as err:  # noqa: BLE001 - reported by the main thread
            errors.append(err)

    started = time.monotonic()
    other = threading.Thread(target=second_game)
    try:
        other.start()
        play(api, *games[0], record, golden, statuses, strike)
        other.join(timeout=RETRY_FOR * 2)
        for thread in running:
            thread.join(timeout=60)
    finally:
        workers.stop()
        ensure_services()
    if errors:
        raise errors[0]
    for game_id, _ in games:
        events = retrying(statuses, lambda g=game_id: api.call("GET", f"/games/{g}/events?limit=1000"),
                          lambda r: r.status_code == 200).json()["events"]
        assert [e["version"] for e in events] == list(range(1, total + 1))  # each action stored exactly once
        assert [e["command_id"].split(":", 1)[1] for e in events] == [f"move-{v}" for v in range(total)]
        final = api.call("GET", f"/games/{game_id}/state", api.admin).json()
        assert final["status"] == "finished" and final["result"] == record["result"]
    print(f"fault run: {len(games)} games of {total} actions in {time.monotonic() - started:.0f} s, "
          f"answers {dict(statuses)}")
    assert len(games) == 2 and len(running) == len(faults)
    assert statuses[500] == 0 and not [s for s in statuses if s >= 500 and s != 503], statuses


def _actor(action: dict[str, Any], state: dict[str, Any]) -> int:
    """Who sends a recorded action (as helpers.Api.actor, from a state already read)."""
    if action["type"] in ("undo", "redo", "message") and "user" in action:
        return int(action["user"])
    if action.get("entity_type") == "player":
        return int(action["entity"])
    president = (state["digest"].get("corporations") or {}).get(action["entity"], {}).get("president")
    return int(president if president is not None else state["acting_players"][0])

"""The real process: `python -m services.notifier`, killed with SIGKILL mid-stream and restarted, loses no
notification (duplicates are allowed, and carry the same webhook-id)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import BASE_URL, seat_game
from .helpers import subscribe

ROOT = Path(__file__).resolve().parents[2]


def _start(db_url: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DATABASE_URL": db_url, "PUBLIC_URL": BASE_URL, "NOTIFIER_ALLOW_HTTP": "1",
           "NOTIFIER_ALLOW_LOOPBACK": "1", "NOTIFIER_POLL_INTERVAL": "0.02", "LOG_LEVEL": "WARNING",
           "NOTIFIER_MIGRATE": "0",
           "NOTIFIER_CONNECT_TIMEOUT": "2", "NOTIFIER_READ_TIMEOUT": "3",
           "NOTIFIER_CLAIM_LEASE": "6"}  # > connect + read timeout; deliveries claimed by the killed process return then
    return subprocess.Popen([sys.executable, "-m", "services.notifier"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for(predicate, timeout: float = 40.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.timeout(180)
def test_kill_9_and_restart_loses_nothing(db_url, recorder, engine, clock, receiver):
    table = seat_game(recorder, ["Ann", "Bob"])
    subscribe(engine, clock, table.pid("Ann"), channel="webhook", url=receiver.url("/ann"))
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url("/bob"))
    proc = _start(db_url)
    try:
        turns = 60
        for i in range(turns):
            table.turn("Bob" if i % 2 == 0 else "Ann")
            if i == turns // 2:
                assert _wait_for(lambda: len(receiver.requests) >= 5)
                proc.send_signal(signal.SIGKILL)
                proc.wait(10)
                proc = _start(db_url)
        expected = turns + 3  # game_started alerts both, the opening turn Ann, then one player per turn
        assert _wait_for(lambda: len({r.headers["webhook-id"] for r in receiver.requests}) >= expected, 100)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    ids = [r.headers["webhook-id"] for r in receiver.requests]
    assert len(set(ids)) == expected
    by_id: dict[str, bytes] = {}
    for r in receiver.requests:  # a repeat is the same message, byte for byte
        assert by_id.setdefault(r.headers["webhook-id"], r.body) == r.body
    assert proc.returncode == 0

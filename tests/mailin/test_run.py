"""`make run` (services.run) in the embedded default: the receiver starts on a loopback port, the notifier
process sends turn mails with moves and a reply address, and a reply over SMTP is played by the real
processes (gateway, notifier and receiver each in a process of their own, one SQLite file)."""

from __future__ import annotations

import os
import smtplib
import subprocess
import sys
import time
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any, TypeVar

import pytest
import requests
from aiosmtpd.controller import Controller

from .conftest import Sink, free_port

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def _until(check: Callable[[], T | None], what: str, timeout: float = 40) -> T:
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = check()
        except (OSError, requests.RequestException, smtplib.SMTPException):
            got = None
        if got:
            return got
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


# services.run keeps its secret and VAPID key in the checkout's var/ (created on first use): the tests that
# start it share that folder, so they run in one xdist worker, one after the other
@pytest.mark.xdist_group("services-run-var")
def test_run_plays_a_reply_end_to_end(tmp_path: Path) -> None:
    port, mail_port, sink_port = free_port(), free_port(), free_port()
    sink = Sink()
    sink_controller = Controller(sink, hostname="127.0.0.1", port=sink_port)
    sink_controller.start()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "MAILIN_SECRET")}
    env.update(PORT=str(port), MAILIN_PORT=str(mail_port), MAILIN_ADDRESS="moves@play.test",
               DATABASE_URL=f"sqlite:///{tmp_path / 'run.sqlite3'}", PYTHONPATH=str(ROOT),
               PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"), SMTP_HOST="127.0.0.1",
               SMTP_PORT=str(sink_port), SMTP_FROM="Railpost <rp@play.test>", NOTIFIER_MAIL_BATCH_SECONDS="0")
    proc = subprocess.Popen([sys.executable, "-m", "services.run"], cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        assert proc.stdout is not None
        assert "Railpost listening on" in proc.stdout.readline()
        assert f"SMTP on 127.0.0.1:{mail_port} for moves@play.test" in proc.stdout.readline()
        _until(lambda: requests.get(f"{base}/healthz", timeout=2).ok, "the gateway did not start")

        def post(path: str, body: dict[str, Any], token: str | None = None) -> Any:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            resp = requests.post(base + path, json=body, headers=headers, timeout=10)
            assert resp.status_code in (200, 201), resp.text
            return resp.json()

        ann, bob = post("/players", {"name": "Ann"}), post("/players", {"name": "Bob"})
        for who, address in ((ann, "ann@players.test"), (bob, "bob@players.test")):
            assert requests.put(f"{base}/notifier/subscriptions/default", timeout=10,
                                headers={"Authorization": f"Bearer {who['token']}"},
                                json={"channel": "email", "email": address}).ok
        gid = post("/games", {"title": "1840", "seats": 2})["id"]
        seat = post(f"/games/{gid}/join", {"name": "Ann", "player_id": ann["id"]}, ann["token"])["token"]
        post(f"/games/{gid}/join", {"name": "Bob", "player_id": bob["id"]}, bob["token"])
        post(f"/games/{gid}/start", {}, seat)
        acting = requests.get(f"{base}/games/{gid}/state", timeout=10).json()["acting_players"][0]
        address = "ann@players.test" if acting == ann["id"] else "bob@players.test"
        turn = _until(lambda: next((m for m in sink.to(address) if m["Reply-To"]), None), "no turn mail")
        assert "Your moves:" in turn.get_content()

        reply = EmailMessage()
        reply["From"], reply["To"], reply["Subject"] = address, str(turn["Reply-To"]), "Re: turn"
        reply["Message-ID"] = "<run-1@players.test>"
        reply.set_content("1")
        with smtplib.SMTP("127.0.0.1", mail_port, timeout=30) as smtp:
            smtp.send_message(reply)
        answer = _until(lambda: next((m for m in sink.to(address) if m["In-Reply-To"] == "<run-1@players.test>"),
                                     None), "no answer")
        assert answer.get_content().startswith("Played \u201c1\u201d: "), answer.get_content()
        assert requests.get(f"{base}/games/{gid}/state", timeout=10).json()["version"] == 1
        assert (ROOT / "var" / "mailin-secret").exists()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        sink_controller.stop()

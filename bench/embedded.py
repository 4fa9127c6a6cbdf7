"""`make run`'s embedded default for the benches that measure what a player waits for (`bench_page`,
`bench_mail`): `services.run` (gunicorn with the in-process rules worker, the notifier process, the
email-moves receiver) on free loopback ports and a throwaway SQLite file, exactly as `make run` starts it;
its stderr, which carries the gateway's JSON access log (each request's server-side `ms`), kept in a file.
Also the recorded games the benches play: the people's 1825, 1828 and 1840 games, imported at a position."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance"
# the people's games, one per title (bench_legal steps through the same ones)
PEOPLES = {"1825": CONFORMANCE / "1825" / "141331.json", "1828": CONFORMANCE / "1828" / "23366.json",
           "1840": CONFORMANCE / "1840" / "218809.json"}
ADMIN = "bench-admin-" + secrets.token_hex(4)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Site:
    """One `services.run` on a SQLite file in `workdir`; `env` adds settings (SMTP_*, NOTIFIER_*)."""

    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def database_url(self) -> str:
        return f"sqlite:///{self.workdir / 'site.sqlite3'}"

    @property
    def log_path(self) -> Path:
        return self.workdir / "site.log"

    def start(self, timeout: float = 60) -> None:
        from services.notifier.webpush import ensure_vapid_key

        self.workdir.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "MAILIN_SECRET")}
        # the secrets `make run` keeps under ./var are kept in the work folder instead
        secret = self.workdir / "mailin-secret"
        if not secret.exists():
            secret.write_text(secrets.token_hex(32))
        ensure_vapid_key(env, self.workdir)
        env.update(PORT=str(self.port), MAILIN_PORT=str(free_port()), DATABASE_URL=self.database_url,
                   MAILIN_SECRET=secret.read_text(), ADMIN_TOKEN=ADMIN, LOG_LEVEL="INFO",
                   PROMETHEUS_MULTIPROC_DIR=str(self.workdir / "metrics"),
                   PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
                   **self.env)
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "services.run"], cwd=ROOT, env=env,
                                         start_new_session=True, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"services.run exited ({self.proc.returncode}); see {self.log_path}")
            try:
                if requests.get(f"{self.base}/healthz", timeout=1).ok:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the gateway did not answer within {timeout:.0f} s; see {self.log_path}")

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None

    def restart(self, **env: str) -> None:
        self.stop()
        self.env.update(env)
        self.start()

    def api(self, method: str, path: str, token: str | None = None, **kw: Any) -> requests.Response:
        headers = {"Accept": "application/json", **kw.pop("headers", {})}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return requests.request(method, self.base + path, headers=headers, timeout=60, **kw)

    def log_offset(self) -> int:
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def requests_since(self, offset: int) -> list[dict[str, Any]]:
        """The gateway's access lines (method, path, status, ms) written after `offset`."""
        with self.log_path.open("rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
        lines = []
        for raw in text.splitlines():
            if raw.startswith("{"):
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError:
                    continue
                if line.get("msg") == "request" and "ms" in line:
                    lines.append(line)
        return lines


def load_record(title: str) -> dict[str, Any]:
    return json.loads(PEOPLES[title].read_text())


def import_at(site: Site, record: dict[str, Any], upto: int) -> tuple[int, list[dict[str, Any]]]:
    """The record's first `upto` actions imported as an active game (the operator's token): its id and seats
    (player id, seat token)."""
    prefix = {**record, "actions": record["actions"][:upto], "status": "active"}
    prefix.pop("result", None)
    prefix.pop("game_end_reason", None)
    r = site.api("POST", "/games/import", ADMIN, json=prefix, headers={"Idempotency-Key": uuid.uuid4().hex})
    if r.status_code not in (200, 201):
        raise RuntimeError(f"import of {record.get('id')} at {upto}: {r.status_code} {r.text[:300]}")
    body = r.json()
    return int(body["game"]["id"]), list(body["seats"])


def acting_seat(site: Site, game_id: int, seats: list[dict[str, Any]]) -> dict[str, Any] | None:
    acting = site.api("GET", f"/games/{game_id}/state").json()["acting_players"]
    return next((s for s in seats if s["player_id"] in acting), None)

"""Schema fuzzing of the running service from its own `/openapi.json` (schemathesis): `make fuzz`.

Every operation gets generated requests, valid (positive) and invalid (negative) by its schema, sent with a
random caller (none, a garbage token, a player, a seat of the watched games, the operator) and, half of the
time, aimed at a real game instead of a random id. A hand-made hostile corpus is added for every operation
that takes a body: huge numbers, 1e400, NaN, lone surrogates, NUL, deep nesting, wrong top-level types.

What must hold: no 5xx at all, and every refused request leaves the watched games unchanged (the active
game's version is read around each refused action; the finished game's state and event log are compared
whole at the end).

    python -m bench.fuzz --budget 10000                   # embedded default, then PostgreSQL + Redis
    python -m bench.fuzz --budget 2000 --mode embedded    # one of them
    python -m bench.fuzz --url http://127.0.0.1:8000 --admin-token T --budget 500   # a running server
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[1]
RECORD_1840 = ROOT / "tests" / "fixtures" / "conformance" / "1840" / "2player.json"
PG_ADMIN = os.environ.get("RAILPOST_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_BASE = os.environ.get("RAILPOST_TEST_REDIS", "redis://127.0.0.1:6379")
FUZZ_REDIS_DB = 8  # inside the service tests' range (5..9)
HOSTILE_VALUES: list[Any] = [10**30, -(10**30), 2**63, 1.5e308, "\ud800", "a\x00b", "𝕽" * 300, "", [], {}, None,
                             True, "' OR 1=1 --", "../../etc/passwd", "%00", "\u202e", 0, -1]
HOSTILE_BODIES: list[bytes] = [
    b"[" * 20_000 + b"]" * 20_000, b'{"a":' * 5_000 + b"1" + b"}" * 5_000, b"1e400", b'{"x": 1e400}', b"NaN",
    b'{"x": -Infinity}', b'"\\ud800"', b"9" * 5_000, b"\xff\xfe\xfd", b"", b"null", b"[]", b'"string"', b"{",
]


@dataclass
class Report:
    statuses: Counter[int] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    changed_by_refusal: list[str] = field(default_factory=list)
    unsendable: int = 0  # cases the HTTP client itself refuses to send (e.g. non-latin-1 header values)
    operations: Counter[str] = field(default_factory=Counter)  # "METHOD /path/{template}" -> requests sent
    documented: int = 0  # operations in the document

    @property
    def total(self) -> int:
        return sum(self.statuses.values())

    def line(self, label: str) -> str:
        by_status = ", ".join(f"{code}: {n}" for code, n in sorted(self.statuses.items()))
        return (f"{label}: {self.total} requests ({by_status}); 5xx: {len(self.server_errors)}; refusals that "
                f"changed a game: {len(self.changed_by_refusal)}; unsendable: {self.unsendable}; operations "
                f"fuzzed: {len(self.operations)} of {self.documented} in the document")


class Target:
    """The service under test plus the fixtures the fuzz aims at: a finished and an active game."""

    def __init__(self, base: str, admin_token: str) -> None:
        self.base = base.rstrip("/")
        self.admin = admin_token
        self.http = requests.Session()
        self.player = self._ok("POST", "/players", json={"name": "Fuzz"}, expect=201)
        record = json.loads(RECORD_1840.read_text())
        imported = self._ok("POST", "/games/import", self.admin, json=record, expect=201)
        self.finished = imported["game"]["id"]
        self.finished_seat = imported["seats"][0]["token"]
        made = self._ok("POST", "/games", json={"title": "1840", "seats": 2, "seed": 1}, expect=201)
        self.active = made["id"]
        self.active_seats = [self._ok("POST", f"/games/{self.active}/join", json={"name": n}, expect=201)["token"]
                             for n in ("Ann", "Bob")]
        self._ok("POST", f"/games/{self.active}/start", self.active_seats[0], expect=200)
        private = self._ok("POST", "/games", json={"title": "1840", "seats": 2, "visibility": "private"},
                           expect=201)
        self.private = private["id"]
        self.finished_before = self.snapshot(self.finished)

    def _ok(self, method: str, path: str, token: str | None = None, expect: int = 200, **kw: Any) -> Any:
        reply = self.call(method, path, token, **kw)
        if reply.status_code != expect:
            raise RuntimeError(f"fuzz set-up: {method} {path} answered {reply.status_code}: {reply.text[:300]}")
        return reply.json()

    def call(self, method: str, path: str, token: str | None = None, **kw: Any) -> requests.Response:
        headers = dict(kw.pop("headers", None) or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return self.http.request(method, self.base + path, headers=headers, timeout=60, **kw)

    def version(self, game_id: int) -> int:
        return int(self.call("GET", f"/games/{game_id}/state", self.admin).json()["version"])

    def snapshot(self, game_id: int) -> tuple[Any, Any]:
        state = self.call("GET", f"/games/{game_id}/state", self.admin).json()
        events = self.call("GET", f"/games/{game_id}/events?limit=1000", self.admin).json()["events"]
        return state["digest"], [(e["version"], e["data"]) for e in events]

    def tokens(self) -> list[str | None]:
        return [None, "rp_not_a_token", self.player["token"], *self.active_seats, self.finished_seat, self.admin]

    def game_ids(self) -> list[int]:
        return [self.active, self.finished, self.private]


def _send(target: Target, rng: random.Random, report: Report, method: str, path: str, *, query: Any = None,
          headers: dict[str, Any] | None = None, body: Any = None, raw: bytes | None = None,
          token: str | None = None, operation: str = "") -> None:
    """One request; an action aimed at the active game is checked to change nothing unless accepted."""
    headers = {str(k): str(v) for k, v in (headers or {}).items()}
    if "Idempotency-Key" not in headers and rng.random() < 0.8:
        headers["Idempotency-Key"] = uuid.uuid4().hex
    if token:
        headers["Authorization"] = f"Bearer {token}"
    watched = method.upper() == "POST" and path.startswith(f"/games/{target.active}/actions")
    before = target.version(target.active) if watched else None
    kw: dict[str, Any] = {"params": query or None, "headers": headers}
    if raw is not None:
        kw["data"] = raw
        headers.setdefault("Content-Type", "application/json")
    elif body is not None:
        kw["json"] = body
    try:
        reply = target.http.request(method, target.base + path, timeout=60, **kw)
    except (requests.exceptions.InvalidHeader, requests.exceptions.InvalidURL, UnicodeError, ValueError):
        report.unsendable += 1
        return
    report.statuses[reply.status_code] += 1
    report.operations[operation or f"{method.upper()} {path}"] += 1
    if reply.status_code >= 500:
        report.server_errors.append(f"{method} {path} {reply.status_code} {reply.text[:200]!r}")
    if watched:
        if reply.status_code == 202 and headers.get("Idempotency-Key"):  # settle it before judging the next one
            target.call("GET", f"/games/{target.active}/receipts/{headers['Idempotency-Key']}?wait=5",
                        headers.get("Authorization", "").removeprefix("Bearer ") or None)
        elif reply.status_code != 200 and target.version(target.active) != before:
            report.changed_by_refusal.append(f"{method} {path} {reply.status_code} {reply.text[:200]!r}")


def _generated(target: Target, spec: dict[str, Any], budget: int, seed: int, report: Report) -> None:
    import schemathesis

    schema = schemathesis.openapi.from_dict(spec)
    operations = [r.ok() for r in schema.get_all_operations()]
    rng = random.Random(seed)
    per_run = max(5, budget // (2 * len(operations)))
    round_no = 0
    while report.total + report.unsendable < budget:
        start = report.total + report.unsendable
        for op in operations:
            for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
                if report.total + report.unsendable >= budget:
                    return

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _run_operation(target, rng, report, op, mode, per_run, seed + round_no)
        round_no += 1
        if report.total + report.unsendable == start:
            return  # the schema space is exhausted


def _run_operation(target: Target, rng: random.Random, report: Report, op: Any, mode: Any, examples: int,
                   seed: int) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis.errors import FailedHealthCheck, Unsatisfiable
    from schemathesis.core import NotSet

    @hseed(seed)
    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(op.as_strategy(mode))
    def run(case: Any) -> None:
        params = dict(case.path_parameters or {})
        for name in params:
            if name == "game_id" and rng.random() < 0.5:
                params[name] = rng.choice(target.game_ids())
        try:
            path = op.path.format(**params)
        except (KeyError, IndexError, ValueError):
            report.unsendable += 1
            return
        body = None if isinstance(case.body, NotSet) else case.body
        raw = body if isinstance(body, bytes) else None
        _send(target, rng, report, op.method.upper(), path, query=case.query, headers=case.headers,
              body=body, raw=raw, token=rng.choice(target.tokens()), operation=f"{op.method.upper()} {op.path}")

    try:
        run()
    except (Unsatisfiable, FailedHealthCheck):  # no (negative) case exists for this operation
        pass


def _hostile(target: Target, spec: dict[str, Any], seed: int, report: Report) -> None:
    rng = random.Random(seed)
    for template, item in spec["paths"].items():
        for method, op in item.items():
            path = template.replace("{game_id}", str(target.active)).replace("{key}", "k")
            path = path.split("{")[0].rstrip("/") or "/"
            for value in HOSTILE_VALUES:
                query = {rng.choice(("player_id", "after", "limit", "offset", "wait", "entity")): str(value)}
                _send(target, rng, report, method.upper(), path, query=query, token=rng.choice(target.tokens()),
                      operation=f"{method.upper()} {template}")
            if "requestBody" not in op:
                continue
            for raw in HOSTILE_BODIES:
                _send(target, rng, report, method.upper(), path, raw=raw, token=rng.choice(target.tokens()),
                      operation=f"{method.upper()} {template}")
            for value in HOSTILE_VALUES:
                body = {"name": value, "title": value, "seats": value, "expected_version": value,
                        "action": {"type": value, "entity": value}, "players": [{"id": value}]}
                _send(target, rng, report, method.upper(), path, raw=json.dumps(body).encode(),
                      token=rng.choice(target.tokens()), operation=f"{method.upper()} {template}")


def fuzz(base: str, admin_token: str, budget: int, seed: int = 0) -> Report:
    target = Target(base, admin_token)
    spec = target.call("GET", "/openapi.json").json()
    report = Report(documented=sum(len(item) for item in spec["paths"].values()))
    _hostile(target, spec, seed, report)
    _generated(target, spec, budget, seed, report)
    if target.snapshot(target.finished) != target.finished_before:
        report.changed_by_refusal.append(f"finished game {target.finished} changed")
    return report


# -- servers to fuzz ---------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served(env_extra: dict[str, str]) -> Iterator[str]:
    """`python -m services.run` (gateway + worker if REDIS_URL + notifier) on a free port; yields its URL."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "PUBLIC_URL")}
    env.update(PORT=str(port), LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT), **env_extra)
    proc = subprocess.Popen([sys.executable, "-m", "services.run"], cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if requests.get(url + "/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.3)
        else:
            raise RuntimeError("the server did not come up")
        yield url
    finally:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)


@contextmanager
def embedded() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as tmp:
        with served({"DATABASE_URL": f"sqlite:///{tmp}/fuzz.sqlite3", "ADMIN_TOKEN": "fuzz-admin",
                     "PROMETHEUS_MULTIPROC_DIR": f"{tmp}/metrics"}) as url:
            yield url


@contextmanager
def postgres_redis() -> Iterator[str]:
    import psycopg
    import redis

    name = f"railpost_fuzz_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    redis_url = f"{REDIS_BASE}/{FUZZ_REDIS_DB}"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            env = {"DATABASE_URL": PG_ADMIN.rsplit("/", 1)[0] + "/" + name, "REDIS_URL": redis_url,
                   "ADMIN_TOKEN": "fuzz-admin", "CELERY_QUEUE": f"railpost-fuzz-{secrets.token_hex(3)}",
                   "PROMETHEUS_MULTIPROC_DIR": f"{tmp}/metrics"}
            with served(env) as url:
                yield url
    finally:
        redis.Redis.from_url(redis_url).flushdb()
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", type=int, default=10_000, help="generated requests per server")
    parser.add_argument("--mode", choices=["both", "embedded", "postgres"], default="both")
    parser.add_argument("--url", help="fuzz this running server instead of starting one")
    parser.add_argument("--admin-token", default=os.environ.get("ADMIN_TOKEN", ""))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    runs: list[tuple[str, Any]] = []
    if args.url:
        runs.append((args.url, None))
    else:
        if args.mode in ("both", "embedded"):
            runs.append(("embedded default (SQLite, in-process queue)", embedded))
        if args.mode in ("both", "postgres"):
            runs.append(("PostgreSQL + Redis + Celery worker", postgres_redis))
    failed = False
    for label, server in runs:
        started = time.monotonic()
        if server is None:
            report = fuzz(label, args.admin_token, args.budget, args.seed)
        else:
            with server() as url:
                report = fuzz(url, "fuzz-admin", args.budget, args.seed)
        print(report.line(label) + f" in {time.monotonic() - started:.0f} s", flush=True)
        for line in report.server_errors[:20] + report.changed_by_refusal[:20]:
            print("  " + line)
        failed = failed or bool(report.server_errors or report.changed_by_refusal)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

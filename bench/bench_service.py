"""Service load test on loopback: gunicorn gateway + Celery rules workers on PostgreSQL/Redis.

Many concurrent games each replay the recorded 1825 game through the HTTP API (every action POSTed with its
expected version and an Idempotency-Key, waiting on the receipt). Two phases:
  paced  — 100 actions/s offered, latency from HTTP accept to event committed (receipt created -> settled)
  flood  — 200 games as fast as the machine allows, sustained actions/s
Figures are printed as measured; targets: p50 < 15 ms and p99 < 60 ms at 100/s, >= 300 actions/s.
A tailing reader polls the outbox every 50 ms during the phases, as the notifier would (on PostgreSQL it
numbers the rows committed since its last poll, so that cost is in the figures), and checks it sees every
position once, in order. Each phase also prints the CPU time spent per action by each part of the stack (from /proc and Redis INFO):
unlike the rates, that figure barely moves when other jobs share the machine, and it says how many actions/s
the two cores can carry at all.
"""

from __future__ import annotations

import json
import os
import platform
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import redis
import requests

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "fixtures" / "conformance" / "1825" / "1825_game_end_bank.json"
PG_ADMIN = os.environ.get("RAILPOST_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("RAILPOST_BENCH_REDIS", "redis://127.0.0.1:6379/8")
PORT = int(os.environ.get("RAILPOST_BENCH_PORT", "8765"))
ADMIN = "bench-admin"
PHASE_SECONDS = float(os.environ.get("RAILPOST_BENCH_SECONDS", "15"))
SHARDS = int(os.environ.get("RAILPOST_BENCH_SHARDS", "1"))
THREADS = int(os.environ.get("RAILPOST_BENCH_WORKER_THREADS", "4"))
DRIVERS = int(os.environ.get("RAILPOST_BENCH_DRIVERS", "64"))  # the flood's concurrent clients
# two benches on one machine must not share a queue, a Redis DB or a port (each flushes its DB at start)
QUEUE = os.environ.get("RAILPOST_BENCH_QUEUE", "railpost-bench")


def scripted_actions(record: dict[str, Any], at: int = 0,
                     length: int | None = None) -> list[tuple[int, dict[str, Any]]]:
    """(sender, action) per recorded action (the `length` after the first `at`, or all), working out
    corporation presidents with a local replay."""
    from shared.engine import GameSession

    session = (GameSession.from_record(record, limit=at) if at else
               GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                               record["settings"]["optional_rules"]))
    script = []
    for action in record["actions"][at:None if length is None else at + length]:
        if action["type"] in ("undo", "redo", "message") and "user" in action:
            sender = int(action["user"])
        elif action.get("entity_type") == "player":
            sender = int(action["entity"])
        else:
            sender = int(session.controller(action["entity"]))
        body = {k: v for k, v in action.items() if k != "id" and not (k == "user" and v != sender)}
        session.submit(body)
        script.append((sender, body))
    return script


class Stack:
    """A throwaway database, Redis DB, gunicorn and Celery workers, torn down on exit. `restart(shards)`
    keeps the database and starts gateway and workers again with another number of worker processes (the
    curve in `bench_service_curve`); `env` adds settings (e.g. SESSION_CACHE_SIZE) to every process."""

    def __init__(self, shards: int = SHARDS, env: dict[str, str] | None = None) -> None:
        self.db = f"railpost_b_{secrets.token_hex(4)}"
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.db}"')
        self.url = PG_ADMIN.rsplit("/", 1)[0] + "/" + self.db
        redis.Redis.from_url(REDIS_URL).flushdb()
        from shared.eventstore import migrate

        migrate(self.url)
        self.extra = dict(env or {})
        self.procs: list[subprocess.Popen] = []
        self.shards = shards
        self._start()

    def _start(self) -> None:
        bin_dir = Path(sys.executable).parent
        env = {**os.environ, "DATABASE_URL": self.url, "REDIS_URL": REDIS_URL, "PORT": str(PORT),
               "ADMIN_TOKEN": ADMIN, "LOG_LEVEL": os.environ.get("RAILPOST_BENCH_LOG_LEVEL", "WARNING"), "WEB_CONCURRENCY": os.environ.get("RAILPOST_BENCH_WEB", "2"), "DB_POOL_SIZE": "8",
               "CELERY_QUEUE": QUEUE, "WORKER_SHARDS": str(self.shards), "PYTHONPATH": os.pathsep.join(
                   filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])), **self.extra}
        # the rules workers exactly as `services.run` starts them (one process with a thread pool per shard,
        # beat in the first), apart from the log level
        from services.config import Config
        from services.run import worker_commands

        layout = Config(redis_url=REDIS_URL, celery_queue=QUEUE, worker_shards=self.shards,
                        worker_threads=THREADS)
        gateway, workers = self._commands(
            bin_dir, [str(bin_dir / "gunicorn"), "-c", str(ROOT / "infra" / "gunicorn.conf.py")],
            worker_commands(str(bin_dir / "celery"), layout))
        self.procs = [subprocess.Popen(gateway, cwd=ROOT, env=env, start_new_session=True, stderr=subprocess.DEVNULL)]
        for command in workers:
            command[command.index("-l") + 1] = env["LOG_LEVEL"]
            self.procs.append(subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True,
                                               stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(f"http://127.0.0.1:{PORT}/healthz", timeout=1).ok:
                    break
            except requests.RequestException:
                time.sleep(0.2)
        time.sleep(2)  # let the Celery pool come up

    def _commands(self, bin_dir: Path, gateway: list[str],
                  workers: list[list[str]]) -> tuple[list[str], list[list[str]]]:
        """The gateway's and the workers' command lines (`bench_floor` starts its floor's apps instead)."""
        return gateway, workers

    def _stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        self.procs = []

    def restart(self, shards: int) -> None:
        self._stop()
        self.shards = shards
        self._start()

    def close(self) -> None:
        self._stop()
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)')
        redis.Redis.from_url(REDIS_URL).flushdb()


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(stat: str) -> float:
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


def database_cpu(db: str) -> float:
    """CPU seconds used so far by the PostgreSQL backends connected to database `db`."""
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        backends = [r[0] for r in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (db,))]
    total = 0.0
    for pid in backends:
        try:
            total += _cpu_seconds(Path(f"/proc/{pid}/stat").read_text())
        except OSError:
            continue  # a backend that ended between the query and the read
    return total


class CpuMeter:
    """CPU seconds used so far by the client, the gateway and worker process trees, the PostgreSQL backends
    of the bench database and Redis."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.redis = redis.Redis.from_url(REDIS_URL)

    def sample(self) -> dict[str, float]:
        parents: dict[int, int] = {}
        cpu: dict[int, float] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
                cpu[int(entry.name)] = _cpu_seconds(stat)

        def tree(root: int) -> float:
            todo, total = [root], 0.0
            while todo:
                pid = todo.pop()
                total += cpu.get(pid, 0.0)
                todo += [child for child, parent in parents.items() if parent == pid]
            return total

        info = self.redis.info("cpu")
        own = os.times()
        return {
            "client": own.user + own.system,
            "gateway": tree(self.stack.procs[0].pid),
            "workers": sum(tree(p.pid) for p in self.stack.procs[1:]),
            "postgres": database_cpu(self.stack.db),
            "redis": float(info["used_cpu_user"]) + float(info["used_cpu_sys"]),
        }


def cpu_line(before: dict[str, float], after: dict[str, float], actions: int) -> str:
    if not actions:
        return ""
    per = {k: (after[k] - before.get(k, 0.0)) / actions * 1000 for k in after}
    total = sum(per.values())
    parts = ", ".join(f"{k} {v:.2f}" for k, v in per.items())
    return f"       cpu per action (ms): {parts}; total {total:.2f} -> 2 cores carry at most {2000 / total:.0f}/s"


class OutboxTail:
    """A reader tailing `position > N` on a thread, like the notifier's loop (which numbers, then reads)."""

    def __init__(self, url: str, interval: float = 0.05) -> None:
        from shared.eventstore import open_recorder

        self.recorder = open_recorder(url, pool_size=2)
        self.interval = interval
        self.cursor = 0
        self.rows = 0
        self.gaps = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(self.interval):
            for item in self.recorder.read_outbox(self.cursor, 5000):
                self.gaps += item.position != self.cursor + 1
                self.cursor = item.position
                self.rows += 1

    def close(self) -> str:
        self.stop.set()
        self.thread.join()
        self.recorder.close()
        return f"outbox tail: {self.rows} rows read, {self.gaps} out of order"


class Table:
    """One game being played through the API by one driver thread at a time."""

    def __init__(self, http: requests.Session, record: dict[str, Any]) -> None:
        base = f"http://127.0.0.1:{PORT}"
        settings = record["settings"]
        game = http.post(f"{base}/games", json={"title": record["title"], "seats": len(record["players"]),
                                                "seed": settings["seed"], "options": settings["optional_rules"]},
                         timeout=30).json()
        self.url = f"{base}/games/{game['id']}"
        self.path = f"/games/{game['id']}"
        self.tokens: dict[int, str] = {}
        for seat, player in enumerate(record["players"]):
            joined = http.post(f"{self.url}/join", json={"name": player["name"], "seat": seat,
                                                         "player_id": player["id"]},
                               headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30).json()
            self.tokens[player["id"]] = joined["token"]
        http.post(f"{self.url}/start", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30)
        self.version = 0
        self.lock = threading.Lock()

    def token_for(self, sender: int, action: dict[str, Any]) -> str:
        return self.tokens[sender]

    def step(self, http: Client, script: list[tuple[int, dict[str, Any]]]) -> tuple[float, float] | None:
        """Play the next action; returns (server accept->commit, client round trip) in seconds."""
        with self.lock:
            if self.version >= len(script):
                return None
            sender, action = script[self.version]
            started = time.perf_counter()
            status, body = http.post(f"{self.path}/actions?wait=10",
                                     {"action": action, "expected_version": self.version},
                                     {"Authorization": f"Bearer {self.token_for(sender, action)}",
                                      "Idempotency-Key": uuid.uuid4().hex})
            rtt = time.perf_counter() - started
            if status != 200:
                raise RuntimeError(f"{self.path} v{self.version}: {status} {body}")
            self.version += 1
            return body["settled_at"] - body["created_at"], rtt


class Client:
    """A keep-alive HTTP/1.1 connection over a bare socket: the load generator shares the two cores with what
    it measures, so every microsecond it spends is taken from the server. `http.client` parses each
    response's headers with the `email` package (~0.15 ms of CPU per request here); this client reads the
    status line and Content-Length and nothing else, which is all the bench needs from its own server."""

    def __init__(self) -> None:
        self._sock: socket.socket | None = None
        self._buffer = b""

    def _connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", PORT), timeout=30)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buffer = b""
        return sock

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
        data = json.dumps(body).encode()
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        request = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {len(data)}\r\n{head}\r\n").encode() + data
        for attempt in (0, 1):
            try:
                if self._sock is None:
                    self._sock = self._connect()
                self._sock.sendall(request)
                return self._response()
            except (ConnectionError, EOFError):
                self.close()  # the server closed an idle keep-alive connection: reconnect once
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _response(self) -> tuple[int, Any]:
        assert self._sock is not None
        while b"\r\n\r\n" not in self._buffer:
            self._read()
        head, _, rest = self._buffer.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length, close = 0, False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection" and value.strip().lower() == b"close":
                close = True
        while len(rest) < length:
            self._buffer = rest
            self._read()
            rest = self._buffer
        self._buffer = rest[length:]
        if close:
            self.close()
        return status, json.loads(rest[:length])

    def _read(self) -> None:
        assert self._sock is not None
        chunk = self._sock.recv(65536)
        if not chunk:
            raise EOFError("connection closed by the server")
        self._buffer += chunk

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock = None
        self._buffer = b""


def settle(stack: Stack) -> None:
    """Wait until the workers have drained their queues: each started game sends a `railpost.warm` task that
    builds its engine session (a one-off per game, tens of ms of CPU); left running into a phase it would be
    charged to that phase's first seconds, which steady play never pays."""
    client = redis.Redis.from_url(REDIS_URL)
    queues = [QUEUE] + [f"{QUEUE}.{shard}" for shard in range(stack.shards)]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(client.llen(q) for q in queues):
        time.sleep(0.1)
    time.sleep(1.0)  # the last tasks taken off the queues finish


def calibration_ms() -> float:
    """CPU milliseconds of a fixed pure-Python loop (dicts, strings, ints, as a request's work is made of).
    The same code costs more or less CPU as the machine's speed drifts (shared hosts); comparing this figure
    between runs says whether a change in the CPU per action is the code's or the machine's."""
    started = time.process_time()
    table: dict[str, int] = {}
    for i in range(300_000):
        key = f"k{i % 1000}"
        table[key] = table.get(key, 0) + i * i % 7
    return (time.process_time() - started) * 1000


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")


def load_text() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def children(pid: int) -> list[int]:
    """Every process under `pid` (gunicorn's worker processes under its arbiter)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        kids = [child for child, parent in parents.items() if parent == current]
        found += kids
        todo += kids
    return found


class Profiler:
    """With RAILPOST_BENCH_PYSPY=DIR: py-spy samples the gateway's worker processes and the rules workers
    during one phase (collapsed stacks, `DIR/<phase>-<part>-<pid>.txt`; GIL holders only, unless
    RAILPOST_BENCH_PYSPY_GIL=0: then every thread not idle, which weighs the threads' own work fairly; with
    RAILPOST_BENCH_PYSPY_IDLE=1 as well, idle threads too: where a thread waits); `bench/profiles/summarise.py`
    turns them into the summaries kept in `bench/profiles/`."""

    def __init__(self, stack: Stack, phase: str, seconds: float) -> None:
        self.procs: list[subprocess.Popen] = []
        out = os.environ.get("RAILPOST_BENCH_PYSPY")
        spy = Path(sys.executable).parent / "py-spy"
        if not out or not spy.exists():
            return
        Path(out).mkdir(parents=True, exist_ok=True)
        targets = [("gateway", pid) for pid in children(stack.procs[0].pid)]
        targets += [("worker", proc.pid) for proc in stack.procs[1:]]
        for part, pid in targets:
            self.procs.append(subprocess.Popen(
                [str(spy), "record", "-p", str(pid), "-d", str(int(seconds)), "-r", "200", "-f", "raw",
                 *(["-g"] if os.environ.get("RAILPOST_BENCH_PYSPY_GIL", "1") == "1" else []),
                 *(["--idle"] if os.environ.get("RAILPOST_BENCH_PYSPY_IDLE") == "1" else []),
                 "-o", f"{out}/{phase}-{part}-{pid}.txt"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def close(self) -> None:
        for proc in self.procs:
            proc.wait()


def run_phase(name: str, tables: list[Table], script: list, rate: float | None, seconds: float,
              threads: int, meter: CpuMeter, quiet_cpu: bool = False) -> dict[str, Any]:
    """Play for `seconds` (at `rate` actions/s offered, or as fast as `threads` drivers go); print and return
    the figures."""
    samples: list[tuple[float, float]] = []
    errors: list[str] = []
    stop_at = time.monotonic() + seconds
    interval = 1.0 / rate if rate else 0.0
    next_slot = [time.monotonic()]
    slot_lock = threading.Lock()
    index = [0]

    def driver(worker: int) -> None:
        http = Client()
        while time.monotonic() < stop_at and not errors:
            with slot_lock:
                table = tables[index[0] % len(tables)]
                index[0] += 1
                if rate:
                    slot = next_slot[0]
                    next_slot[0] += interval
            if rate:
                delay = slot - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            try:
                sample = table.step(http, script)
            except Exception as exc:  # report, don't hide
                errors.append(str(exc))
                return
            if sample:
                samples.append(sample)

    profiler = Profiler(meter.stack, name, seconds)
    cpu_before = meter.sample()
    started = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(driver, range(threads)))
    elapsed = time.monotonic() - started
    cpu_after = meter.sample()
    profiler.close()
    server = [s for s, _ in samples]
    client = [c for _, c in samples]
    figures = {"phase": name, "games": len(tables), "offered": rate, "actions": len(samples),
               "rate": len(samples) / elapsed, "p50": pct(server, .5), "p99": pct(server, .99),
               "load": os.getloadavg()[0], "errors": len(errors),
               "cpu": {k: (cpu_after[k] - cpu_before.get(k, 0.0)) / max(1, len(samples)) * 1000 for k in cpu_after}}
    print(f"{name:6s} games={len(tables)} actions={len(samples)} in {elapsed:.1f}s -> {len(samples) / elapsed:.0f} "
          f"actions/s | accept->commit p50 {pct(server, .5):.1f} ms p99 {pct(server, .99):.1f} ms | "
          f"client round trip p50 {pct(client, .5):.1f} ms p99 {pct(client, .99):.1f} ms"
          + (f" | offered {rate:.0f}/s" if rate else "") + f" | load {load_text()}", flush=True)
    if not quiet_cpu:
        print(cpu_line(cpu_before, cpu_after, len(samples)), flush=True)
    if errors:
        print(f"       errors: {len(errors)}; first: {errors[0][:300]}", flush=True)
    return figures


def main() -> None:
    record = json.loads(RECORD.read_text())
    try:
        script = scripted_actions(record)
    except Exception as exc:
        print(f"bench_service: the rules engine cannot play {RECORD.name} yet ({type(exc).__name__}: {exc}); "
              "no figures", flush=True)
        return
    if shutil.which("pg_isready"):
        subprocess.run(["bash", str(ROOT / "infra" / "ensure-services.sh")], capture_output=True, check=False)
    stack = Stack()
    try:
        http = requests.Session()
        meter = CpuMeter(stack)
        tail = OutboxTail(stack.url)
        # a fresh stack pays one-off costs (connections, title data, first queries per process): play them
        # off first, on games of their own, and report them apart from the measured phases
        print(f"       machine: calibration loop {calibration_ms():.0f} ms of CPU | Python {platform.python_version()} "
              f"at {sys.executable} (an unoptimised build is ~1.8x slower: docs/performance.md)", flush=True)
        run_phase("warmup", [Table(http, record) for _ in range(20)], script, rate=100, seconds=3, threads=20,
                  meter=meter)
        paced = [Table(http, record) for _ in range(20)]
        settle(stack)
        run_phase("paced", paced, script, rate=100, seconds=PHASE_SECONDS, threads=20,
                  meter=meter)
        flood = [Table(http, record) for _ in range(200)]
        settle(stack)
        run_phase("flood", flood, script, rate=None, seconds=PHASE_SECONDS, threads=DRIVERS,
                  meter=meter)
        print("       " + tail.close(), flush=True)
        print(f"       machine: calibration loop {calibration_ms():.0f} ms of CPU", flush=True)
    finally:
        stack.close()


if __name__ == "__main__":
    main()

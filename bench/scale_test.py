"""`make scale-test` (issue 48): Railpost as several hosts on one machine, under host faults.

A db host (its own throwaway PostgreSQL cluster and redis-server), SCALE_HOSTS app hosts (default 2) each
running gunicorn, a Celery rules worker and a beat as infra/ deploys them (app1 also the notifier), and this
process as the driver in its own namespace (bench/scale_net.py). Recorded games (undos, standing orders) are
played over REST through the app hosts in turn while the driver kills a host's rules worker, kills a whole
host and brings it back, pulls a host's cable mid-move for a few seconds, and pulls it mid-move and kills the
host while it is cut off (the moved lease: the moves that host had taken must be settled once by another
host within `settle_bound`), and takes a pg_dump mid-play. Afterwards every game equals its golden trace,
every answered move is stored once and in order, outbox and event positions have no gap, and every turn was
told once over the players' webhooks; then the dump is restored into a fresh database the hosts serve, and
every game loads there and plays on to the end identically. The last line printed is one JSON object; the
exit status is 0 only when everything held. infra/SCALING.md says what it measured.

Needs root (namespaces). Everything is removed at the end, on SIGINT/SIGTERM too; a SIGKILLed run's leftovers
are swept at the next start (everything is named rpst-*).

Environment: SCALE_HOSTS (2), SCALE_ACTIONS (moves per game, 0 = whole game; default 150), SCALE_GAMES
(comma-separated fixture paths under tests/fixtures/conformance), SCALE_IDLE_TX (seconds, the PostgreSQL
idle_in_transaction_session_timeout the hosts' DATABASE_URL carries, default 5; 0 = none).
"""

from __future__ import annotations

import atexit
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg

from bench import scale_net as net
from bench.scale_checks import expected_turns, position_gaps, settle, told_turns, turn_ledger
from bench.scale_play import Hosts, Played, Progress, ledger, limit_of, play, stored_commands

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance"
GAMES = ["1825/1825_game_end_bank", "1828/1828Games_game_end_bankrupt", "1840/2player",
         "generated/1828/gen1828_4p_612537", "generated/1840/gen1840_small_3p_320275"]
ADMIN = "scale-test-admin"
HOOK_PORT = 9990
SWEEP_AFTER, SWEEP_INTERVAL = 3.0, 1.0
DELIVERY_WORKERS = 8  # the notifier's default: at most this many requests in flight when it is killed


def env_num(name: str, default: float) -> float:
    return float(os.environ.get(name) or default)


class Cluster:
    def __init__(self, apps: int, idle_tx: float) -> None:
        self.db = net.Host("db", f"{net.SUBNET}.10")
        self.apps = [net.Host(f"app{i + 1}", f"{net.SUBNET}.{11 + i}") for i in range(apps)]
        self.idle_tx = idle_tx
        self.fleet = net.Fleet()
        self.tmp = Path(tempfile.mkdtemp(prefix=f"{net.PREFIX}pg-"))  # swept by name if this run is killed
        self.logs = ROOT / "var" / "scale-test"
        shutil.rmtree(self.logs, ignore_errors=True)
        self.logs.mkdir(parents=True)
        self.hooks = self.logs / "webhooks.jsonl"
        self._stop = threading.Event()

    def db_url(self, who: str = "rpst", database: str = "railpost") -> str:
        params = f"application_name={who}"
        if self.idle_tx > 0:  # a transaction its client went silent in ends, and its row lock with it
            params += "&options=" + quote(f"-c idle_in_transaction_session_timeout={int(self.idle_tx * 1000)}")
        return f"postgresql://postgres@{self.db.address}:5432/{database}?{params}"

    @property
    def pg_bin(self) -> Path:  # Debian's server binaries, the newest major version installed
        return Path(sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1])

    def start_db(self) -> None:
        pg_bin = self.pg_bin
        data = self.tmp / "data"
        shutil.chown(self.tmp, "postgres", "postgres")
        subprocess.run([str(pg_bin / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
                       user="postgres", check=True, capture_output=True, cwd=self.tmp)
        with (data / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {net.SUBNET}.0/24 trust\n")
        log = self.logs / "db-postgres.log"
        log.touch()
        shutil.chown(log, "postgres", "postgres")
        self.fleet.add(net.Proc(self.db, "postgres", [
            str(pg_bin / "postgres"), "-D", str(data), "-k", str(self.tmp), "-c", f"listen_addresses={self.db.address}",
            "-c", "max_connections=200", "-c", "shared_buffers=64MB", "-c", "fsync=on"],
            dict(os.environ), log, self.tmp, user="postgres"))
        self.fleet.add(net.Proc(self.db, "redis", [
            "redis-server", "--bind", self.db.address, "--port", "6379", "--save", "", "--appendonly", "no",
            "--protected-mode", "no"], dict(os.environ), self.logs / "db-redis.log", self.tmp))
        net.wait_port(self.db.ns, self.db.address, 5432)
        net.wait_port(self.db.ns, self.db.address, 6379)

    def host_env(self, host: net.Host, role: str) -> dict[str, str]:
        """production.env.example's settings, pointed at the db host, shorter sweep times for a short run."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_", "RAILPOST_"))}
        env.update(
            DATABASE_URL=self.db_url(f"rpst-{role}-{host.name}"), REDIS_URL=f"redis://{self.db.address}:6379/0",
            HOST="0.0.0.0", PORT="8000", PUBLIC_URL=f"http://{host.address}:8000", ADMIN_TOKEN=ADMIN,
            WEB_CONCURRENCY="2", WORKER_THREADS="4", WORKER_SHARDS="1", DB_POOL_SIZE="8", SNAPSHOT_EVERY="100",
            SWEEP_AFTER_SECONDS=str(SWEEP_AFTER), SWEEP_INTERVAL_SECONDS=str(SWEEP_INTERVAL),
            CELERY_QUEUE="railpost", LOG_LEVEL="WARNING", MAX_WAIT_SECONDS="10",
            PROMETHEUS_MULTIPROC_DIR=str(self.tmp / f"metrics-{host.name}"),
            NOTIFIER_ALLOW_HTTP="1", NOTIFIER_ALLOW_LOOPBACK="1",  # the players' endpoint is app1's loopback
            NOTIFIER_CLAIM_LEASE="15",  # a delivery a killed notifier had claimed is tried again after this
            PYTHONPATH=str(ROOT), PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        )
        return env

    def start_app(self, host: net.Host, first: bool) -> None:
        """The Procfile's processes on one host: web, worker, beat (one per host here: a beat on a host that
        dies would stop the sweep everywhere; two are harmless, infra/SCALING.md), and on app1 the notifier."""
        celery = [str(Path(sys.executable).parent / "celery"), "-A", "services.rules_worker.celery_app"]
        quiet = ["--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "WARNING"]
        roles: list[tuple[str, list[str]]] = [
            ("web", [str(Path(sys.executable).parent / "gunicorn"), "-c", str(ROOT / "infra" / "gunicorn.conf.py")]),
            ("worker", [*celery, "worker", "-n", f"worker@{host.name}", "-Q", "railpost", "--pool", "threads",
                        "-c", "4", *quiet]),
            ("beat", [*celery, "beat", "-l", "WARNING", "-s", str(self.tmp / f"celerybeat-{host.name}")]),
        ]
        if first:
            roles.append(("notifier", [sys.executable, "-m", "services.notifier"]))
        for role, argv in roles:
            env = self.host_env(host, role)
            if role == "worker" and host is self.apps[-1]:  # the host whose cable is pulled mid-move: a
                env["RAILPOST_TEST_SLEEP_BEFORE_COMMIT"] = "0.15"  # wider window for it to be at work then
            self.fleet.add(net.Proc(host, role, argv, env, self.logs / f"{host.name}-{role}.log", ROOT))

    def start(self) -> Hosts:
        driver = net.build([self.db, *self.apps])
        self.start_db()
        net.enter(driver.ns)  # from here on this process is the driver host
        with psycopg.connect(self.admin_url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE railpost")
        migrate = self.host_env(self.apps[0], "migrate")
        subprocess.run(["ip", "netns", "exec", self.apps[0].ns, sys.executable, "-m", "shared.eventstore.migrate"],
                       env=migrate, cwd=ROOT, check=True, capture_output=True, timeout=120)
        self.fleet.add(net.Proc(self.apps[0], "hooks", [sys.executable, "-m", "bench.scale_hooks", str(HOOK_PORT),
                                                       str(self.hooks)], migrate, self.logs / "hooks.log", ROOT))
        for i, host in enumerate(self.apps):
            self.start_app(host, i == 0)
        for host in self.apps:
            net.wait_port(driver.ns, host.address, 8000, timeout=90)
        threading.Thread(target=self._supervise, daemon=True).start()
        return Hosts([f"http://{h.address}:8000" for h in self.apps], ADMIN)

    def admin_url(self) -> str:
        return f"postgresql://postgres@{self.db.address}:5432/postgres"

    def _supervise(self) -> None:
        while not self._stop.wait(0.5):
            self.fleet.supervise()

    def stop(self) -> None:
        self._stop.set()
        self.fleet.stop_all()
        net.sweep()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- backup and restore -------------------------------------------------------------------------------
    def backup(self) -> Path:
        """pg_dump of the live database, taken from the driver while the games are played."""
        dump = self.tmp / "railpost.dump"
        subprocess.run([str(self.pg_bin / "pg_dump"), "-Fc", "-f", str(dump), self.db_url("rpst-backup")],
                       check=True, capture_output=True, timeout=300)
        return dump

    def restore(self, dump: Path) -> dict[int, int]:
        """The dump restored into a fresh database, every app host's processes started again on it (the
        notifier left off: what it told was counted already). Returns each game's version there once the
        moves the dump holds queued are settled."""
        with psycopg.connect(self.admin_url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE restored")
        subprocess.run([str(self.pg_bin / "pg_restore"), "--no-owner", "-d", self.db_url("rpst-restore", "restored"),
                        str(dump)], check=True, capture_output=True, timeout=300)
        for host in self.apps:
            for proc in self.fleet.on(host):
                if proc.role == "notifier":
                    proc.up = False
                proc.env["DATABASE_URL"] = self.db_url(f"rpst-{proc.role}-{host.name}", "restored")
                proc.signal(signal.SIGKILL)  # the supervisor starts it again, on the restored database
        for host in self.apps:
            self.wait_up(host, "restored")
        deadline = time.monotonic() + 60
        with psycopg.connect(self.db_url("rpst-driver", "restored"), autocommit=True) as conn:
            # moves queued when the dump was taken are settled now (the sweep rings them): wait for that
            while conn.execute("SELECT 1 FROM receipts WHERE status = 'queued' LIMIT 1").fetchone():
                if time.monotonic() > deadline:
                    raise TimeoutError("moves queued in the backup were not settled after the restore")
                time.sleep(0.5)
            return {r[0]: r[1] for r in conn.execute("SELECT id, version FROM games")}

    # -- faults -----------------------------------------------------------------------------------------
    def kill(self, host: net.Host, role: str | None = None, down: bool = False) -> None:
        for proc in self.fleet.on(host, role):
            if proc.role == "hooks":
                continue  # the players' endpoint, not part of the host
            if down:
                proc.up = False
            proc.signal(signal.SIGKILL)

    def revive(self, host: net.Host) -> None:
        for proc in self.fleet.on(host):
            proc.up = True  # the supervisor starts it within half a second

    def until_queued(self, timeout: float = 20.0) -> bool:
        """Wait until some move is on its way (a receipt queued, not yet settled)."""
        deadline = time.monotonic() + timeout
        with psycopg.connect(self.db_url("rpst-driver"), autocommit=True) as conn:
            while time.monotonic() < deadline:
                if conn.execute("SELECT 1 FROM receipts WHERE status = 'queued' LIMIT 1").fetchone():
                    return True
                time.sleep(0.005)
        return False

    def wait_up(self, host: net.Host, database: str = "railpost") -> None:
        net.wait_port(net.DRIVER, host.address, 8000, timeout=90)
        deadline = time.monotonic() + 60
        while "idle" not in self.sessions(host, database) and time.monotonic() < deadline:
            time.sleep(0.2)  # its rules worker has connected

    def sessions(self, host: net.Host, database: str = "railpost") -> list[str]:
        """The states of the host's rules worker's sessions on `database` as the db host sees them."""
        with psycopg.connect(self.db_url("rpst-driver"), autocommit=True) as conn:
            return sorted(r[0] or "" for r in conn.execute(
                "SELECT state FROM pg_stat_activity WHERE application_name = %s AND datname = %s",
                (f"rpst-worker-{host.name}", database)))

    def queued(self) -> set[tuple[int, str]]:
        with psycopg.connect(self.db_url("rpst-driver"), autocommit=True) as conn:
            return {(r[0], r[1]) for r in conn.execute("SELECT game_id, command_id FROM receipts "
                                                         "WHERE status = 'queued'")}


class Faults:
    """The schedule, by the share of all moves done; each fault runs in this thread while the games go on."""

    def __init__(self, cluster: Cluster, progress: Progress) -> None:
        self.cluster = cluster
        self.progress = progress
        self.done: list[str] = []
        self.cut_off = 0
        self.dump: Path | None = None
        self.lease: dict[str, Any] = {}
        a, b = cluster.apps[0], cluster.apps[-1]
        self.plan: list[tuple[float, str, Callable[[], None]]] = [
            (0.08, "kill app1's rules worker", lambda: cluster.kill(a, "worker")),
            (0.20, "cut app2 off mid-move for 6 s", lambda: self.cut(b, 6.0)),
            (0.35, "kill every process of app1, back after 5 s", lambda: self.host_down(a, 5.0)),
            (0.50, "cut app2 off mid-move and kill it there (moved lease)", lambda: self.moved_lease(b)),
            (0.58, "backup: pg_dump mid-play", self.backup),
            (0.65, "kill both rules workers", lambda: [cluster.kill(h, "worker") for h in cluster.apps]),
            (0.80, "kill app1's gunicorn workers", lambda: self.kill_web_children(a)),
        ]
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.errors: list[str] = []

    def run(self) -> None:
        for share, name, fault in self.plan:
            while self.progress.fraction < share:
                time.sleep(0.1)
            began = time.monotonic()
            try:
                fault()
                if not name.startswith("backup"):  # not a fault: the dump the restore is played on from
                    self.done.append(name)
            except Exception as err:  # noqa: BLE001 - a fault that could not be dealt is a failed run
                self.errors.append(f"{name}: {err!r}")
            print(f"{time.strftime('%H:%M:%S')} {name} ({time.monotonic() - began:.1f} s, at "
                  f"{self.progress.fraction:.0%})", file=sys.stderr, flush=True)

    def backup(self) -> None:
        self.dump = self.cluster.backup()

    def cut(self, host: net.Host, seconds: float) -> None:
        self.cluster.until_queued()
        net.cable(host, up=False)
        self.cut_off += 1
        time.sleep(seconds)
        net.cable(host, up=True)

    def host_down(self, host: net.Host, seconds: float) -> None:
        self.cluster.kill(host, down=True)
        time.sleep(seconds)
        self.cluster.revive(host)

    def kill_web_children(self, host: net.Host) -> None:
        for proc in self.cluster.fleet.on(host, "web"):
            if proc.alive() and proc.popen is not None:
                for child in subprocess.run(["pgrep", "-P", str(proc.popen.pid)], capture_output=True,
                                            text=True).stdout.split():
                    os.kill(int(child), signal.SIGKILL)

    def moved_lease(self, host: net.Host, attempts: int = 4) -> None:
        """While moves are queued, the host's cable is pulled and the host dies there. Every receipt queued at
        that moment must be settled by the other hosts within the bound; those that took longer than a second
        were the moves the dead host had taken (a doorbell its worker had popped, a receipt its gateway had
        queued without ringing). If the host held none, it rejoins and the fault is dealt again."""
        for attempt in range(1, attempts + 1):
            self.cluster.until_queued()
            net.cable(host, up=False)
            cut = time.monotonic()
            self.cut_off += 1
            self.cluster.kill(host, down=True)  # its kernel's FIN and RST never arrive: the cable is out
            waiting = self.cluster.queued()
            left = self.cluster.sessions(host)  # a transaction left open would hold its locks until it ends
            settled: list[float] = []
            bound = settle_bound(self.cluster.idle_tx)
            while waiting and time.monotonic() - cut < bound + 30:
                still = self.cluster.queued()
                settled += [time.monotonic() - cut] * len(waiting - still)
                waiting &= still
                time.sleep(0.1)
            held = [t for t in settled if t > 1.0]
            self.lease = {"queued_at_cut": len(settled) + len(waiting), "held": len(held) + len(waiting),
                          "settled_s": round(max(settled, default=0.0), 1), "bound_s": bound,
                          "unsettled": len(waiting), "attempts": attempt,
                          "open_transactions_left": left.count("idle in transaction")}
            net.cable(host, up=True)
            self.cluster.revive(host)  # the host joins again
            if held or waiting:
                return
            self.cluster.wait_up(host)


def settle_bound(idle_tx: float) -> float:
    """When a cut-off worker's move is settled elsewhere at the latest: PostgreSQL ends the silent
    transaction after idle_tx (its row lock goes), the receipt is stale after SWEEP_AFTER and the next sweep
    (within SWEEP_INTERVAL) rings again; a few seconds for the settle itself on a busy 2-core machine."""
    return max(idle_tx, SWEEP_AFTER + SWEEP_INTERVAL) + SWEEP_INTERVAL + 5.0


def seat_all(hosts: Hosts, fixtures: list[Path]) -> list[Played]:
    """Create and seat every game, subscribe every player's webhook (app1's loopback), then start them:
    the first turn of each game is told too."""
    played: list[Played] = []
    players: set[int] = set()
    for fixture in fixtures:
        record = json.loads(fixture.read_text(encoding="utf-8"))
        settings = record.get("settings") or {}
        status, made = hosts.until("POST", "/games", final=(201,), json={
            "title": record["title"], "seats": len(record["players"]), "seed": settings.get("seed") or 0,
            "undo": "free", "options": settings.get("optional_rules") or []})
        game_id = int(made["id"])
        for seat, player in enumerate(record["players"]):
            status, joined = hosts.until("POST", f"/games/{game_id}/join", final=(201,), json={
                "name": player["name"], "seat": seat, "player_id": player["id"]})
            if status != 201:
                raise RuntimeError(f"join: {status} {joined}")
            players.add(int(player["id"]))
        played.append(Played(fixture, game_id))
    for player in sorted(players):
        status, body = hosts.until("PUT", f"/notifier/subscriptions/default?player_id={player}", json={
            "channel": "webhook", "url": f"http://127.0.0.1:{HOOK_PORT}/hook/{player}", "format": "standard"})
        if status != 200:
            raise RuntimeError(f"subscribe {player}: {status} {body}")
    for game in played:
        status, body = hosts.until("POST", f"/games/{game.game_id}/start")
        if status != 200:
            raise RuntimeError(f"start: {status} {body}")
    return played


def play_restored(cluster: Cluster, hosts: Hosts, played: list[Played], limit: int, dump: Path) -> dict[str, Any]:
    """The backup taken mid-play, restored into a fresh database that the app hosts then serve: every game
    must load at the version the dump holds, equal its trace line there, and play on to the end identically."""
    versions = cluster.restore(dump)
    again = [Played(g.fixture, g.game_id) for g in played]
    progress = Progress(sum(g.total for g in played))
    threads = [threading.Thread(target=play, args=(hosts, new, limit, progress, old, versions[old.game_id]))
               for new, old in zip(again, played, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    identical = 0
    for game in again:
        lost, extra, in_order = ledger(game.sent, stored_commands(hosts, game.game_id))
        identical += game.failure is None and game.restored and in_order and not (lost or extra)
    return {"games": len(again), "loaded": sum(g.restored for g in again), "identical": identical,
            "versions_at_dump": sum(versions.values()), "moves_after": sum(len(g.sent) for g in again)
            - sum(versions.values()), "failures": [f"{g.fixture.stem}: {g.failure}" for g in again if g.failure]}


def play_all(hosts: Hosts, games: list[Played], limit: int, progress: Progress, threads: int = 0,
             every: float = 0.0) -> list[str]:
    """Play the games, all at once (`threads` 0) or by that many clients taking one game after another, the
    k-th game not started before k × `every` seconds (a steady offered load)."""
    errors: list[str] = []
    pending = list(reversed(list(enumerate(games))))
    lock = threading.Lock()
    began = time.monotonic()

    def client() -> None:
        while True:
            with lock:
                if not pending:
                    return
                k, game = pending.pop()
            time.sleep(max(0.0, began + k * every - time.monotonic()))
            try:
                play(hosts, game, limit, progress)
            except Exception as err:  # noqa: BLE001 - reported in the summary
                game.failure = f"{err!r}"
                errors.append(f"{game.fixture.name}: {err!r}")

    clients = [threading.Thread(target=client) for _ in range(threads or len(games))]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join()
    return errors


def end_checks(cluster: Cluster, hosts: Hosts, played: list[Played]) -> dict[str, Any]:
    """Every game against its trace and its stored commands, positions, the notifier (module docstring)."""
    open_ = settle(cluster.db_url("rpst-driver"))
    lost = extra = reordered = identical = 0
    for game in played:
        g_lost, g_extra, in_order = ledger(game.sent, stored_commands(hosts, game.game_id))
        lost += g_lost
        extra += g_extra
        reordered += not in_order and not (g_lost or g_extra)
        identical += game.failure is None and in_order and not (g_lost or g_extra)
    turns = turn_ledger(expected_turns(cluster.db_url("rpst-driver"), {g.game_id for g in played}),
                        told_turns(cluster.hooks))
    return {"hosts": len(cluster.apps) + 1, "app_hosts": len(cluster.apps), "games": len(played),
            "identical": identical, "lost": lost, "extra": extra, "reordered": reordered,
            "moves": sum(len(g.sent) for g in played), "lines_checked": sum(g.checked for g in played),
            "slowest_move_s": round(max(g.slowest for g in played), 1),
            "position_gaps": position_gaps(cluster.db_url("rpst-driver")), "notifier": turns,
            "notifier_kills": sum(p.restarts for p in cluster.fleet.procs if p.role == "notifier"),
            "still_open": open_, "failures": [f"{g.fixture.stem}: {g.failure}" for g in played if g.failure]}


def statuses(hosts: Hosts) -> dict[str, int]:
    five = {s: n for s, n in hosts.statuses.items() if s >= 500}
    return {"status_5xx": sum(n for s, n in five.items() if s != 503), "status_503": five.get(503, 0),
            "dropped": hosts.dropped}


def run(apps: int, limit: int, fixtures: list[Path], idle_tx: float) -> dict[str, Any]:
    cluster = Cluster(apps, idle_tx)
    atexit.register(cluster.stop)
    began = time.monotonic()
    try:
        hosts = cluster.start()
        print(f"{len(cluster.apps) + 1} hosts up in {time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)
        played = seat_all(hosts, fixtures)
        progress = Progress(sum(limit_of(f, limit) for f in fixtures))
        faults = Faults(cluster, progress)
        faults.thread.start()
        errors = play_all(hosts, played, limit, progress)
        progress.done = progress.total  # a fault still waiting for its share runs now
        faults.thread.join(timeout=120)
        for host in cluster.apps:
            cluster.revive(host)
        played_s = time.monotonic() - began
        checks = end_checks(cluster, hosts, played)
        restore = play_restored(cluster, hosts, played, limit, faults.dump) if faults.dump else {}
        summary = {**checks, "faults": len(faults.done), "cut_off": faults.cut_off, **statuses(hosts),
                   "lease": faults.lease, "restore": restore,
                   "restarts": sum(p.restarts for p in cluster.fleet.procs), "idle_tx_s": idle_tx,
                   "seconds": round(time.monotonic() - began), "play_seconds": round(played_s)}
        summary["failures"] += faults.errors + errors
        return summary
    finally:
        cluster.stop()
        atexit.unregister(cluster.stop)


def fundamentals(s: dict[str, Any]) -> bool:
    """What every run must show, whatever its faults."""
    return (s["identical"] == s["games"] and not (s["lost"] or s["extra"] or s["reordered"] or s["status_5xx"])
            and not any(s["position_gaps"].values()) and not any(s["still_open"].values())
            and s["notifier"]["told_once"] == s["notifier"]["turns"] > 0 and not s["notifier"]["told_unexpected"]
            # at-least-once: a notifier killed mid-request sends what it had claimed again, same webhook-id
            and s["notifier"]["told_twice"] <= DELIVERY_WORKERS * s["notifier_kills"] and not s["failures"])


def passed(s: dict[str, Any]) -> bool:
    lease = s["lease"]
    return (fundamentals(s) and s["faults"] == 6 and s["cut_off"] >= 2 and lease.get("unsettled") == 0
            and lease["held"] > 0 and lease["settled_s"] <= lease["bound_s"]
            and s["restore"].get("identical") == s["restore"].get("loaded") == s["games"])


def missing() -> str | None:
    """Why this machine cannot run the hosts, if it cannot."""
    if os.geteuid() != 0:
        return "it needs root (it makes network namespaces)"
    needs = {"ip": "iproute2", "setpriv": "util-linux", "redis-server": "redis-server"}
    absent = [package for tool, package in needs.items() if shutil.which(tool) is None]
    if not glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        absent.append("postgresql (Debian's server binaries)")
    return f"install {', '.join(absent)}" if absent else None


def main() -> int:
    if (why := missing()) is not None:
        print(f"make scale-test cannot run: {why}", file=sys.stderr)
        return 2
    left = net.sweep()
    if left:
        print(f"swept an earlier run's leftovers: {' '.join(left)}", file=sys.stderr)

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)  # unwinds through run()'s finally: processes, namespaces

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    names = [n for n in (os.environ.get("SCALE_GAMES") or ",".join(GAMES)).split(",") if n]
    fixtures = [CONFORMANCE / f"{n}.json" for n in names]
    summary = run(int(env_num("SCALE_HOSTS", 2)), int(env_num("SCALE_ACTIONS", 150)), fixtures,
                  env_num("SCALE_IDLE_TX", 5))
    ok = passed(summary)
    print(json.dumps({**summary, "ok": ok}), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""`make soak-faults` (issue 48, not part of `make test`): the scale test's hosts (bench/scale_test.py) under
a long run. SOAK_GAMES recorded games (default 200: every conformance game in turn, SOAK_ACTIONS moves each,
default 60) are played by SOAK_CLIENTS clients (default 6) taking one game after another, a new game started
every SOAK_MINUTES × 60 / SOAK_GAMES seconds (a steady offered load over SOAK_MINUTES, default 30), while faults strike on a clock: for a 30-minute run 100 rules
worker kills, 10 Redis restarts (every queued doorbell lost), 10 PostgreSQL restarts, 20 gunicorn worker
kills and 5 cut-offs of a host for 6 s (fewer or more in proportion to the minutes). The end checks are the
scale test's; the last line is one JSON object.

Needs root, as `make scale-test`."""

from __future__ import annotations

import atexit
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from bench import scale_net as net
from bench.scale_play import Played, Progress
from bench.scale_test import (
    CONFORMANCE,
    Cluster,
    Faults,
    end_checks,
    env_num,
    fundamentals,
    missing,
    play_all,
    seat_all,
    statuses,
)
from shared.conformance import discover

PER_30_MINUTES = {"rules worker kill": 100, "Redis restart": 10, "PostgreSQL restart": 10,
                  "gunicorn worker kill": 20, "host cut off for 6 s": 5}


def schedule(cluster: Cluster, faults: Faults, minutes: float) -> list[tuple[float, str, Callable[[], None]]]:
    """(seconds from the start, name, fault), each kind spread evenly over the run, kinds offset."""
    apps = cluster.apps
    kinds: dict[str, Callable[[int], None]] = {
        "rules worker kill": lambda i: cluster.kill(apps[i % len(apps)], "worker"),
        "Redis restart": lambda _: restart(cluster, "redis", signal.SIGKILL),
        "PostgreSQL restart": lambda _: restart(cluster, "postgres", signal.SIGINT),
        "gunicorn worker kill": lambda i: faults.kill_web_children(apps[i % len(apps)]),
        "host cut off for 6 s": lambda i: faults.cut(apps[i % len(apps)], 6.0),
    }
    plan = []
    for offset, (name, per30) in enumerate(PER_30_MINUTES.items()):
        count = max(1, round(per30 * minutes / 30))
        every = minutes * 60 / count
        for i in range(count):
            plan.append((every * (i + (offset + 1) / (len(kinds) + 1)), name,
                         lambda fault=kinds[name], i=i: fault(i)))
    return sorted(plan, key=lambda item: item[0])


def restart(cluster: Cluster, role: str, how: int) -> None:
    """The db host's server stops (SIGINT: PostgreSQL's fast shutdown; SIGKILL: Redis keeps nothing) and its
    supervisor starts it again."""
    proc = cluster.fleet.on(cluster.db, role)[0]
    if proc.popen is not None and proc.alive():
        os.kill(proc.popen.pid, how)
        proc.popen.wait(timeout=60)
    net.wait_port(net.DRIVER, cluster.db.address, 5432 if role == "postgres" else 6379, timeout=60)


def strike(plan: list[tuple[float, str, Callable[[], None]]], began: float, done: threading.Event,
           log: list[str], errors: list[str]) -> None:
    for at, name, fault in plan:
        while time.monotonic() - began < at:
            if done.wait(0.2):
                return
        try:
            fault()
            log.append(name)
        except Exception as err:  # noqa: BLE001 - a fault that could not be dealt is a failed run
            errors.append(f"{name}: {err!r}")


def run(minutes: float, games: int, limit: int, clients: int) -> dict[str, Any]:
    cluster = Cluster(int(env_num("SCALE_HOSTS", 2)), env_num("SCALE_IDLE_TX", 5))
    atexit.register(cluster.stop)
    try:
        hosts = cluster.start()
        fixtures = discover(CONFORMANCE)
        chosen = [fixtures[i % len(fixtures)] for i in range(games)]
        played: list[Played] = seat_all(hosts, chosen)
        progress = Progress(0)
        faults = Faults(cluster, progress)
        began = time.monotonic()
        done = threading.Event()
        log: list[str] = []
        errors: list[str] = []
        striker = threading.Thread(target=strike, args=(schedule(cluster, faults, minutes), began, done, log,
                                                         errors), daemon=True)
        striker.start()
        errors += play_all(hosts, played, limit, progress, clients, every=minutes * 60 / max(1, games))
        done.set()
        striker.join(timeout=120)
        for host in cluster.apps:
            cluster.revive(host)
        played_s = time.monotonic() - began
        summary = {**end_checks(cluster, hosts, played), "faults": len(log), "cut_off": faults.cut_off,
                   **statuses(hosts), "by_kind": {k: log.count(k) for k in PER_30_MINUTES},
                   "restarts": sum(p.restarts for p in cluster.fleet.procs),
                   "play_seconds": round(played_s), "moves_per_second": round(progress.done / played_s, 1)}
        summary["failures"] += errors
        return summary
    finally:
        cluster.stop()
        atexit.unregister(cluster.stop)


def main() -> int:
    if (why := missing()) is not None:
        print(f"make soak-faults cannot run: {why}", file=sys.stderr)
        return 2
    net.sweep()

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    summary = run(env_num("SOAK_MINUTES", 30), int(env_num("SOAK_GAMES", 200)), int(env_num("SOAK_ACTIONS", 60)),
                  int(env_num("SOAK_CLIENTS", 6)))
    ok = fundamentals(summary)
    print(json.dumps({**summary, "ok": ok}), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

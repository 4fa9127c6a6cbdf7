"""The flood against its floor (issue 47): Railpost and the floor (`bench/floor.py`: the same gunicorn, Celery,
Redis and PostgreSQL settings, the same driver and `?wait`, no game) are flooded alternately in one run, so
both see the same cores at the same moment, and the ratio of their rates is printed:

    flood ratio to the floor: R (railpost N/s, floor M/s)

with the CPU per move of each part of each. `RAILPOST_FLOOR_ROUNDS` pairs of phases (2) of
`RAILPOST_BENCH_SECONDS` each (15), over 200 games each; the rest of the settings as `bench_service`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import psycopg
import requests

from bench.bench_service import (
    DRIVERS,
    PHASE_SECONDS,
    PORT,
    RECORD,
    ROOT,
    CpuMeter,
    Stack,
    Table,
    calibration_ms,
    run_phase,
    scripted_actions,
    settle,
)

ROUNDS = int(os.environ.get("RAILPOST_FLOOR_ROUNDS", "2"))
GAMES = 200


class FloorStack(Stack):
    """The floor's gateway and worker in place of Railpost's, started the same way on a database of its own."""

    def _start(self) -> None:
        from bench.floor import SCHEMA

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(SCHEMA)
        super()._start()

    def _commands(self, bin_dir: Path, gateway: list[str], workers: list[list[str]]) -> tuple[list[str], list[list[str]]]:
        floor_workers = []
        for command in workers:
            command = list(command)
            command[command.index("-A") + 1] = "bench.floor:celery"
            if "--beat" in command:
                at = command.index("--beat")
                del command[at:at + 3]  # --beat -s FILE
            floor_workers.append(command)
        return gateway + ["bench.floor:app"], floor_workers


class FloorTable(Table):
    """A game the floor knows only by its number: the same posts, nothing behind them."""

    _next = [0]
    _lock = threading.Lock()

    def __init__(self) -> None:  # no game to create, join or start
        with self._lock:
            self._next[0] += 1
            number = self._next[0]
        self.path = f"/games/{number}"
        self.version = 0
        self.lock = threading.Lock()

    def token_for(self, sender: int, action: dict[str, Any]) -> str:
        return "floor"


def _phase(kind: str, script: list, index: int) -> dict[str, Any]:
    stack = FloorStack() if kind == "floor" else Stack()
    try:
        meter = CpuMeter(stack)
        http = requests.Session()
        make = FloorTable if kind == "floor" else (lambda: Table(http, json.loads(RECORD.read_text())))
        run_phase(f"{kind}-w", [make() for _ in range(20)], script, rate=100, seconds=3, threads=20, meter=meter,
                  quiet_cpu=True)  # one-off costs of a fresh stack, played off apart
        tables = [make() for _ in range(GAMES)]
        settle(stack)
        return run_phase(f"{kind}{index}", tables, script, rate=None, seconds=PHASE_SECONDS, threads=DRIVERS,
                         meter=meter)
    finally:
        stack.close()


def main() -> None:
    script = scripted_actions(json.loads(RECORD.read_text()))
    if subprocess.run(["which", "pg_isready"], capture_output=True).returncode == 0:
        subprocess.run(["bash", str(ROOT / "infra" / "ensure-services.sh")], capture_output=True, check=False)
    print(f"       machine: calibration loop {calibration_ms():.0f} ms of CPU | Python {sys.version.split()[0]} | "
          f"port {PORT}", flush=True)
    runs: dict[str, list[dict[str, Any]]] = {"floor": [], "railpost": []}
    for index in range(ROUNDS):
        for kind in ("floor", "railpost") if index % 2 == 0 else ("railpost", "floor"):
            runs[kind].append(_phase(kind, script, index))
    rate = {k: sum(r["rate"] for r in v) / len(v) for k, v in runs.items()}
    for kind, figures in runs.items():
        parts = {part: sum(f["cpu"][part] for f in figures) / len(figures) for part in figures[0]["cpu"]}
        print(f"       {kind} cpu per move (ms, mean of {len(figures)}): "
              + ", ".join(f"{k} {v:.2f}" for k, v in parts.items()) + f"; total {sum(parts.values()):.2f}", flush=True)
    print(f"flood ratio to the floor: {rate['railpost'] / rate['floor']:.2f} "
          f"(railpost {rate['railpost']:.0f}/s, floor {rate['floor']:.0f}/s)", flush=True)
    print(f"       machine: calibration loop {calibration_ms():.0f} ms of CPU", flush=True)


if __name__ == "__main__":
    main()

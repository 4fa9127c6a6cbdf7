"""Engine speed: replay time per recorded game (best of 3, set-up excluded) against the reference engine's
time on this machine (from the conformance manifest), and p50/p99 of applying one action.

Times are CPU seconds of this process (`time.process_time`), so a busy machine inflates them less. With
`REF_18XX` set, the reference engine also loads the manifest's games now (`ref_timing.rb`, CPU seconds of
the Ruby process, best of 3): "now" is that ratio, measured side by side under the same load; the
geometric mean of both ratios closes the table, with the load average, and (with `REF_18XX`) one line per
title gives the geometric mean of that title's "now" ratios."""

from __future__ import annotations

import json
import math
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from shared.engine import EngineError, GameSession
from shared.engine.session import final_active_flags

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance"


def games() -> list[tuple[str, Path, float | None]]:
    manifest = json.loads((CONFORMANCE / "manifest.json").read_text())
    out = [(g["file"], CONFORMANCE / g["file"], g.get("reference_replay_seconds_best_of_3"))
           for g in manifest["games"]]
    for path in sorted((CONFORMANCE / "generated").rglob("*.json")):
        if path.name.endswith(".setup.json"):
            continue
        out.append((str(path.relative_to(CONFORMANCE)), path, None))
    return out


def replay_once(record: dict, timings: list[float] | None = None) -> float:
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"].get("optional_rules") or [], record["id"])
    flags = final_active_flags(record["actions"])
    started = time.process_time()
    for i, action in enumerate(record["actions"]):
        t0 = time.perf_counter()
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
        if timings is not None:
            timings.append(time.perf_counter() - t0)
    return time.process_time() - started


def replay_fold(record: dict) -> float:
    """The product's replay (`railpost replay`, imports): set-up excluded, every surviving action checked."""
    GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                    record["settings"].get("optional_rules") or [], record["id"])  # warm the definition
    started = time.process_time()
    GameSession.from_record(record)
    return time.process_time() - started


def reference_now(paths: list[Path]) -> dict[str, float]:
    """The reference's CPU seconds per record measured now (empty without REF_18XX or ruby)."""
    if not os.environ.get("REF_18XX") or shutil.which("ruby") is None:
        return {}
    env = dict(os.environ, ENGINE_LOG_LEVEL=os.environ.get("ENGINE_LOG_LEVEL", "4"))
    done = subprocess.run(["ruby", str(Path(__file__).with_name("ref_timing.rb")), *map(str, paths)],
                          capture_output=True, text=True, env=env, check=False)
    out = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            out[row["file"]] = row["best"]
    return out


def geomean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def main() -> None:
    listed = games()
    now = reference_now([path for _, path, reference in listed if reference])
    print(f"{'game':58} {'actions':>7} {'best s':>8} {'act/s':>8} {'ref s':>6} {'speed':>6} {'p50 ms':>7} {'p99 ms':>7}"
          f" {'ref now':>7} {'now':>6}")
    ratios: list[float] = []
    ratios_now: list[float] = []
    by_title: dict[str, list[float]] = {}  # title -> ratios against the reference timed now
    for name, path, reference in listed:
        record = json.loads(path.read_text())
        try:
            best = min(replay_fold(record) for _ in range(3))
        except EngineError as err:
            print(f"{name:58} not playable: {err.message[:60]}")
            continue
        except Exception as err:  # noqa: BLE001 - a bench reports, it does not stop
            print(f"{name:58} replay stops: {type(err).__name__}: {str(err)[:60]}")
            continue
        timings: list[float] = []
        replay_once(record, timings)  # step by step, undo and redo included: the latency a live game sees
        timings.sort()
        p50 = statistics.median(timings) * 1000
        p99 = timings[int(len(timings) * 0.99) - 1] * 1000
        n = len(record["actions"])
        ratio = f"{reference / best:5.1f}x" if reference else "   -"
        ref = f"{reference:6.3f}" if reference else "     -"
        ref_now = now.get(str(path))
        side = f"{ref_now:7.3f} {ref_now / best:5.1f}x" if ref_now else f"{'-':>7} {'-':>6}"
        if reference:
            ratios.append(reference / best)
        if ref_now:
            ratios_now.append(ref_now / best)
            by_title.setdefault(record["title"], []).append(ref_now / best)
        print(f"{name:58} {n:7d} {best:8.3f} {n / best:8.0f} {ref} {ratio:>6} {p50:7.3f} {p99:7.3f} {side}",
              flush=True)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    for title, values in sorted(by_title.items()):  # the bar holds per title too (none under 4x)
        print(f"geomean speed {title}: {geomean(values):.2f}x (reference timed now, {len(values)} games); load {load}")
    print(f"geomean speed over the manifest: {geomean(ratios):.2f}x (manifest times)"
          + (f", {geomean(ratios_now):.2f}x (reference timed now)" if ratios_now else "") + f"; load {load}")


if __name__ == "__main__":
    main()

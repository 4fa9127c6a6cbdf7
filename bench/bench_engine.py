"""Engine speed: replay time per recorded game (best of 3, set-up excluded) against the reference engine's
time on this machine (from the conformance manifest), and p50/p99 of applying one action.

Times are CPU seconds of this process (`time.process_time`), so a busy machine does not inflate them."""

from __future__ import annotations

import json
import statistics
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


def main() -> None:
    print(f"{'game':58} {'actions':>7} {'best s':>8} {'act/s':>8} {'ref s':>6} {'speed':>6} {'p50 ms':>7} {'p99 ms':>7}")
    for name, path, reference in games():
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
        print(f"{name:58} {n:7d} {best:8.3f} {n / best:8.0f} {ref} {ratio:>6} {p50:7.3f} {p99:7.3f}", flush=True)


if __name__ == "__main__":
    main()

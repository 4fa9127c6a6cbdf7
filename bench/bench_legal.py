"""What a player waits for: legal-actions at every position of the people's games, as a ratio to loading
that whole game from its record (issue 47's bar: no position above 0.25).

For each recorded game of `tests/fixtures/conformance/<title>/` (the people's games; `--generated` adds the
generated ones): its load is the best of 3 `GameSession.from_record` (CPU seconds of this process, set-up
excluded, as `bench_engine`'s fold); then the game is stepped through action by action and after each one
the answer every acting seat gets from legal-actions (`seat_actions`, the REST answer without an entity) is
timed, summed over the acting seats. Per title: p50, p99 and worst of those times as a ratio to their own
game's load, and where the worst is. CPU seconds, so a busy machine inflates them less."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from services.play.legal import seat_actions
from shared.engine import GameSession
from shared.engine.session import final_active_flags

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance"
BAR = 0.25


def records(generated: bool = False) -> list[Path]:
    titles = sorted(p for p in CONFORMANCE.iterdir() if p.is_dir() and p.name != "generated")
    found = [f for t in titles for f in sorted(t.glob("*.json")) if not f.name.endswith(".setup.json")]
    if generated:
        found += [f for f in sorted((CONFORMANCE / "generated").rglob("*.json")) if not f.name.endswith(".setup.json")]
    return found


def _new(record: dict) -> GameSession:
    return GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                           record["settings"].get("optional_rules") or [], record["id"])


def load_seconds(record: dict) -> float:
    _new(record)  # warm the title's definition
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        GameSession.from_record(record)
        best = min(best, time.process_time() - started)
    return best


def position_seconds(record: dict) -> list[float]:
    """The CPU seconds of legal-actions for every acting seat after each recorded action."""
    session = _new(record)
    flags = final_active_flags(record["actions"])
    out = []
    for i, action in enumerate(record["actions"]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
        started = time.process_time()
        for pid in session.acting_players():
            seat_actions(session, pid)
        out.append(time.process_time() - started)
    return out


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main() -> None:
    paths = records(generated="--generated" in sys.argv)
    print(f"{'game':44} {'positions':>9} {'load ms':>8} {'p50 ms':>7} {'p99 ms':>8} {'worst ms':>9} {'at':>5}"
          f" {'worst/load':>10}")
    by_title: dict[str, list[tuple[float, str, int]]] = {}  # title -> (ratio, game, index)
    for path in paths:
        record = json.loads(path.read_text())
        load = load_seconds(record)
        times = position_seconds(record)
        name = str(path.relative_to(CONFORMANCE))
        worst = max(range(len(times)), key=times.__getitem__)
        print(f"{name:44} {len(times):9d} {load * 1000:8.1f} {_quantile(times, 0.5) * 1000:7.2f}"
              f" {_quantile(times, 0.99) * 1000:8.2f} {times[worst] * 1000:9.1f} {worst:5d}"
              f" {times[worst] / load:9.2f}x", flush=True)
        by_title.setdefault(record["title"], []).extend((t / load, name, i) for i, t in enumerate(times))
    print(f"\n{'title':12} {'positions':>9} {'p50/load':>9} {'p99/load':>9} {'worst/load':>10}  worst at")
    over = 0
    for title, rows in sorted(by_title.items()):
        ratios = [r for r, _, _ in rows]
        worst = max(rows)
        over += sum(r > BAR for r in ratios)
        print(f"{title:12} {len(rows):9d} {_quantile(ratios, 0.5):9.4f} {_quantile(ratios, 0.99):9.4f}"
              f" {worst[0]:10.3f}  {worst[1]} after action index {worst[2]}")
    load_avg = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"legal-actions positions above {BAR} of their game's load: {over}; load {load_avg}")


if __name__ == "__main__":
    main()

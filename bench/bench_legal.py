"""What a player waits for: legal-actions at every position of the people's games, as a ratio to loading
that whole game from its record (issue 47's bar: no position above 0.25).

For each recorded game of `tests/fixtures/conformance/<title>/` (the people's games; `--generated` adds the
generated ones): its load is the best of 3 `GameSession.from_record` (CPU seconds of this process, set-up
excluded, as `bench_engine`'s fold); then the game is stepped through action by action, and after each one
two things are timed, each as a ratio to its own game's load (p50, p99 and worst per title, and where):

- **worked out**: the answer every acting seat gets from the engine (`seat_actions`, the REST answer
  without an entity), summed over the acting seats. The rules worker works this out after it has answered
  the move (services/play/offers.py, for every seat of a game someone reads): nobody waits for it there,
  but it is what a reader waits for when nothing was kept (the game's first read after a quiet spell).
- **served**: what each acting seat waits for when it asks: its kept answer read back from the shelf the
  service uses (Redis when `REDIS_URL` is set, else the embedded one) and split into its own moves and
  proposals as the gateway does, summed over the acting seats; its CPU seconds give the ratio, as above,
  and the worst wall time per game is printed beside them (a Redis read waits on a socket, and on a busy
  host for its turn on a core).

CPU seconds, so a busy machine inflates them less. The heap is frozen after each action (`gc.freeze`, as the
rules worker keeps its sessions out of the collector): a full collection of the whole game, which lands on
whichever position the collector's counters pick, is not charged to that position's answer."""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from pathlib import Path

from services.play.legal import seat_actions
from services.play.offers import LocalShelf, Shelf, make_shelf, position_offers
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


def position_seconds(record: dict, shelf: Shelf | None = None) -> tuple[list[float], list[float], list[float]]:
    """Per position after each recorded action: the CPU seconds of legal-actions for every acting seat (worked
    out by the engine), and the CPU and the wall seconds of reading those seats' kept answers back (served)."""
    session = _new(record)
    flags = final_active_flags(record["actions"])
    shelf = shelf if shelf is not None else LocalShelf()
    game_id = abs(hash(record["id"])) % 1_000_000_000
    worked, served, waited = [], [], []
    for i, action in enumerate(record["actions"]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
        # what exists now is left out of the collector (as the rules worker keeps its sessions out of it,
        # services/play/sessions.py `HEAP`): a full collection of the whole game, landing where the
        # collector's counters say, is not one position's answer
        gc.freeze()
        acting = [int(p) for p in session.acting_players()]
        started = time.process_time()
        for pid in acting:
            seat_actions(session, pid)
        worked.append(time.process_time() - started)
        shelf.put(game_id, i, position_offers(session))  # as the rules worker does after the move
        started, wall = time.process_time(), time.perf_counter()
        for pid in acting:
            kept = shelf.get(game_id, i, pid)
            assert kept is not None, f"position {i}: seat {pid} has nothing kept"
            kept.split(_split_both)
        served.append(time.process_time() - started)
        waited.append(time.perf_counter() - wall)
    gc.unfreeze()
    gc.collect()
    return worked, served, waited


def _split_both(kind: str | None) -> bool:  # a table that votes on the end and consents to purchases: both split
    return kind is not None


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _title_table(label: str, by_title: dict[str, list[tuple[float, str, int]]]) -> int:
    print(f"\n{label}\n{'title':12} {'positions':>9} {'p50/load':>9} {'p99/load':>9} {'worst/load':>10}  worst at")
    over = 0
    for title, rows in sorted(by_title.items()):
        ratios = [r for r, _, _ in rows]
        worst = max(rows)
        over += sum(r > BAR for r in ratios)
        print(f"{title:12} {len(rows):9d} {_quantile(ratios, 0.5):9.4f} {_quantile(ratios, 0.99):9.4f}"
              f" {worst[0]:10.3f}  {worst[1]} after action index {worst[2]}")
    return over


def main() -> None:
    paths = records(generated="--generated" in sys.argv)
    shelf = make_shelf(os.environ.get("REDIS_URL") or None)
    print(f"kept answers read from: {type(shelf).__name__}")
    print(f"{'game':44} {'positions':>9} {'load ms':>8} {'p50 ms':>7} {'p99 ms':>8} {'worst ms':>9} {'at':>5}"
          f" {'worst/load':>10} {'served worst ms':>15} {'/load':>7} {'wall worst ms':>13}")
    worked_by: dict[str, list[tuple[float, str, int]]] = {}  # title -> (ratio, game, index)
    served_by: dict[str, list[tuple[float, str, int]]] = {}
    for path in paths:
        record = json.loads(path.read_text())
        load = load_seconds(record)
        times, served, waited = position_seconds(record, shelf)
        name = str(path.relative_to(CONFORMANCE))
        worst = max(range(len(times)), key=times.__getitem__)
        slowest = max(served)
        print(f"{name:44} {len(times):9d} {load * 1000:8.1f} {_quantile(times, 0.5) * 1000:7.2f}"
              f" {_quantile(times, 0.99) * 1000:8.2f} {times[worst] * 1000:9.1f} {worst:5d}"
              f" {times[worst] / load:9.2f}x {slowest * 1000:15.2f} {slowest / load:6.3f}x"
              f" {max(waited) * 1000:13.2f}", flush=True)
        worked_by.setdefault(record["title"], []).extend((t / load, name, i) for i, t in enumerate(times))
        served_by.setdefault(record["title"], []).extend((t / load, name, i) for i, t in enumerate(served))
    over_worked = _title_table("worked out by the engine (after the answer; what a first reader waits for)",
                               worked_by)
    over = _title_table("served: what a seat waits for when it asks (its kept answer)", served_by)
    load_avg = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"legal-actions positions above {BAR} of their game's load: served {over}, worked out {over_worked};"
          f" load {load_avg}")


if __name__ == "__main__":
    main()

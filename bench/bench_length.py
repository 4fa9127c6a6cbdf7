"""Per-move cost against game length: is one live move as cheap late in a long game as early on?

The longest 1825 Units 1+2+3 record in the conformance corpus is folded up to action N (N = 100, 1,000,
5,000 when the record is that long, and its last stretch), then the next `WINDOW` recorded actions are
posted one by one as live moves (`as_posted`: the server derives ids and standing-order consequences, every
action checked), each timed in CPU seconds of this thread. Each window is replayed `REPEATS` times and
each move keeps its best time, so a busy shared machine inflates the figures less; p50/p99 are taken over
the window's moves. The machine's load average is printed beside them."""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path

from shared.engine import GameSession
from shared.engine.session import as_posted

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "tests" / "fixtures" / "conformance" / "generated" / "1825" / "gen1825_unit_123_5p_514468.json"
POINTS = (100, 1000, 5000)
WINDOW = 60
REPEATS = 3


def chatty(record: dict, extra: int) -> dict:
    """The record with `extra` chat lines posted, two after each of its first actions (ids renumbered, undo
    targets with them): a table that talks a lot, as play by mail does. Its log grows while its moves stay
    the record's, so the record's last stretch comes again after a log twice as long: the same moves, and
    what a longer history alone costs them."""
    actions, ids, left = [], {}, extra
    for action in record["actions"]:
        ids[action["id"]] = len(actions) + 1
        actions.append({**action, "id": len(actions) + 1})
        for n in range(min(2, left)):
            actions.append({"type": "message", "entity": record["players"][n % len(record["players"])]["id"],
                            "entity_type": "player", "message": f"line {len(actions)}", "id": len(actions) + 1})
            left -= 1
    for action in actions:
        if action["type"] == "undo" and isinstance(action.get("action_id"), int) and action["action_id"]:
            action["action_id"] = ids[action["action_id"]]
    return {**record, "actions": actions}


def window_times(record: dict, start: int) -> list[float]:
    """Best-of-`REPEATS` CPU seconds of each live move in actions[start:start + WINDOW]."""
    best: list[float] = []
    for _ in range(REPEATS):
        session = GameSession.from_record(record, limit=start)
        posted: dict[int, int] = {}
        times = []
        for action in record["actions"][start:start + WINDOW]:
            move = as_posted(action, posted)
            t0 = time.thread_time()
            stored = session.submit(move)
            times.append(time.thread_time() - t0)
            if isinstance(action.get("id"), int):
                posted[action["id"]] = stored["id"]
        best = times if not best else [min(a, b) for a, b in zip(best, times, strict=True)]
    return best


def main() -> None:
    record = json.loads(GAME.read_text())
    total = len(record["actions"])
    print(f"{GAME.name} ({total} actions): one live move, CPU ms, best of {REPEATS} per move, {WINDOW} moves; "
          f"'+chat': its last stretch again after chat lines that bring it to action {POINTS[-1]} of the log")
    print(f"{'at action':>16} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  load")
    for label, game, start in plan_points(record):
        times = sorted(window_times(game, start))
        p50 = statistics.median(times) * 1000
        p99 = times[max(0, int(len(times) * 0.99) - 1)] * 1000
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{label:>16} {p50:8.3f} {p99:8.3f} {times[-1] * 1000:8.3f}  {load}", flush=True)


def plan_points(record: dict) -> list[tuple[str, dict, int]]:
    """(label, record, first action of the window): the record at each point it reaches, its last stretch,
    and that last stretch again at the last point (5,000) of a chatty copy of the record (`chatty`), when the
    record itself does not reach that far."""
    total = len(record["actions"])
    points = [(f"{p}", record, p) for p in POINTS if p + WINDOW <= total]
    last = total - WINDOW
    points.append((f"{last}", record, last))
    if POINTS[-1] > last:
        points.append((f"{POINTS[-1]} (+chat)", chatty(record, POINTS[-1] - last), POINTS[-1]))
    return points

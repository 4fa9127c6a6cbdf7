"""Replay one record N times with `GameSession.from_record` (the product's replay, as `bench engine` times
it; the definition warmed first) and print the best CPU time: the script the py-spy profiles here sample.

    nice -n 15 .venv/bin/py-spy record -r 400 -f raw -o OUT.raw -- \\
        .venv/bin/python -m bench.profiles.replay_one RECORD.json 15
    grep from_record OUT.raw > OUT.fr.raw   # the replays only, set-up of the definition left out
    python -m bench.profiles.summarise OUT.txt OUT.fr.raw
"""

from __future__ import annotations

import json
import sys
import time

from shared.engine import GameSession


def main() -> None:
    path = sys.argv[1]
    times = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with open(path) as handle:
        record = json.load(handle)
    GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                    record["settings"].get("optional_rules") or [], record["id"])
    best = float("inf")
    for _ in range(times):
        started = time.process_time()
        GameSession.from_record(record)
        best = min(best, time.process_time() - started)
    print(f"{path}: best {best:.4f} s CPU of {times}")


if __name__ == "__main__":
    main()

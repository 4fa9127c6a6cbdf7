"""Rules-worker CPU per doorbell, by path: `python -m bench.profiles.doorbell_cost [N]`.

Starts the bench's stack (bench_service.Stack: a throwaway database, gunicorn, the rules worker as
`services.run` starts it), creates one started game and rings N doorbells for it with nothing queued, first
as Celery task messages (what the gateway pushed before the doorbell lane) and then on the worker's doorbell
lane (services/rules_worker/lane.py). Each doorbell costs the same minimal apply (lock the game, find nothing
queued), so the difference between the two figures is the delivery machinery alone. Prints the worker's CPU
ms per doorbell for each, with the load average."""

from __future__ import annotations

import json
import os
import sys
import time

import redis
import requests

from bench.bench_service import QUEUE, RECORD, REDIS_URL, CpuMeter, Stack, Table, load_text, settle
from services.play.dispatch import APPLY_TASK, doorbell_message
from services.rules_worker.lane import doorbell, doorbell_list


def _drained(client: redis.Redis, key: str) -> None:
    deadline = time.monotonic() + 120
    while client.llen(key) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    stack = Stack()
    try:
        table = Table(requests.Session(), json.loads(RECORD.read_text()))
        game_id = int(table.path.rsplit("/", 1)[1])
        settle(stack)
        client = redis.Redis.from_url(REDIS_URL)
        meter = CpuMeter(stack)
        for name, key, message in (
            ("celery task", QUEUE, lambda i: doorbell_message(APPLY_TASK, [game_id, f"none-{i}"], QUEUE, "bench")),
            ("doorbell lane", doorbell_list(QUEUE), lambda i: doorbell(game_id, f"none-{i}", None)),
        ):
            before = meter.sample()
            started = time.monotonic()
            for start in range(0, count, 100):
                client.lpush(key, *[message(i) for i in range(start, min(count, start + 100))])
                _drained(client, key)  # batches keep the queue short, as steady play does
            after = meter.sample()
            cpu = (after["workers"] - before["workers"]) / count * 1000
            pg = (after["postgres"] - before["postgres"]) / count * 1000
            print(f"{name:14s} {count} doorbells in {time.monotonic() - started:.1f}s: worker {cpu:.2f} ms, "
                  f"postgres {pg:.2f} ms per doorbell | load {load_text()} (pid {os.getpid()})", flush=True)
    finally:
        stack.close()


if __name__ == "__main__":
    main()

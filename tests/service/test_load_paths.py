"""The pieces added for the load targets (issue 3) that the end-to-end tests do not isolate: shard routing,
settle announcements waking long-polls, and the worker layout `services.run` starts."""

from __future__ import annotations

import threading
import time

from services.config import Config
from services.play.commands import wait_for
from services.play.signals import LocalSignals
from services.run import worker_commands
from shared.eventstore.records import APPLIED, QUEUED, Receipt


def test_a_game_always_lands_on_the_same_shard_queue() -> None:
    assert Config(celery_queue="rp").queue_for(7) == "rp"
    sharded = Config(celery_queue="rp", worker_shards=3)
    assert [sharded.queue_for(g) for g in (1, 2, 3, 4, 301)] == ["rp.1", "rp.2", "rp.0", "rp.1", "rp.1"]


def test_each_shard_worker_takes_its_queue_and_the_shared_one_and_only_the_first_runs_beat() -> None:
    commands = worker_commands("celery", Config(redis_url="redis://x", celery_queue="rp", worker_shards=2))
    assert [c[c.index("-Q") + 1] for c in commands] == ["rp.0,rp", "rp.1,rp"]
    assert ["--beat" in c for c in commands] == [True, False]
    single = worker_commands("celery", Config(redis_url="redis://x", celery_queue="rp"))
    assert len(single) == 1 and single[0][single[0].index("-Q") + 1] == "rp" and "--beat" in single[0]


class _Store:
    """Just enough recorder for `wait_for`: counts reads, settles when told."""

    def __init__(self) -> None:
        self.receipt = Receipt(1, "k", "h", QUEUED, 0, 5, {"type": "pass"}, time.time())
        self.reads = 0

    def get_receipt(self, game_id: int, command_id: str) -> Receipt:
        self.reads += 1
        return self.receipt


def test_an_announcement_wakes_the_waiter_with_the_stored_outcome() -> None:
    signals, store = LocalSignals(), _Store()
    outcome = {"command_id": "k", "status": APPLIED, "new_version": 1, "reason": None, "rule": None,
               "http_status": 200, "settled_at": time.time()}
    threading.Timer(0.05, lambda: signals.announce(1, [{**outcome, "command_id": "other"}, outcome])).start()
    started = time.monotonic()
    receipt = wait_for(store, 1, "k", 5.0, signals)  # type: ignore[arg-type]
    assert receipt is not None and receipt.status == APPLIED and receipt.new_version == 1
    assert receipt.http_status == 200 and receipt.action == {"type": "pass"}
    assert time.monotonic() - started < 0.4  # woken, not found by the 0.5 s re-check
    assert store.reads == 1  # the announcement answered; no second read


def test_without_an_announcement_the_waiter_still_finds_the_outcome_in_the_store() -> None:
    signals, store = LocalSignals(), _Store()

    def settle_silently() -> None:
        store.receipt = Receipt(1, "k", "h", APPLIED, 0, 5, {"type": "pass"}, time.time(), new_version=1,
                                http_status=200, settled_at=time.time())

    threading.Timer(0.05, settle_silently).start()
    receipt = wait_for(store, 1, "k", 5.0, signals)  # type: ignore[arg-type]
    assert receipt is not None and receipt.status == APPLIED and store.reads >= 2
    assert not signals._waiters  # the watch is gone once the wait ends

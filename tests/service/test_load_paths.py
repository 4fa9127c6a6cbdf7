"""The pieces added for the load targets (issue 3) that the end-to-end tests do not isolate: shard routing,
settle announcements waking long-polls, and the worker layout `services.run` starts."""

from __future__ import annotations

import json
import secrets
import threading
import time

import redis

from services.config import Config
from services.play.commands import wait_for
from services.play.signals import LocalSignals, RedisSignals
from services.run import worker_commands
from shared.eventstore.records import APPLIED, QUEUED, Receipt

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess, wait_until
from .helpers import Api, as_submitted, load_record


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
    for command in commands + single:  # one process per worker, its sessions shared by a thread pool
        assert command[command.index("--pool") + 1] == "threads" and command[command.index("-c") + 1] == "4"
        assert {"--without-gossip", "--without-mingle", "--without-heartbeat"} <= set(command)


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


def test_a_watch_fires_once_for_its_one_waiter_and_stays_fired() -> None:
    """The waiter may wait in several slices (it rechecks the store between them) and must see the
    announcement whichever slice it lands in; an announcement repeated (redelivered doorbell) is harmless;
    a watch nobody announced times out."""
    signals = LocalSignals()
    with signals.watch(1, "a") as quiet:
        started = time.monotonic()
        assert not quiet.wait(0.05)
        assert time.monotonic() - started >= 0.04
    with signals.watch(1, "k") as watch:
        woke: list[bool] = []
        waiter = threading.Thread(target=lambda: woke.append(watch.wait(5.0)))
        waiter.start()
        signals.announce(1, [_settled("k")])
        signals.announce(1, [_settled("k")])  # the same outcome twice
        waiter.join(5)
        assert woke == [True] and watch.outcome is not None and watch.outcome["command_id"] == "k"
        assert watch.wait(0.0) and watch.wait(0.0)  # still fired on the next slice


def test_without_an_announcement_the_waiter_still_finds_the_outcome_in_the_store() -> None:
    signals, store = LocalSignals(), _Store()

    def settle_silently() -> None:
        store.receipt = Receipt(1, "k", "h", APPLIED, 0, 5, {"type": "pass"}, time.time(), new_version=1,
                                http_status=200, settled_at=time.time())

    threading.Timer(0.05, settle_silently).start()
    receipt = wait_for(store, 1, "k", 5.0, signals)  # type: ignore[arg-type]
    assert receipt is not None and receipt.status == APPLIED and store.reads >= 2
    assert not signals._waiters  # the watch is gone once the wait ends


def _settled(command_id: str) -> dict[str, object]:
    return {"command_id": command_id, "status": APPLIED, "new_version": 1, "reason": None, "rule": None,
            "http_status": 200, "settled_at": time.time()}


def test_an_outcome_sent_to_a_reply_channel_reaches_only_that_gateway_process(redis_url: str) -> None:
    """Two gateway processes of one deployment (two RedisSignals on real Redis), both watching the same
    command: announced with A's reply channel only A hears it; announced without one (or with a channel
    outside the deployment's namespace) both do."""
    queue = f"rp-{secrets.token_hex(3)}"
    a, b = RedisSignals(redis_url, queue), RedisSignals(redis_url, queue)
    worker = RedisSignals(redis_url, queue)
    try:
        with a.watch(1, "k1") as heard_a, b.watch(1, "k1") as heard_b:
            own = a.reply_channel()
            assert own is not None and own != b.reply_channel()
            worker.announce(1, [_settled("k1")], own)
            assert heard_a.wait(2.0) and heard_a.outcome and heard_a.outcome["command_id"] == "k1"
            assert not heard_b.wait(0.3)
        for reply_to in (None, "railpost:settled:elsewhere"):
            with a.watch(2, "k2") as heard_a, b.watch(2, "k2") as heard_b:
                worker.announce(2, [_settled("k2")], reply_to)
                assert heard_a.wait(2.0) and heard_b.wait(2.0)
    finally:
        for signals in (a, b, worker):
            signals.close()


def test_a_waiting_submit_hears_its_outcome_on_its_own_channel(gateway: LiveServer, worker: WorkerProcess,
                                                               service_config: Config) -> None:
    """End to end (gateway, Redis, a real Celery worker): the worker announces the outcome of a command
    submitted with `?wait` on the submitting process's reply channel, and of one submitted without waiting
    on the shared channel. A spy subscribed to every settle channel of the deployment sees which."""
    shared = f"railpost:settled:{service_config.celery_queue}"
    spy = redis.Redis.from_url(service_config.redis_url or "").pubsub(ignore_subscribe_messages=True)
    spy.psubscribe(shared + "*")
    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    waited, queued = (as_submitted(a) for a in record["actions"][:2])
    assert api.act(game_id, tokens[waited["entity"]], waited, 0, key="waited").status_code == 200
    assert api.act(game_id, tokens[queued["entity"]], queued, 1, key="queued", wait=0).status_code == 202
    heard: dict[str, str] = {}

    def both_heard() -> bool:
        message = spy.get_message(timeout=0.2)
        if message is not None and message["type"] == "pmessage":
            settled_game, outcomes = json.loads(message["data"])
            if settled_game == game_id:
                heard.update({o["command_id"]: message["channel"].decode() for o in outcomes})
        return {waited_id, queued_id} <= heard.keys()

    waited_id, queued_id = f"p{waited['entity']}:waited", f"p{queued['entity']}:queued"  # caller-scoped keys
    wait_until(both_heard, timeout=20)
    spy.close()
    assert heard[waited_id].startswith(shared + ":") and heard[queued_id] == shared

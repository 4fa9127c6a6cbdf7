"""Ordering and exactly-once effect under races, duplicate deliveries and a worker killed mid-task.
Needs the rules engine (a started game) and starts real Celery worker processes."""

from __future__ import annotations

import secrets
import uuid

import psycopg

from services.config import Config
from services.play.dispatch import CeleryDispatcher

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess, wait_until
from .helpers import Api, as_submitted, load_record, race_first_move


def test_twenty_racers_one_winner(gateway: LiveServer, worker: WorkerProcess) -> None:
    codes, versions = race_first_move(gateway.url, ADMIN_TOKEN)
    assert codes == [200] + [409] * 19
    assert versions == [1]


def test_duplicate_deliveries_and_retries_give_one_event(gateway: LiveServer, worker: WorkerProcess,
                                                         service_config: Config) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    first = as_submitted(record["actions"][0])
    key = uuid.uuid4().hex
    replies = [api.act(game_id, tokens[first["entity"]], first, 0, key=key) for _ in range(3)]
    assert [r.status_code for r in replies] == [200, 200, 200]
    assert {r.json()["new_version"] for r in replies} == {1}
    dispatcher = CeleryDispatcher(service_config)
    for _ in range(3):  # the broker hands the same task out again
        dispatcher.publish(game_id, key)
    second = as_submitted(record["actions"][1])
    applied = api.act(game_id, tokens[second["entity"]], second, 1)
    assert applied.json()["new_version"] == 2
    events = api.call("GET", f"/games/{game_id}/events").json()["events"]
    assert [e["version"] for e in events] == [1, 2]
    assert [e["command_id"] for e in events][0] == f"p{first['entity']}:{key}"  # keys live in their caller's scope


SLOW_WORKER = "railpost-slow-worker"  # the killed worker's connections name themselves (libpq's PGAPPNAME)


def _deciding(dbname: str) -> bool:
    """Whether the slow worker has read the game to settle its command and not yet written: a connection of
    that worker (other workers' pools may also have the read as their last statement) whose last statement
    is the settle read (shared/eventstore/guarded.py), idle while it sleeps before writing."""
    from shared.eventstore.guarded import READ

    with psycopg.connect(ADMIN_DSN(dbname), autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = %s "
                           "AND state = 'idle' AND query = %s",
                           (dbname, SLOW_WORKER, READ.replace("%s", "$1"))).fetchone()
    return bool(row and row[0])


def ADMIN_DSN(dbname: str) -> str:  # noqa: N802 (reads like a constant)
    from .conftest import _pg_url

    return _pg_url(dbname)


def test_worker_killed_mid_task_applies_exactly_once(gateway: LiveServer, service_config: Config) -> None:
    from services.gateway import create_app

    config = service_config.with_(celery_queue=f"railpost-kill-{secrets.token_hex(3)}")
    app = create_app(config).test_client()
    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    first = as_submitted(record["actions"][0])
    slow = WorkerProcess(config, concurrency=1, RAILPOST_TEST_SLEEP_BEFORE_COMMIT="30", PGAPPNAME=SLOW_WORKER)
    try:
        reply = app.post(f"/games/{game_id}/actions", json={"action": first, "expected_version": 0},
                         headers={"Authorization": f"Bearer {tokens[first['entity']]}", "Idempotency-Key": "kill-1"})
        assert reply.status_code == 202
        dbname = config.database_url.rsplit("/", 1)[1]
        wait_until(lambda: _deciding(dbname), timeout=30)
        slow.kill()
    finally:
        slow.kill()
    wait_until(lambda: not _deciding(dbname), timeout=10)
    kill = f"p{first['entity']}:kill-1"  # the seat's key, named in full by the operator
    receipt = api.call("GET", f"/games/{game_id}/receipts/{kill}", ADMIN_TOKEN).json()
    # nothing of the killed worker's decision was stored; the session worker's sweep (it re-publishes receipts
    # queued longer than 2 s) may already have applied it
    if receipt["status"] == "queued":
        assert api.call("GET", f"/games/{game_id}/state").json()["version"] == 0
    else:
        assert receipt["status"] == "applied" and receipt["new_version"] == 1
    fresh = WorkerProcess(config, concurrency=1)
    try:
        receipt = api.call("GET", f"/games/{game_id}/receipts/{kill}?wait=10", ADMIN_TOKEN).json()
        if receipt["status"] == "queued":
            receipt = wait_until(lambda: (r := api.call("GET", f"/games/{game_id}/receipts/{kill}",
                                                        ADMIN_TOKEN).json())["status"] != "queued" and r, 30)
        assert receipt["status"] == "applied" and receipt["new_version"] == 1
        second = as_submitted(record["actions"][1])
        reply = app.post(f"/games/{game_id}/actions?wait=10", json={"action": second, "expected_version": 1},
                         headers={"Authorization": f"Bearer {tokens[second['entity']]}", "Idempotency-Key": "k2"})
        assert reply.status_code == 200, reply.json
    finally:
        fresh.stop()
    events = api.call("GET", f"/games/{game_id}/events").json()["events"]
    assert [e["version"] for e in events] == [1, 2]
    assert [e["command_id"] for e in events] == [kill, f"p{second['entity']}:k2"]


def test_a_lost_drain_is_rung_again_by_the_sweep(gateway: LiveServer, worker: WorkerProcess,
                                                 service_config: Config) -> None:
    """A doorbell whose drain task was lost (its worker died with the message) waits in its queue's list with
    the "rung" flag still set: the sweep rings a drain for it, which settles the command well before the flag
    would have let a later doorbell ring (`services.play.bells`)."""
    import redis

    from services.play.bells import FLAG_SECONDS, bells_key, flag_key

    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    first = as_submitted(record["actions"][0])
    queue = service_config.queue_for(game_id)
    client = redis.Redis.from_url(service_config.redis_url or "")
    client.set(flag_key(queue), "1", ex=600)  # a drain was rung, and its message is gone
    try:
        reply = api.act(game_id, tokens[first["entity"]], first, 0, key="lost-drain", wait=0)
        assert reply.status_code == 202
        url = f"/games/{game_id}/receipts/lost-drain"
        receipt = wait_until(lambda: (r := api.call("GET", url, tokens[first["entity"]]).json())["status"]
                             != "queued" and r, timeout=FLAG_SECONDS * 4)
        assert receipt["status"] == "applied" and receipt["new_version"] == 1
        # only a drain takes doorbells from the list, and it clears the flag as it does
        wait_until(lambda: client.llen(bells_key(queue)) == 0, timeout=FLAG_SECONDS * 4)
        assert client.ttl(flag_key(queue)) < 600
    finally:
        client.delete(flag_key(queue))
        client.close()


def test_a_doorbell_signed_with_another_key_moves_nobody(gateway: LiveServer, worker: WorkerProcess,
                                                         service_config: Config) -> None:
    """A command nobody stored rides its doorbell signed with the store's key (`Config.doorbell_key`): one
    written into Redis by anyone else is taken by the drain and stores nothing, while the same command signed
    right is applied (so the test would see a move if forging worked)."""
    import time

    import redis

    from services.play.bells import bells_key
    from services.play.commands import body_hash
    from services.play.dispatch import doorbell_receipt, make_bells
    from shared.eventstore import Receipt
    from shared.eventstore.records import QUEUED

    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    first = as_submitted(record["actions"][0])
    player = api.actor(game_id, record["actions"][0])
    client = redis.Redis.from_url(service_config.redis_url or "")
    bells = make_bells(client, "test@host")
    queue = service_config.queue_for(game_id)

    def ring(key: str, signed_with: bytes) -> None:
        body = {"action": first, "expected_version": 0}
        receipt = Receipt(game_id, f"p{player}:{key}", body_hash(body), QUEUED, 0, player, first, time.time())
        bells.ring(queue, [game_id, receipt.command_id, None, doorbell_receipt(receipt, signed_with)])

    try:
        ring("forged", b"not the store's key")
        wait_until(lambda: client.llen(bells_key(queue)) == 0, timeout=20)
        time.sleep(0.5)  # the drain that took it has settled what it would settle
        assert api.call("GET", f"/games/{game_id}/receipts/p{player}:forged", ADMIN_TOKEN).status_code == 404
        assert api.call("GET", f"/games/{game_id}/state").json()["version"] == 0
        ring("signed", service_config.doorbell_key)
        receipt = wait_until(lambda: (r := api.call("GET", f"/games/{game_id}/receipts/p{player}:signed",
                                                    ADMIN_TOKEN)).status_code == 200 and r.json(), timeout=20)
        assert receipt["status"] == "applied" and receipt["new_version"] == 1
    finally:
        client.close()

"""The service floor (issue 47): the shape of a move with no game in it, run by the same processes with the same
settings as Railpost, so that `bench_floor` can flood it and Railpost alternately and print their ratio.

- Gateway (`app`, served by gunicorn with `infra/gunicorn.conf.py`, the same worker class and threads):
  `POST /games/<id>/actions?wait=` validates the body with the gateway's own schema (`ActionIn`), rings one
  Celery task over Redis with the body and its reply channel, and waits for the announcement on the same
  `RedisSignals` Railpost's gateway waits on.
- Rules worker (`celery`, started as `services.run.worker_commands` starts Railpost's, the same Celery
  settings): the task stores the body and a settled receipt in one PostgreSQL transaction, then announces
  the outcome; the waiting request answers it (`created_at`, `settled_at`, as Railpost's receipt does).

What Railpost does beyond this (the seat's token, the store's order and versions, the engine, the state's
read model, the outbox) is what the ratio measures."""

from __future__ import annotations

import time
import uuid
from typing import Any

from celery import Celery
from flask import Flask, request
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from services.config import Config
from services.gateway.errors import register
from services.gateway.http import json_body, load, query
from services.gateway.schemas import ActionIn, WaitQuery
from services.play.signals import RedisSignals
from services.rules_worker.celery_app import make_celery

SCHEMA = """
CREATE TABLE IF NOT EXISTS floor_moves (command_id text PRIMARY KEY, game_id bigint NOT NULL, body jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS floor_receipts (command_id text PRIMARY KEY, game_id bigint NOT NULL,
    status text NOT NULL, created_at double precision NOT NULL, settled_at double precision NOT NULL);
"""

config = Config.from_env()
signals = RedisSignals(config.redis_url or "", config.celery_queue)
_pool: ConnectionPool | None = None


def pool() -> ConnectionPool:
    global _pool
    if _pool is None:  # opened in each process after the fork
        _pool = ConnectionPool(config.database_url, min_size=1, max_size=config.db_pool_size, open=True)
    return _pool


def make_floor_celery() -> Celery:
    """Railpost's Celery settings, with the floor's one task instead of the rules worker's, and no beat."""
    app = make_celery(config)
    app.conf.include = []
    app.conf.beat_schedule = {}
    return app


celery = make_floor_celery()


@celery.task(name="floor.apply")
def apply(game_id: int, command_id: str, body: dict[str, Any], created_at: float, reply_to: str | None) -> None:
    with pool().connection() as conn, conn.transaction():
        conn.execute("INSERT INTO floor_moves (command_id, game_id, body) VALUES (%s, %s, %s)",
                     (command_id, game_id, Jsonb(body)))
        settled_at = time.time()
        conn.execute("INSERT INTO floor_receipts (command_id, game_id, status, created_at, settled_at) "
                     "VALUES (%s, %s, 'applied', %s, %s)", (command_id, game_id, created_at, settled_at))
    signals.announce(game_id, [{"command_id": command_id, "status": "applied", "created_at": created_at,
                                "settled_at": settled_at}], reply_to)


app = Flask("railpost-floor")
register(app)  # the gateway's one JSON error shape for a bad body


@app.post("/games/<int:game_id>/actions")
def post_action(game_id: int) -> Any:
    body = load(ActionIn, json_body())
    wait = min(query(WaitQuery)["wait"], config.max_wait_seconds)
    command_id = request.headers.get("Idempotency-Key") or uuid.uuid4().hex
    created_at = time.time()
    with signals.watch(game_id, command_id) as watch:
        apply.apply_async((game_id, command_id, body, created_at, signals.reply_channel()),
                          queue=config.celery_queue)
        if not watch.wait(wait):
            return {"command_id": command_id, "status": "queued", "created_at": created_at}, 202
    return dict(watch.outcome or {}), 200


@app.get("/healthz")
def healthz() -> Any:
    return {"ok": True}

"""The Celery application, configured from `services.config` like every other process.

`celery -A services.rules_worker.celery_app worker --beat` runs the worker (and the redelivery sweep).
Delivery is at-least-once in effect: every command is a queued receipt in the store, and a task only says
"drain this game". A task lost with its worker (Redis hands a message out once unless
BROKER_ACK_EMULATION is set) is re-published by the sweep; `services.play.apply` makes repeats harmless.
"""

from __future__ import annotations

from celery import Celery

from services.config import Config
from services.play.beat import beat_entry


def make_celery(config: Config) -> Celery:
    app = Celery("railpost", broker=config.redis_url, include=["services.rules_worker.tasks"])
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        task_default_queue=config.celery_queue,
        task_serializer="json",
        accept_content=["json"],
        broker_connection_retry_on_startup=True,
        # The receipts table, not the broker, is the durable queue: a message is only a doorbell for "this
        # game has queued commands". Without ack emulation Redis hands a message out once (no unacked-set
        # bookkeeping per task, a large share of the worker's CPU per command); a doorbell lost with a
        # dying worker is rung again by the sweep for receipts queued over SWEEP_AFTER_SECONDS.
        broker_transport_options={"visibility_timeout": 300, "ack_emulation": config.broker_ack_emulation},
        worker_hijack_root_logger=False,
        beat_schedule={
            "redeliver-stale-receipts": {
                "task": "railpost.sweep",
                "schedule": config.sweep_interval_seconds,
                "options": {"queue": config.celery_queue},
            },
            "table-tick": beat_entry(config.celery_queue),  # the table's deadlines: services/play/scheduler.py
        },
    )
    app.conf.railpost_config = config
    return app


app = make_celery(Config.from_env())

"""The Celery application, configured from `services.config` like every other process.

`celery -A services.rules_worker.celery_app worker --beat` runs the worker (and the redelivery sweep).
Delivery is at-least-once: acks are late, a task whose worker process dies is re-queued, and Redis hands
an unacknowledged message out again after the visibility timeout; `services.play.apply` makes repeats
harmless.
"""

from __future__ import annotations

from celery import Celery

from services.config import Config


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
        broker_transport_options={"visibility_timeout": 300},
        worker_hijack_root_logger=False,
        beat_schedule={
            "redeliver-stale-receipts": {
                "task": "railpost.sweep",
                "schedule": config.sweep_interval_seconds,
                "options": {"queue": config.celery_queue},
            }
        },
    )
    app.conf.railpost_config = config
    return app


app = make_celery(Config.from_env())

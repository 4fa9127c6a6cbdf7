"""Prometheus metrics shared by gateway and worker. Under gunicorn/Celery each process writes to
PROMETHEUS_MULTIPROC_DIR (set by `services.run`) and `/metrics` aggregates them."""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

ACTIONS_ACCEPTED = Counter("railpost_actions_accepted_total", "Commands queued by the gateway")
ACTIONS_REFUSED = Counter("railpost_actions_refused_total", "Commands refused", ["stage", "reason"])
ACTIONS_APPLIED = Counter("railpost_actions_applied_total", "Commands applied by the rules worker")
QUEUE_LATENCY = Histogram("railpost_queue_latency_seconds", "From receipt committed to apply started",
                          buckets=LATENCY_BUCKETS)
APPLY_SECONDS = Histogram("railpost_apply_seconds", "Engine validation plus commit of one command",
                          buckets=LATENCY_BUCKETS)
ACCEPT_TO_COMMIT = Histogram("railpost_accept_to_commit_seconds", "From HTTP accept to event committed",
                             buckets=LATENCY_BUCKETS)


def render() -> tuple[bytes, str]:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST

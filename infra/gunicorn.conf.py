"""Gunicorn settings for the gateway, derived from the same environment `services.config` reads."""

import multiprocessing
import os
from pathlib import Path

from services.config import Config
from services.server import install_json_errors

_config = Config.from_env()
install_json_errors()  # gunicorn's own error answers (oversize line or header, bad request) in the API's JSON

bind = f"{_config.host}:{_config.port}"  # 127.0.0.1 unless HOST says otherwise
wsgi_app = "services.gateway.wsgi:app"
# the embedded queue is a thread inside the gateway process: keep exactly one process then
workers = 1 if _config.embedded else (_config.web_concurrency or 2 * multiprocessing.cpu_count())
# gthread, not gevent: requests such as import, export and legal-actions run the engine in the gateway, which
# would stall every other request of a cooperative loop; measured equal on the flood (docs/service.md)
# gthread, with a kept-alive connection's next request served by the thread that answered the last one
# (services/server.py: gthread's hand-offs were over half the gateway's CPU per move)
worker_class = os.environ.get("GATEWAY_WORKER_CLASS", "services.server.LingeringThreadWorker")
threads = _config.web_threads  # long-polls (`?wait=`) park a thread each (they hold no DB connection)
timeout = 60
graceful_timeout = 20
keepalive = 5
accesslog = None  # the app writes JSON access lines itself
errorlog = "-"
loglevel = _config.log_level.lower()


def on_starting(server):  # noqa: ANN001 (gunicorn hook signature)
    """Workers write their metrics files there from their first request: make sure it exists."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)


def child_exit(server, worker):  # noqa: ANN001 (gunicorn hook signature)
    """Drop a dead worker's files so /metrics stops counting it as live."""
    try:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
    except Exception:
        pass


def post_worker_init(worker):  # noqa: ANN001 (gunicorn hook signature)
    """A gateway worker is a long-lived server process: keep the collector off the sessions it caches
    (legal actions, undo checks, the page; services/play/sessions.py)."""
    from services.play.sessions import HEAP

    HEAP.enable()

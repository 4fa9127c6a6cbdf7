"""`python -m services.run` (`make run`): migrate, then run gateway, rules worker and notifier together.

With DATABASE_URL and REDIS_URL unset it needs nothing installed beyond the virtualenv: SQLite under ./var
and the gateway's in-process queue. With REDIS_URL set it also starts a Celery worker (with the redelivery
sweep). Children share one process group; Ctrl-C or SIGTERM stops them all.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from services.config import Config
from services.mailin.settings import MailinSettings, ensure_secret
from services.notifier.webpush import ensure_vapid_key
from shared.eventstore import migrate

ROOT = Path(__file__).resolve().parents[1]


def commands(config: Config, mailin: bool = False) -> list[list[str]]:
    bin_dir = Path(sys.executable).parent
    gunicorn = shutil.which("gunicorn", path=str(bin_dir)) or "gunicorn"
    procs = [[gunicorn, "-c", str(ROOT / "infra" / "gunicorn.conf.py")]]
    if not config.embedded:
        procs += worker_commands(shutil.which("celery", path=str(bin_dir)) or "celery", config)
    if importlib.util.find_spec("services.notifier.__main__") is not None:
        procs.append([sys.executable, "-m", "services.notifier"])
    if mailin:  # email moves: the SMTP/LMTP receiver (docs/email-moves.md)
        procs.append([sys.executable, "-m", "services.mailin"])
    return procs


# Tasks are idempotent doorbells and nothing watches Celery's event stream: gossip, mingle and heartbeats
# would only add broker traffic that grows with the number of workers. Remote control (`celery inspect`) stays.
QUIET = ["--without-gossip", "--without-mingle", "--without-heartbeat"]


def worker_commands(celery: str, config: Config) -> list[list[str]]:
    """Rules workers: single-process workers with a thread pool of WORKER_THREADS (one game's commit overlaps
    another's engine work, and every game's session stays hot in the one process that has it; a prefork pool
    would keep a cache per child and catch sessions up from the store). With WORKER_SHARDS > 1: one such
    worker per shard queue; every worker also takes the shared queue (the sweep), the first one runs beat."""
    base = [celery, "-A", "services.rules_worker.celery_app", "worker", "-l", "INFO", "--pool", "threads",
            "-c", str(config.worker_threads), *QUIET]
    beat = ["--beat", "-s", str(Path("var") / "celerybeat-schedule")]
    if config.worker_shards <= 1:
        return [base + ["-Q", config.celery_queue] + beat]
    return [base + ["-Q", f"{config.queue_for(shard)},{config.celery_queue}", "-n", f"shard{shard}@%h"]
            + (beat if shard == 0 else []) for shard in range(config.worker_shards)]


def main() -> int:
    config = Config.from_env()
    migrate(config.database_url)
    metrics = Path(config.metrics_dir)
    shutil.rmtree(metrics, ignore_errors=True)
    metrics.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(metrics.resolve()), "PORT": str(config.port)}
    if config.embedded:  # the embedded default takes email moves on a loopback port, with a kept secret
        ensure_secret(env, Path("var"))
        ensure_vapid_key(env, Path("var"))  # and offers web push with a kept VAPID key
    mailin = bool(env.get("MAILIN_SECRET"))
    children = [subprocess.Popen(cmd, cwd=ROOT, env=env) for cmd in commands(config, mailin)]
    mode = "embedded SQLite + in-process queue" if config.embedded else "Celery on Redis"
    print(f"Railpost listening on http://{config.host}:{config.port}  ({mode}; links use {config.public_url}, "
          f"API docs at {config.public_url}/docs)", flush=True)
    if mailin:
        inbound = MailinSettings.from_env(env)
        print(f"Email moves: {'LMTP' if inbound.lmtp else 'SMTP'} on {inbound.host}:{inbound.port} "
              f"for {inbound.address}", flush=True)

    def stop(*_: object) -> None:
        for child in children:
            if child.poll() is None:
                child.terminate()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
    finally:
        stop()
        for child in children:
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()
    return max((child.returncode or 0) for child in children)


if __name__ == "__main__":
    raise SystemExit(main())

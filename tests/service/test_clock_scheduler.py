"""The real scheduler: Celery beat on the test Redis, two workers each with its own beat, PostgreSQL. A
deadline that passes is dealt with once (one vote opened), however many beats fire."""

from __future__ import annotations

import time

from services.config import Config
from services.notifier.db import make_engine
from services.play.table_log import TableLog

from .conftest import LiveServer, WorkerProcess, wait_until
from .helpers import Api


def test_beat_opens_one_vote_with_two_workers(service_config: Config, gateway: LiveServer) -> None:
    api = Api(gateway.url, service_config.admin_token or "")
    game_id = api.call("POST", "/games", json={"title": "1840", "seats": 2}).json()["id"]
    tokens = [api.call("POST", f"/games/{game_id}/join", json={"name": n}).json()["token"] for n in ("A", "B")]
    set_up = api.call("PUT", f"/games/{game_id}/clock", tokens[0], json={"kind": "deadline", "per_move_hours": 0.001})
    assert set_up.status_code == 200, set_up.text
    assert api.call("POST", f"/games/{game_id}/start", tokens[0]).status_code == 200
    workers = [WorkerProcess(service_config, concurrency=1, CLOCK_TICK_SECONDS="1") for _ in range(2)]
    log = TableLog(make_engine(service_config.database_url, pool_size=1))
    try:
        wait_until(lambda: any(e["type"] == "vote_opened" for e in log.read(game_id)), timeout=60, interval=0.5)
        time.sleep(4)  # several more beats from both workers
        kinds = [e["type"] for e in log.read(game_id)]
        assert kinds.count("vote_opened") == 1 and kinds.count("turn") == 1, kinds
        assert api.call("GET", f"/games/{game_id}/clock").json()["vote"]["absent"] is not None
    finally:
        for w in workers:
            w.stop()
        log.engine.dispose()

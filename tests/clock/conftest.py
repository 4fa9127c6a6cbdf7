"""The table's REST fixture: the embedded store with the real scheduler pass and a time source the test moves."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from services.config import Config
from services.gateway import create_app
from services.gateway.table_api import table_log
from services.play.scheduler import Scheduler, session_remedies
from services.timesource import VirtualTime
from shared.eventstore import migrate

SIGNIN_SECRET = "clock-tests-signin"  # the turn emails' sign-in links


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def table(tmp_path: Path) -> Any:
    url = f"sqlite:///{tmp_path / 'clock.sqlite3'}"
    migrate(url)
    app = create_app(Config(database_url=url, redis_url=None, admin_token="adm", signin_secret=SIGNIN_SECRET))
    assert "railpost.scheduler" not in app.extensions  # only the served gateway (wsgi.py) runs the table's tick thread
    vc = VirtualTime(datetime(2026, 3, 2, 9, tzinfo=UTC))
    app.extensions["railpost.timesource"] = vc
    client = app.test_client()
    game_id = client.post("/games", json={"title": "1840", "seats": 2}).json["id"]
    seats = {}
    for name in ("Ann", "Bob"):
        joined = client.post(f"/games/{game_id}/join", json={"name": name})
        seats[name] = (joined.json["token"], joined.json["player_id"])
    with app.app_context():
        runtime = app.extensions["railpost"]
        scheduler = Scheduler(runtime.recorder, table_log(), runtime.dispatcher,
                              session_remedies(runtime.recorder, runtime.sessions), vc)
    yield client, game_id, seats, vc, scheduler, app


def wait_version(client: FlaskClient, game_id: int, version: int) -> None:
    for _ in range(200):
        if client.get(f"/games/{game_id}/state").json["version"] >= version:
            return
        time.sleep(0.02)
    raise AssertionError(f"game never reached version {version}")

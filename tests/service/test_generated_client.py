"""A client generated from `/openapi.json` by openapi-python-client (a dev dependency; generated into a
temporary directory at test time, never committed) plays a whole 2-player 1840 game to its end through its
generated methods only: players, the game, the clock; every move chosen among the legal-actions offers; and on
the way a vacation, an undo request answered, a seat handed over and a stand-in chosen by the table's vote.

The gateway is the embedded default over real HTTP with a time source the test moves; the scheduler's pass (what the
served gateway runs on a thread) is called here when the table's deadlines should be looked at."""

from __future__ import annotations

import importlib
import json
import random
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import requests

from services.config import Config
from services.gateway import create_app
from services.gateway.table_api import table_log
from services.play.scheduler import Scheduler, session_remedies
from services.timesource import VirtualTime
from shared.eventstore import migrate

from .conftest import LiveServer

H = timedelta(hours=1)
MAX_MOVES = 1500
TIMEOUT = httpx.Timeout(60.0)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, VirtualTime, Scheduler]]:
    tmp = tmp_path_factory.mktemp("client")
    url = f"sqlite:///{tmp / 'db.sqlite3'}"
    migrate(url)
    app = create_app(Config(database_url=url, admin_token="client-admin"))
    clock = VirtualTime(datetime(2026, 3, 2, 9, tzinfo=UTC))
    app.extensions["railpost.timesource"] = clock
    with app.app_context():
        runtime = app.extensions["railpost"]
        scheduler = Scheduler(runtime.recorder, table_log(), runtime.dispatcher,
                              session_remedies(runtime.recorder, runtime.sessions), clock)
    server = LiveServer(app)
    yield server.url, clock, scheduler
    server.stop()


@pytest.fixture(scope="module")
def generated(served: tuple[str, VirtualTime, Scheduler], tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The client package, generated from the document the server serves."""
    tmp = tmp_path_factory.mktemp("generated")
    (tmp / "openapi.json").write_text(json.dumps(requests.get(f"{served[0]}/openapi.json", timeout=10).json()))
    (tmp / "config.yaml").write_text("package_name_override: railpost_client\npost_hooks: []\n")
    tool = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent))
    assert tool, "openapi-python-client is a dev dependency (pyproject.toml)"
    done = subprocess.run([tool, "generate", "--path", str(tmp / "openapi.json"), "--config",
                           str(tmp / "config.yaml"), "--output-path", str(tmp / "out")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(tmp / "out"))
    try:
        return importlib.import_module("railpost_client")
    finally:
        sys.path.remove(str(tmp / "out"))


class Table:
    """The generated client's methods, each call checked for the status the contract promises."""

    def __init__(self, pkg: ModuleType, base: str) -> None:
        self.pkg, self.base = pkg, base
        self.api = lambda name: importlib.import_module(f"railpost_client.api.{name}")
        self.models = importlib.import_module("railpost_client.models")

        self.clients: dict[str | None, Any] = {}

    def client(self, token: str | None = None) -> Any:
        """One per token, kept: each holds its connection (a new httpx client costs more than a move)."""
        if token not in self.clients:
            self.clients[token] = (
                self.pkg.Client(base_url=self.base, timeout=TIMEOUT) if token is None else
                self.pkg.AuthenticatedClient(base_url=self.base, token=token, timeout=TIMEOUT))
        return self.clients[token]

    def call(self, name: str, status: int, token: str | None = None, **kw: Any) -> Any:
        reply = self.api(name).sync_detailed(client=self.client(token), **kw)
        assert reply.status_code == status, (name, reply.status_code, reply.content[:300])
        return reply.parsed


def test_a_generated_client_plays_a_whole_game(generated: ModuleType, served: tuple[str, VirtualTime, Scheduler]
                                               ) -> None:
    base, clock, scheduler = served
    t = Table(generated, base)
    m = t.models
    rng = random.Random(46)
    players = {name: t.call("players.players_create_player", 201, body=m.PlayerIn(name=name))
               for name in ("Ann", "Bob")}
    game = t.call("games.games_create", 201, body=m.GameCreateIn(title="1840", seats=2, seed=4))
    gid = game.id
    seat: dict[int, str] = {}  # player id -> its seat token
    number: dict[int, int] = {}  # player id -> the seat number the seat endpoints take
    for name, player in players.items():
        joined = t.call("games.games_join", 201, player.token, game_id=gid,
                        body=m.JoinIn(name=name, player_id=player.id))
        seat[joined.player_id] = joined.token
        number[joined.player_id] = joined.seat
    ann, bob = (p.id for p in players.values())
    t.call("clock.clock_put_clock", 200, seat[ann], game_id=gid,
           body=m.TimeControlIn(kind=m.TimeControlInKind.DEADLINE, per_move_hours=24.0))
    assert t.call("games.games_start", 200, seat[ann], game_id=gid).status == "active"
    scheduler.run_once()

    def acting() -> int:
        state = t.call("games.games_state", 200, game_id=gid)
        return int(state.acting_players[0]) if state.status == "active" else 0

    def offers(pid: int) -> list[dict[str, Any]]:
        legal = t.call("games.games_legal_actions", 200, seat[pid], game_id=gid)
        return [a.to_dict() for a in legal.actions]

    def move(token: str, action: dict[str, Any], version: int, status: int = 200) -> Any:
        return t.call("actions.actions_post_action", status, token, game_id=gid, wait=10.0,
                      idempotency_key=uuid.uuid4().hex,
                      body=m.ActionIn(action=m.ActionInAction.from_dict(action), expected_version=version))

    version = 0

    def random_move() -> None:
        nonlocal version
        mover = acting()
        choices = [a for a in offers(mover) if a["type"] != "end_game" and not a["type"].startswith("program")]
        plays = [a for a in choices if a["type"] != "pass"]
        action = rng.choice(plays if plays and rng.random() < 0.7 else choices)
        receipt = move(seat[mover], action, version)
        assert receipt.status == "applied"
        version = receipt.new_version

    for _ in range(6):
        random_move()

    # a vacation: the seat's clock stops until then, and it comes back early
    away = acting()
    until = clock.now() + 48 * H
    view = t.call("clock.clock_put_vacation", 200, seat[away], game_id=gid, body=m.VacationIn(until=until))
    assert str(away) in view.away.to_dict()
    view = t.call("clock.clock_put_vacation", 200, seat[away], game_id=gid, body=m.VacationIn(until=None))
    assert str(away) not in view.away.to_dict()

    # an undo request into the other player's move, answered by him: the move is taken back
    mover = acting()
    random_move()
    asker = bob if mover == ann else ann
    asked = t.call("clock.clock_post_undo_request", 202, seat[asker], game_id=gid, body=m.UndoRequestIn())
    assert asked.free is False and asked.undo_request.to_dict()["affected"] == [mover]
    t.call("clock.clock_post_answer", 200, seat[mover], game_id=gid, body=m.AnswerIn(accept=True))
    scheduler.run_once()  # the consented undo is queued; the page's long-poll answers once it is applied
    assert t.call("page.page_version", 200, game_id=gid, after=version, wait=10.0).version > version
    events = t.call("games.games_events", 200, game_id=gid, after=version)
    assert [e.data.to_dict()["action"]["type"] for e in events.events] == ["undo"]
    version = events.events[-1].version

    # the deadline passes: the table votes a stand-in, who moves in the absent seat's name
    scheduler.run_once()
    clock.advance(25 * H)
    scheduler.run_once()
    absent = acting()
    other = bob if absent == ann else ann
    vote = t.call("clock.clock_get_clock", 200, game_id=gid).vote
    assert vote is not None and vote.to_dict()["absent"] == absent
    t.call("clock.clock_post_vote", 201, seat[other], game_id=gid,
           body=m.BallotIn(choice=m.BallotInChoice.SUBSTITUTE, substitute=number[other]))
    scheduler.run_once()
    assert t.call("clock.clock_get_clock", 200, game_id=gid).stand_in.to_dict() == {"absent": absent, "by": other}
    action = next(a for a in offers(absent) if a["type"] != "end_game" and not a["type"].startswith("program"))
    version = move(seat[other], action, version).new_version
    assert t.call("games.games_events", 200, game_id=gid, after=version - 1).events[0].data.to_dict()[
        "action"]["user"] == other

    # a seat handed over: a player leaves off his turn, the other offers the seat, a newcomer claims it and
    # the table accepts; the newcomer's token plays that seat from then on
    leaver = bob if acting() == ann else ann
    stays = ann if leaver == bob else bob
    t.call("seats.seats_resign", 200, seat[leaver], game_id=gid)
    offered = t.call("seats.seats_offer", 201, seat[stays], game_id=gid, seat=number[leaver])
    claimed = t.call("seats.seats_claim", 202, game_id=gid, seat=number[leaver],
                     body=m.ClaimIn(invitation=offered.invitation, name="Cleo"))
    t.call("seats.seats_answer", 200, seat[stays], game_id=gid, body=m.ClaimAnswerIn(accept=True))
    t.call("games.games_legal_actions", 401, seat[leaver], game_id=gid)  # the old token no longer works
    seat[leaver] = claimed.token
    holders = t.call("clock.clock_get_clock", 200, game_id=gid).holders
    assert [h.to_dict()["name"] for h in holders] == ["Cleo"]

    moves = 0
    while acting() and moves < MAX_MOVES:
        random_move()
        moves += 1
    final = t.call("games.games_show", 200, game_id=gid)
    assert final.status == "finished", f"not over after {moves} moves"
    assert set(final.result.to_dict()) == {str(ann), str(bob)}
    assert {s.name for s in final.seats} == {"Cleo", "Ann" if leaver == bob else "Bob"}

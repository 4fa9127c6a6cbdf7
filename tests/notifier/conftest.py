"""Real things for the notifier tests: migrated databases (PostgreSQL `railpost_n_*` and SQLite), the
event store's own recorder to write outbox rows, a threaded HTTP receiver and an aiosmtpd SMTP server."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller

from services.notifier.auth import token_hash
from services.notifier.db import make_engine
from services.notifier.service import Notifier
from services.notifier.settings import NotifierSettings, SmtpSettings, UrlPolicy
from services.timesource import VirtualTime
from shared.eventstore import NewGame, SqlRecorder, migrate, open_recorder

PG_ADMIN = os.environ.get("RAILPOST_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
BASE_URL = "http://railpost.test"


def _pg(name: str) -> str:
    return PG_ADMIN.rsplit("/", 1)[0] + "/" + name


def _admin(sql: str) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(sql)


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Migrate once per backend; each test then gets a cheap copy."""
    tag = secrets.token_hex(3)
    pg_template = f"railpost_n_tpl_{tag}"
    _admin(f'CREATE DATABASE "{pg_template}"')
    migrate(_pg(pg_template))
    sqlite_template = tmp_path_factory.mktemp("tpl") / "template.sqlite3"
    migrate(f"sqlite:///{sqlite_template}")
    yield {"postgres": pg_template, "sqlite": str(sqlite_template), "tag": tag}
    _admin(f'DROP DATABASE IF EXISTS "{pg_template}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, templates: dict[str, str], tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        path = tmp_path / "railpost.sqlite3"
        shutil.copy(templates["sqlite"], path)
        yield f"sqlite:///{path}"
        return
    name = f"railpost_n_{templates['tag']}_{secrets.token_hex(4)}"
    _admin(f'CREATE DATABASE "{name}" TEMPLATE "{templates["postgres"]}"')
    yield _pg(name)
    _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def engine(db_url: str) -> Iterator[sa.Engine]:
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def recorder(db_url: str) -> Iterator[SqlRecorder]:
    rec = open_recorder(db_url, pool_size=2)
    yield rec
    rec.close()


@pytest.fixture
def clock() -> VirtualTime:
    return VirtualTime(datetime.now(UTC).replace(microsecond=0))


# -- a game written through the event store's own API ------------------------------------------------------
@dataclass
class Table:
    rec: SqlRecorder
    game_id: int
    players: dict[str, int]
    tokens: dict[str, str]
    version: int = 0

    def pid(self, name: str) -> str:
        return str(self.players[name])

    def outbox(self, kind: str, payload: dict[str, Any]) -> None:
        with self.rec.game_transaction(self.game_id) as tx:
            tx.outbox(kind, {"game_id": self.game_id, "title": "1830", **payload}, self.version)

    def turn(self, *acting: str, round_: str = "Stock Round 1", phase: str = "2") -> None:
        self.outbox("turn", {"acting": [self.players[a] for a in acting], "round": round_, "phase": phase})


def seat_game(rec: SqlRecorder, names: list[str], start_with: str | None = None, known: Table | None = None) -> Table:
    """A started game; players of `known` with the same name are seated again rather than created."""
    players: dict[str, int] = {}
    tokens: dict[str, str] = {}
    game = rec.create_game(NewGame(title="1830", options=[], seed=1, seat_count=len(names)), {"title": "1830"})
    for name in names:
        token = secrets.token_urlsafe(16)
        if known is not None and name in known.players:
            player_id, token = known.players[name], known.tokens[name]
        else:
            player_id = rec.create_player(name, token_hash(token)).id
        rec.join(game.id, player_id, name, token_hash(f"seat-{token}-{game.id}"))
        players[name], tokens[name] = player_id, token
    first = players[start_with or names[0]]
    rec.start(game.id, {"acting": [first], "round": "Stock Round 1", "phase": "2"}, {"title": "1830"})
    return Table(rec, game.id, players, tokens)


# -- a webhook receiver ----------------------------------------------------------------------------------
@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    """Answers each request with the next scripted (status, headers), then 200 forever."""

    server: ThreadingHTTPServer
    script: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def fail(self, *statuses: int, headers: dict[str, str] | None = None) -> None:
        self.script.extend((s, headers or {}) for s in statuses)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    box: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if len(body) < length:
                return  # the sender died mid-request (the kill -9 test): nothing was delivered
            rec = box["r"]
            with rec.lock:
                rec.requests.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status, headers = rec.script.pop(0) if rec.script else (200, {})
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    box["r"] = Receiver(server)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield box["r"]
    server.shutdown()
    server.server_close()


# -- an SMTP server --------------------------------------------------------------------------------------
class _Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[list[str], bytes]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd hook
        self.messages.append((list(envelope.rcpt_tos), bytes(envelope.original_content or envelope.content)))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def smtp() -> Iterator[tuple[_Inbox, int]]:
    inbox = _Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


# -- the notifier under test -----------------------------------------------------------------------------
def settings_for(db_url: str, smtp_port: int = 0, **changes: Any) -> NotifierSettings:
    values: dict[str, Any] = dict(
        database_url=db_url,
        public_base_url=BASE_URL,
        url_policy=UrlPolicy(allow_http=True, allow_loopback=True),
        smtp=SmtpSettings(host="127.0.0.1" if smtp_port else "", port=smtp_port, sender="Railpost <rp@railpost.test>"),
    )
    values.update(changes)
    return NotifierSettings(**values)


@pytest.fixture
def make_notifier(engine: sa.Engine, db_url: str, clock: VirtualTime) -> Callable[..., Notifier]:
    def make(smtp_port: int = 0, **kw: Any) -> Notifier:
        extra = {k: kw.pop(k) for k in ("resolver", "opener") if k in kw}
        return Notifier(engine, settings_for(db_url, smtp_port, **kw), clock, **extra)

    return make

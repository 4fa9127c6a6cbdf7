"""Notifier benchmark: commit-to-first-attempt latency (p50/p99) for paced turns, and notifications per
second for a burst, against PostgreSQL (SQLite if it is not reachable), a loopback HTTP receiver and the
real notifier loop on a thread. Figures come from the notifier's own attempt log."""

from __future__ import annotations

import os
import secrets
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import psycopg
import sqlalchemy as sa

from services.notifier import manage
from services.notifier.db import make_engine
from services.notifier.service import Notifier
from services.notifier.settings import NotifierSettings, UrlPolicy
from services.notifier.tables import attempts, deliveries
from services.timesource import SystemTime
from services.tokens import hash_token
from shared.eventstore import NewGame, SqlRecorder, migrate, open_recorder

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
GAMES = 20
PACED_TURNS = 300
PACE_SECONDS = 0.01
BURST_TURNS = 1500
FANOUT = int(os.environ.get("RAILPOST_BENCH_FANOUT", "1000"))  # subscribers of the fan-out phase


class _Ok(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def _database() -> tuple[str, str | None]:
    try:
        name = f"railpost_n_bench_{secrets.token_hex(3)}"
        with psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return PG_ADMIN.rsplit("/", 1)[0] + "/" + name, name
    except psycopg.OperationalError:
        return f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3", None


def _games(rec: SqlRecorder, engine: sa.Engine, url: str, settings: NotifierSettings,
           count: int = GAMES, first: int = 0, acting_first: bool = True) -> list[tuple[int, list[int]]]:
    games = []
    for g in range(first, first + count):
        game = rec.create_game(NewGame(title="1830", options=[], seed=g, seat_count=2), {"title": "1830"})
        pids = []
        for s in range(2):
            p = rec.create_player(f"p{g}-{s}", hash_token(secrets.token_hex(8)))
            rec.join(game.id, p.id, p.name, hash_token(secrets.token_hex(8)))
            with engine.begin() as conn:
                manage.set_subscription(conn, str(p.id), None, manage.SubscriptionRequest("webhook", url=url),
                                        SystemTime().now(), settings.url_policy)
            pids.append(p.id)
        rec.start(game.id, {"acting": pids[:1] if acting_first else [], "round": "SR 1", "phase": "2"},
                  {"title": "1830"})
        games.append((game.id, pids))
    return games


def _turns(rec: SqlRecorder, games: list[tuple[int, list[int]]], count: int, pace: float, offset: int) -> None:
    for i in range(count):
        game_id, pids = games[i % len(games)]
        with rec.game_transaction(game_id) as tx:
            tx.outbox("turn", {"acting": [pids[(offset + i // len(games) + 1) % 2]], "round": "SR 1", "title": "1830"})
        if pace:
            time.sleep(pace)


def _settled(engine: sa.Engine, expected: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with engine.connect() as conn:
            done = conn.execute(sa.select(sa.func.count()).select_from(deliveries)
                                .where(deliveries.c.status == "succeeded")).scalar_one()
        if done >= expected:
            return
        time.sleep(0.05)


def _latencies(engine: sa.Engine, after_id: int) -> tuple[list[float], float, float]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(deliveries.c.event_at, sa.func.min(attempts.c.started_at), sa.func.max(attempts.c.started_at))
            .join(attempts, attempts.c.delivery_id == deliveries.c.id)
            .where(deliveries.c.id > after_id, deliveries.c.event_type == "turn.started")
            .group_by(deliveries.c.id, deliveries.c.event_at)
        ).all()
    lat = [(first - event).total_seconds() for event, first, _ in rows]
    start = min(event for event, _, _ in rows).timestamp()
    end = max(last for _, _, last in rows).timestamp()
    return lat, start, end


def _fanout(rec: SqlRecorder, engine: sa.Engine, hook: str, settings: NotifierSettings, backend: str) -> None:
    """FANOUT subscribers, each with a webhook: FANOUT/2 two-seat games, then one commit per game that hands
    the turn to both seats at once (simultaneous play), so every subscriber is told once; figures from the
    first commit to each subscriber's first delivery attempt."""
    games = _games(rec, engine, hook, settings, count=FANOUT // 2, first=GAMES, acting_first=False)
    count, settled = -1, 0
    while settled != count:  # the set-up's own notices (game started) are all delivered
        count = settled
        time.sleep(1.0)
        with engine.connect() as conn:
            settled = conn.execute(sa.select(sa.func.count()).select_from(deliveries)
                                   .where(deliveries.c.status == "succeeded")).scalar_one()
    with engine.connect() as conn:
        mark = conn.execute(sa.select(sa.func.coalesce(sa.func.max(deliveries.c.id), 0))).scalar_one()
    began = time.time()
    for game_id, pids in games:
        with rec.game_transaction(game_id) as tx:
            tx.outbox("turn", {"acting": pids, "round": "SR 2", "title": "1830"})
    wrote = time.time() - began
    _settled(engine, settled + FANOUT, 120)
    lat, start, end = _latencies(engine, mark)
    print(f"notifier [{backend}] fan-out to {FANOUT} subscribers ({len(games)} commits naming 2 seats each, written "
          f"in {wrote * 1000:.0f} ms): {len(lat)} told, the last {(end - began) * 1000:.0f} ms after the first "
          f"commit ({len(lat) / max(1e-9, end - start):.0f} notifications/s); commit-to-first-attempt p50 "
          f"{statistics.median(lat) * 1000:.0f} ms, p99 {_pct(lat, 99) * 1000:.0f} ms | load "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    url, pg_name = _database()
    migrate(url)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hook = f"http://127.0.0.1:{server.server_address[1]}/hook"
    settings = NotifierSettings(database_url=url, url_policy=UrlPolicy(allow_http=True, allow_loopback=True),
                                poll_interval=0.02, reminder_scan_seconds=3600)
    engine = make_engine(url)
    rec = open_recorder(url, pool_size=4)
    stop = threading.Event()
    try:
        games = _games(rec, engine, hook, settings)
        loop = threading.Thread(target=Notifier(engine, settings).run_forever, args=(stop,), daemon=True)
        loop.start()
        _settled(engine, GAMES * 3, 30)
        with engine.connect() as conn:
            mark = conn.execute(sa.select(sa.func.coalesce(sa.func.max(deliveries.c.id), 0))).scalar_one()
        base = GAMES * 3

        _turns(rec, games, PACED_TURNS, PACE_SECONDS, 0)
        _settled(engine, base + PACED_TURNS, 60)
        lat, _, _ = _latencies(engine, mark)
        backend = "postgresql" if pg_name else "sqlite"
        print(f"notifier [{backend}] paced {len(lat)} turns at ~{1 / PACE_SECONDS:.0f}/s: commit-to-first-attempt "
              f"p50 {statistics.median(lat) * 1000:.1f} ms, p99 {_pct(lat, 99) * 1000:.1f} ms, "
              f"max {max(lat) * 1000:.1f} ms (target p99 < 1000 ms)")

        with engine.connect() as conn:
            mark = conn.execute(sa.select(sa.func.max(deliveries.c.id))).scalar_one()
        began = time.perf_counter()
        _turns(rec, games, BURST_TURNS, 0, PACED_TURNS // GAMES)
        wrote = time.perf_counter() - began
        _settled(engine, base + PACED_TURNS + BURST_TURNS, 120)
        lat, start, end = _latencies(engine, mark)
        print(f"notifier [{backend}] burst of {len(lat)} turns: {len(lat) / (end - start):.0f} notifications/s "
              f"end to end (commit to last attempt; the writer alone committed {BURST_TURNS / wrote:.0f} turns/s), "
              f"p99 latency under backlog {_pct(lat, 99) * 1000:.0f} ms")
        if FANOUT > 0:
            _fanout(rec, engine, hook, settings, backend)
    finally:
        stop.set()
        rec.close()
        engine.dispose()
        server.shutdown()
        if pg_name:
            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{pg_name}" WITH (FORCE)')


if __name__ == "__main__":
    main()

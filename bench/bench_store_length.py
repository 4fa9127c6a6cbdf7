"""Per-move cost of the rules worker's whole path against game length: store and engine, not the engine alone.

`bench_length` times the engine's part of a live move. What else a move costs grows with the game only if
the store's reads do: the queued receipt is looked up among every receipt of the game, the game row carries a
read model, the events table holds every earlier event. This bench stores games of the 2,477-action 1825
Units 1+2+3 record at action 100, 1,000 and its last stretch, and that last stretch again at action 5,000 of
a copy with chat lines after its first moves (`bench_length.chatty`: the same moves after a history twice
as long) (as `bench_service_curve` seeds them: events,
receipts, the newest snapshot and the read model, worked out by a local replay), then applies the record's
next `WINDOW` actions to each game in this process exactly as the worker does (`queue_command`, as the
gateway stores a receipt, then `apply_pending` with the doorbell's receipt), against PostgreSQL. Per move it reports this thread's CPU
for the whole path, the engine's share of it (the session's `submit`), the rest (store and service code),
and PostgreSQL's CPU per move (its backends' CPU over the window, from /proc); and, before the window, the
median and slowest of the games' cold loads (wall ms: the newest snapshot read and restored, the events after it caught
up), as a worker pays it for a game it has not cached. The median move's cost is what
must stay flat; the engine's own cost per move depends on what the move is (a route run costs more than a
pass), which differs between the windows, so its p99 is printed but not compared. Needs PostgreSQL
(`RAILPOST_BENCH_PG`); `RAILPOST_LENGTH_GAMES` games per point (default 8)."""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import statistics
import time
from contextlib import contextmanager
from typing import Any

import psycopg

from bench.bench_length import GAME, POINTS, WINDOW, plan_points
from bench.bench_service import PG_ADMIN, database_cpu, load_text, scripted_actions
from bench.bench_service_curve import Seeder
from services.config import Config
from services.play.apply import apply_pending, read_model
from services.play.commands import body_hash
from services.play.dispatch import doorbell_receipt, queued_receipt
from services.play.sessions import SessionCache
from shared.engine import GameSession
from shared.eventstore import migrate, open_recorder
from shared.eventstore.records import NewGame
from shared.eventstore.sql import SqlRecorder

GAMES = int(os.environ.get("RAILPOST_LENGTH_GAMES", "8"))


@contextmanager
def scratch_database() -> Any:
    name = f"railpost_len_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        url = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
        migrate(url)
        yield name, url
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def template_game(rec: SqlRecorder, record: dict[str, Any]) -> int:
    """One started game of the record's table, which the seeder clones."""
    for player in record["players"]:
        rec.create_player(player["name"], None, player["id"])
    settings = record["settings"]
    game = rec.create_game(NewGame(record["title"], settings["optional_rules"], settings["seed"],
                                   len(record["players"])), {})
    for seat, player in enumerate(record["players"]):
        rec.join(game.id, player["id"], player["name"], f"length-{game.id}-{seat}")
    fresh = GameSession.new(record["title"], record["players"], settings["seed"], settings["optional_rules"])
    rec.start(game.id, read_model(fresh), {})
    return game.id


class EngineClock:
    """This thread's CPU inside `GameSession.submit`, summed: the engine's share of a move."""

    def __init__(self) -> None:
        self.spent = 0.0
        self._real = GameSession.submit

    def __enter__(self) -> EngineClock:
        clock, real = self, self._real

        def timed(session: GameSession, action: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return real(session, action, *args, **kwargs)
            finally:
                clock.spent += time.thread_time() - started

        GameSession.submit = timed  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        GameSession.submit = self._real  # type: ignore[method-assign]


def measure(rec: SqlRecorder, name: str, games: list[tuple[int, int]], script: list[tuple[int, dict[str, Any]]]
            ) -> dict[str, float]:
    config = Config.from_env()  # as the worker reads it (SNAPSHOT_EVERY and the rest)
    sessions = SessionCache(rec, len(games) + 4)
    cold: list[float] = []
    for game_id, _ in games:  # warm: the window measures hot sessions, as a busy worker has them
        game = rec.get_game(game_id)
        assert game is not None
        started = time.perf_counter()  # a cold game: its newest snapshot read and restored, then caught up
        with sessions.use(game):
            cold.append(time.perf_counter() - started)
        sessions.remember(dataclasses.replace(game, state=None))  # as the worker's warm task does
    whole: list[float] = []
    engine: list[float] = []
    pg_before = database_cpu(name)
    with EngineClock() as clock:
        for step in range(WINDOW):
            for game_id, version in games:
                sender, action = script[version + step]
                expected = version + step
                body = {"action": action, "expected_version": expected}
                in_engine = clock.spent
                started = time.thread_time()
                receipt, _ = rec.queue_command(game_id, f"p{sender}:len-{expected}", body_hash(body), expected,
                                               sender, action)
                # the doorbell's receipt, as the gateway sends it and the worker reads it back
                known = queued_receipt(game_id, receipt.command_id, doorbell_receipt(receipt))
                settled = apply_pending(rec, sessions, config, game_id, known=known)
                whole.append(time.thread_time() - started)
                engine.append(clock.spent - in_engine)
                assert settled == 1
    pg = (database_cpu(name) - pg_before) / len(whole)
    with psycopg.connect(PG_ADMIN.rsplit("/", 1)[0] + "/" + name) as conn:
        refused = conn.execute("SELECT count(*) FROM receipts WHERE status <> 'applied'").fetchone()[0]
    assert refused == 0, f"{refused} moves were refused: the seeded games are not where the record is"
    rest = sorted(w - e for w, e in zip(whole, engine, strict=True))
    whole.sort()
    engine.sort()
    p99 = max(0, int(len(whole) * 0.99) - 1)
    return {"p50": statistics.median(whole) * 1000, "p99": whole[p99] * 1000,
            "engine_p50": statistics.median(engine) * 1000, "engine_p99": engine[p99] * 1000,
            "rest_p50": statistics.median(rest) * 1000, "rest_p99": rest[p99] * 1000, "pg": pg * 1000,
            "cold": statistics.median(cold) * 1000, "cold_max": max(cold) * 1000}


def main() -> None:
    record = json.loads(GAME.read_text())
    total = len(record["actions"])
    print(f"{GAME.name} ({total} actions): the worker's path per move (receipt stored, command applied), "
          f"{GAMES} games per point, {WINDOW} moves each; CPU ms of this thread, PostgreSQL's CPU per move; "
          f"'+chat': the last stretch again after chat lines that bring it to action {POINTS[-1]}")
    print(f"{'at action':>16} {'p50':>7} {'p99':>7} {'engine p50':>10} {'engine p99':>10} {'rest p50':>8} "
          f"{'rest p99':>8} {'pg/move':>7} {'cold p50/max':>13}  load")
    seeders: dict[int, tuple[Seeder, list[tuple[int, dict[str, Any]]]]] = {}
    with scratch_database() as (name, url):
        rec = open_recorder(url, pool_size=2)
        try:
            template = template_game(rec, record)
            for label, game, start in plan_points(record):
                if id(game) not in seeders:
                    script = scripted_actions(game)
                    seeders[id(game)] = (Seeder(game, script), script)
                seeder, script = seeders[id(game)]
                games = seeder.seed(url, template, [start] * GAMES, tokens=False)
                row = measure(rec, name, games, script)
                print(f"{label:>16} {row['p50']:7.3f} {row['p99']:7.3f} {row['engine_p50']:10.3f} "
                      f"{row['engine_p99']:10.3f} {row['rest_p50']:8.3f} {row['rest_p99']:8.3f} "
                      f"{row['pg']:7.3f} {row['cold']:6.1f}/{row['cold_max']:6.1f}  {load_text()}", flush=True)
        finally:
            rec.close()


if __name__ == "__main__":
    main()

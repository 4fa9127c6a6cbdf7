"""Positions numbered in batches after commit (PostgreSQL): writer *processes* commit rows unnumbered in
parallel, and numbering transactions from several processes race to number them. Readers tailing
`position > N` must still see every committed row exactly once, in position order, without a gap ever being
filled behind them; rows nobody numbered (no reader running, a numbering transaction killed halfway) are
numbered by the rules worker's sweep."""

from __future__ import annotations

import json
import multiprocessing
import os
import secrets
import signal
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from services.config import Config
from shared.eventstore import ACTION_APPLIED, NewEvent, NewGame, SqlRecorder, migrate, open_recorder
from shared.eventstore.postgres import NUMBER_PENDING, SEQUENCER_LOCK, PostgresRecorder

from .conftest import PG_ADMIN, WorkerProcess, _pg_url, wait_until

STATE = {"round": "Stock", "phase": "1", "acting": [1], "turn": 1}
OUTBOX_PER_WRITE = 2


def new_game(rec: SqlRecorder) -> int:
    game = rec.create_game(NewGame("1825", ["unit_1"], 7, 2), {"title": "1825"})
    for i in range(2):
        player = rec.create_player(f"p{i}", secrets.token_hex(8))
        rec.join(game.id, player.id, player.name, secrets.token_hex(8))
    rec.start(game.id, STATE, {"game_id": game.id})
    return game.id


def write_one(rec: SqlRecorder, game_id: int) -> None:
    """One applied command as the worker stores it: an event, the game row, and outbox rows."""
    with rec.game_transaction(game_id) as tx:
        version = tx.game.version + 1
        tx.append(version, NewEvent(ACTION_APPLIED, {"action": {"id": version, "type": "pass"}, "player_id": 1},
                                    2, f"c{version}"))
        tx.update_game(version=version)
        for n in range(OUTBOX_PER_WRITE):
            tx.outbox("turn", {"game_id": game_id, "n": n}, version)


def writer_process(url: str, game_ids: list[int], writes: int) -> None:
    """A separate process (own connections, own scheduling): one thread per game, `writes` commits each,
    and one thread numbering in a loop meanwhile, racing the other processes' numbering and the readers'."""
    rec = open_recorder(url, pool_size=len(game_ids) + 1)
    threads = [threading.Thread(target=lambda g=g: [write_one(rec, g) for _ in range(writes)]) for g in game_ids]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        rec.number_pending()
    for t in threads:
        t.join()
    rec.close()


def raw_tail(url: str, table: str) -> Any:
    """A reader that only reads (as a replica or an ad-hoc query would): it numbers nothing itself."""
    def read(after: int, limit: int) -> list[SimpleNamespace]:
        with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
            rows = conn.execute(f"SELECT * FROM {table} WHERE position > %s ORDER BY position LIMIT %s",
                                (after, limit)).fetchall()
        return [SimpleNamespace(**r) for r in rows]
    return read


class Tail:
    """A reader polling `position > cursor` as the notifier does, checking every page as it arrives."""

    def __init__(self, read: Any, cursor: int) -> None:
        self.read = read
        self.cursor = cursor
        self.rows: list[Any] = []
        self.problems: list[str] = []

    def poll(self) -> int:
        page = self.read(self.cursor, 100)
        for row in page:
            if row.position != self.cursor + 1:
                self.problems.append(f"after {self.cursor} came {row.position}")
            self.cursor = row.position
            self.rows.append(row)
        return len(page)


@pytest.fixture
def empty_db() -> Iterator[str]:
    """A database of its own, not migrated yet."""
    name = f"railpost_t_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield _pg_url(name)
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def own_db(empty_db: str) -> str:
    """A migrated database of its own: the session's workers sweep the shared one and would number rows
    early."""
    migrate(empty_db)
    return empty_db


def test_readers_see_every_row_of_concurrent_writer_processes_once_in_order(pg_url: str) -> None:
    rec = open_recorder(pg_url)
    games = [new_game(rec) for _ in range(12)]
    events = Tail(rec.read_all, max([e.position for e in rec.read_all(0, 1_000_000)], default=0))
    outbox = Tail(rec.read_outbox, max([o.position for o in rec.read_outbox(0, 1_000_000)], default=0))
    writes = 15
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=writer_process, args=(pg_url, games[i::3], writes)) for i in range(3)]
    for p in procs:
        p.start()
    while any(p.is_alive() for p in procs):
        events.poll()
        outbox.poll()
    for p in procs:
        p.join()
        assert p.exitcode == 0
    while events.poll() or outbox.poll():
        pass

    assert events.problems == [] and outbox.problems == []
    # exactly once: every committed event and outbox row of these games was seen, none twice
    seen = [(e.game_id, e.version) for e in events.rows]
    assert len(seen) == len(set(seen)) == len(games) * writes
    assert sorted(seen) == sorted((g, v) for g in games for v in range(1, writes + 1))
    for g in games:  # a game's events keep their version order in the global log
        assert [v for gid, v in seen if gid == g] == list(range(1, writes + 1))
    turns = [(o.game_id, o.version, o.payload["n"]) for o in outbox.rows if o.kind == "turn"]
    assert len(turns) == len(set(turns)) == len(games) * writes * OUTBOX_PER_WRITE
    for g in games:  # and its outbox rows their insertion order
        assert [(v, n) for gid, v, n in turns if gid == g] == [
            (v, n) for v in range(1, writes + 1) for n in range(OUTBOX_PER_WRITE)]
    # and nothing is left unnumbered once the writers have returned
    assert all(e.position is not None for g in games for e in rec.read_events(g))
    rec.close()


def test_numbering_numbers_once_and_never_renumbers(own_db: str) -> None:
    rec = open_recorder(own_db)
    game_id = new_game(rec)
    write_one(rec, game_id)
    assert [e.position for e in rec.read_events(game_id)] == [None]  # committed, not yet numbered
    assert rec.number_pending() == 1 + 5 + OUTBOX_PER_WRITE  # the event; the game's and its seats' outbox rows
    before = [(e.version, e.position) for e in rec.read_events(game_id)]
    assert rec.number_pending() == 0
    assert [(e.version, e.position) for e in rec.read_events(game_id)] == before == [(1, 1)]
    assert [o.position for o in rec.read_outbox()] == list(range(1, 6 + OUTBOX_PER_WRITE))
    rec.close()


def dies_while_numbering(url: str) -> None:
    """A numbering transaction that has taken the lock and run its UPDATE, killed before COMMIT."""
    conn = psycopg.connect(url)
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (SEQUENCER_LOCK,))
    conn.execute(NUMBER_PENDING)
    os.kill(os.getpid(), signal.SIGKILL)


def test_rows_nobody_numbered_are_numbered_by_the_sweep(own_db: str, service_config: Config) -> None:
    rec = open_recorder(own_db)
    game_id = new_game(rec)
    write_one(rec, game_id)
    events = Tail(raw_tail(own_db, "events"), 0)
    outbox = Tail(raw_tail(own_db, "outbox"), 0)
    rec.number_pending()
    while events.poll() or outbox.poll():
        pass
    write_one(rec, game_id)  # committed; no reader numbers, so it is not in the global log yet
    proc = multiprocessing.get_context("spawn").Process(target=dies_while_numbering, args=(own_db,))
    proc.start()
    proc.join()
    assert proc.exitcode == -signal.SIGKILL

    # the killed numbering left nothing behind: the game moved on, its new rows are still unnumbered
    assert rec.get_game(game_id).version == 2
    assert [(e.version, e.position is None) for e in rec.read_events(game_id)] == [(1, False), (2, True)]
    assert events.poll() == 0 and outbox.poll() == 0

    worker = WorkerProcess(service_config.with_(database_url=own_db,
                                                celery_queue=f"railpost-seq-{secrets.token_hex(3)}"))
    try:
        wait_until(lambda: events.poll() + outbox.poll(), timeout=60)
    finally:
        worker.stop()
    while events.poll() or outbox.poll():
        pass
    assert events.problems == [] and outbox.problems == []
    assert [(e.game_id, e.version) for e in events.rows] == [(game_id, 1), (game_id, 2)]
    assert [(o.version, json.loads(o.payload).get("n")) for o in outbox.rows][-2 * OUTBOX_PER_WRITE:] == [
        (v, n) for v in (1, 2) for n in range(OUTBOX_PER_WRITE)]
    rec.close()


class OldPostgresRecorder(PostgresRecorder):
    """Writes as the recorder did before revision 0003: positions taken in the writing transaction."""

    _numbers_in_transaction = True

    def number_pending(self) -> int:
        return 0


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_upgrading_keeps_stored_positions_and_numbers_after_them(backend: str, empty_db: str,
                                                                  tmp_path: Any) -> None:
    """A store written before revision 0003 keeps its positions; new rows continue after them."""
    url = empty_db if backend == "postgres" else f"sqlite:///{tmp_path / 'old.sqlite3'}"
    migrate(url, "0002_notifier")
    rec = OldPostgresRecorder(url) if backend == "postgres" else open_recorder(url)
    game_id = new_game(rec)
    write_one(rec, game_id)
    old = [(o.position, o.kind) for o in rec.read_outbox()]
    rec.close()
    migrate(url)
    rec = open_recorder(url)
    write_one(rec, game_id)
    items = rec.read_outbox()
    assert [(o.position, o.kind) for o in items][:len(old)] == old
    assert [o.position for o in items] == list(range(1, len(old) + OUTBOX_PER_WRITE + 1))
    assert [(e.version, e.position) for e in rec.read_all()] == [(1, 1), (2, 2)]
    rec.close()

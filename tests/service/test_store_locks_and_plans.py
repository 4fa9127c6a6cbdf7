"""How the PostgreSQL store reads and locks a game while a command is applied: a player queueing a command is
never held up by another command being applied, and the worker's read of the queue stays one index probe
however long the game (the per-move cost must not grow with the number of receipts a game has stored)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql as pgsql

from shared.eventstore import SqlRecorder, open_recorder
from shared.eventstore.records import APPLIED, QUEUED

from .test_eventstore_contract import started_game


@pytest.fixture
def pg(pg_url: str) -> Iterator[SqlRecorder]:
    rec = open_recorder(pg_url)
    yield rec
    rec.close()


def test_a_command_is_queued_while_another_of_the_game_is_applied(pg: SqlRecorder) -> None:
    """The receipt's foreign key takes a KEY SHARE lock on the game row; the applying transaction's lock must
    not conflict with it, or every move, chat line and retry of a game waits for the one being applied."""
    game_id = started_game(pg)
    queued = threading.Event()
    outcome: list[object] = []

    def queue() -> None:
        try:
            outcome.append(pg.queue_command(game_id, "p1:late", "h", 0, None, {"type": "message", "message": "hi"}))
        except BaseException as exc:  # surfaced below
            outcome.append(exc)
        queued.set()

    with pg.game_transaction(game_id) as tx:
        assert tx.next_queued() is None
        thread = threading.Thread(target=queue)
        thread.start()
        finished_inside = queued.wait(5.0)  # the applying transaction is still open here
    thread.join(10)
    assert finished_inside, "queueing a command waited for the game's applying transaction to commit"
    receipt, created = outcome[0]  # type: ignore[misc]
    assert created and receipt.status == QUEUED


def test_queue_reads_probe_the_queued_indexes_in_a_generic_plan(pg_url: str, pg: SqlRecorder,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """psycopg prepares a statement after a few executions, and PostgreSQL may then plan it once for any
    parameters. The queued-receipt reads (the worker's next command, the sweep's stale ones) spell the index
    predicate out, so that plan still probes a partial index instead of reading every receipt of the game."""
    game_id = started_game(pg)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO receipts (game_id, command_id, body_hash, status, expected_version, player_id, "
                     "action, created_at) SELECT %s, 'k' || v, 'h', %s, v, NULL, '{}', v "
                     "FROM generate_series(1, 3000) AS v", (game_id, APPLIED))
        conn.execute("ANALYZE receipts")
    sent: list[tuple[str, tuple[object, ...]]] = []
    real = SqlRecorder._exec

    me = threading.get_ident()

    def spy(self: SqlRecorder, cur: object, sql: str, params: tuple[object, ...] = ()) -> object:
        # this thread's statements only: another test's app left running (an embedded dispatcher's sweep)
        # may read receipts through the same class at the same moment
        if "FROM receipts" in sql and threading.get_ident() == me:
            sent.append((sql, tuple(params)))
        return real(self, cur, sql, params)  # type: ignore[arg-type]

    monkeypatch.setattr(SqlRecorder, "_exec", spy)
    with pg.game_transaction(game_id) as tx:
        assert tx.next_queued() is None
    with pg.settle_transaction(game_id) as tx:  # the rules worker's read: the game and its queue in one
        assert tx.next_queued() is None
    assert pg.stale_receipts(0.0) == []
    assert len(sent) == 3
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("SET plan_cache_mode = force_generic_plan")
        for n, (sql, params) in enumerate(sent):
            numbered = sql
            for k in range(1, len(params) + 1):
                numbered = numbered.replace("%s", f"${k}", 1)
            types = ", ".join({int: "bigint", float: "double precision", str: "text"}[type(p)] for p in params)
            conn.execute(f"PREPARE q{n} ({types}) AS {numbered}")
            args = pgsql.SQL(", ").join(pgsql.Literal(p) for p in params).as_string(conn)
            plan = "\n".join(r[0] for r in conn.execute(f"EXPLAIN EXECUTE q{n}({args})"))
            assert "Index Scan using receipts_one_queued_per_version" in plan or \
                "Index Scan using receipts_queued_created" in plan, plan


def test_the_read_model_is_stored_compressed_with_lz4_where_the_server_has_it(pg_url: str,
                                                                               pg: SqlRecorder) -> None:
    """Migration 0010: a game row's read model (rewritten with every move) is compressed with lz4, not pglz."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' "
                            "AND 'lz4' = ANY(enumvals)").fetchone():
            pytest.skip("this PostgreSQL server was built without lz4")  # the migration leaves pglz then
        game_id = started_game(pg)
        state = {"players": {str(i): {"cash": i, "note": f"player {i} " * 20} for i in range(40)}}
        with pg.game_transaction(game_id) as tx:
            tx.update_game(state=state)
        method = conn.execute("SELECT pg_column_compression(state) FROM games WHERE id = %s", (game_id,)).fetchone()
        assert method == ("lz4",)
        stored = pg.get_game(game_id)
        assert stored is not None and stored.state == state

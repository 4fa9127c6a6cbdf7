"""The rules worker settles a command on PostgreSQL without holding a lock while the engine decides
(shared/eventstore/guarded.py): one read, then one guarded write. These tests race two appliers on one game
and check that the store keeps exactly one of them, whole, and refuses the other, whole."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import psycopg
import pytest

from services.config import Config
from services.play.apply import apply_pending, read_model
from services.play.sessions import SessionCache
from shared.eventstore import Conflict, SqlRecorder, open_recorder
from shared.eventstore.gametx import GameTx
from shared.eventstore.outbox import ActionRefused
from shared.eventstore.records import APPLIED, QUEUED, REFUSED

from .test_eventstore_contract import STATE, action_event, started_game


@pytest.fixture
def pg(pg_url: str) -> Iterator[SqlRecorder]:
    rec = open_recorder(pg_url)
    yield rec
    rec.close()


def counts(url: str, game_id: int) -> tuple[int, int]:
    with psycopg.connect(url, autocommit=True) as conn:
        events = conn.execute("SELECT count(*) FROM events WHERE game_id = %s", (game_id,)).fetchone()
        outbox = conn.execute("SELECT count(*) FROM outbox WHERE game_id = %s", (game_id,)).fetchone()
    assert events is not None and outbox is not None
    return int(events[0]), int(outbox[0])


def apply_one(tx: GameTx, n: int) -> None:
    receipt = tx.next_queued()
    assert receipt is not None
    tx.append(n, action_event(n, receipt.command_id))
    tx.update_game(version=n, state={**STATE, "turn": n})
    tx.settle(receipt, APPLIED, new_version=n, http_status=200)
    tx.outbox("turn", {"n": n}, n)


def test_the_read_is_the_game_head_and_its_oldest_queued_command(pg_url: str, pg: SqlRecorder) -> None:
    game_id = started_game(pg)
    with pg.settle_transaction(game_id) as tx:
        assert tx.next_queued() is None and not tx.more_queued
        assert tx.game.version == 0 and tx.game.state is None and tx.game.title == "1825"
    pg.queue_command(game_id, "a", "h", 0, 1, {"type": "pass"})
    before = counts(pg_url, game_id)
    with pg.settle_transaction(game_id) as tx:
        first = tx.next_queued()
        assert first is not None and not tx.more_queued
        assert (first.command_id, first.status, first.expected_version, first.player_id, first.action) == (
            "a", QUEUED, 0, 1, {"type": "pass"})
    assert counts(pg_url, game_id) == before  # a transaction that settles nothing writes nothing
    receipt = pg.get_receipt(game_id, "a")
    assert receipt is not None and receipt.status == QUEUED


def test_the_second_of_two_appliers_stores_nothing(pg_url: str, pg: SqlRecorder) -> None:
    """Both read the game at version 0 with command `a` queued and both apply it; the one that writes second
    is refused whole: no second event, no second outbox row, the receipt as the first settled it."""
    game_id = started_game(pg)
    pg.queue_command(game_id, "a", "h", 0, 1, {"type": "pass"})
    before = counts(pg_url, game_id)
    with pytest.raises(Conflict) as lost:
        with pg.settle_transaction(game_id) as late:
            apply_one(late, 1)
            with pg.settle_transaction(game_id) as first:
                apply_one(first, 1)
    assert lost.value.code == "game_changed" and f"game {game_id}" in str(lost.value)
    assert counts(pg_url, game_id) == (before[0] + 1, before[1] + 1)
    game = pg.get_game(game_id)
    assert game is not None and game.version == 1 and game.state == {**STATE, "turn": 1}
    receipt = pg.get_receipt(game_id, "a")
    assert receipt is not None and receipt.status == APPLIED and receipt.new_version == 1


def test_a_refusal_is_stored_once(pg_url: str, pg: SqlRecorder) -> None:
    """A refusal leaves the game row as it is, so the guard is the receipt still being queued: two appliers
    refusing the same command leave one refusal and one outbox notice."""
    game_id = started_game(pg)
    pg.queue_command(game_id, "a", "h", 0, 1, {"type": "pass"})
    before = counts(pg_url, game_id)

    def refuse(tx: GameTx) -> None:
        receipt = tx.next_queued()
        assert receipt is not None
        tx.settle(receipt, REFUSED, reason="no", rule="r", http_status=422)
        tx.emit(ActionRefused(game_id, "1825", 1, "a", "no", "r"), 0)

    with pytest.raises(Conflict):
        with pg.settle_transaction(game_id) as late:
            refuse(late)
            with pg.settle_transaction(game_id) as first:
                refuse(first)
    assert counts(pg_url, game_id) == (before[0], before[1] + 1)
    receipt = pg.get_receipt(game_id, "a")
    assert receipt is not None and receipt.status == REFUSED


def test_a_refusal_decided_on_an_older_version_is_not_stored(pg_url: str, pg: SqlRecorder) -> None:
    """The refusal was decided at version 0; another writer moved the game on before it was written, leaving
    the command queued: the version check refuses the write, though the receipt guard alone would pass."""
    game_id = started_game(pg)
    pg.queue_command(game_id, "a", "h", 0, 1, {"type": "pass"})
    with pytest.raises(Conflict), pg.settle_transaction(game_id) as late:
        receipt = late.next_queued()
        assert receipt is not None and receipt.command_id == "a"
        with pg.game_transaction(game_id) as other:
            other.append(1, action_event(1))
            other.update_game(version=1)
        late.settle(receipt, REFUSED, reason="no", rule="r", http_status=422)
    queued = pg.get_receipt(game_id, "a")
    assert queued is not None and queued.status == QUEUED


def test_the_guarded_write_waits_for_a_writer_holding_the_row_then_stands_down(pg_url: str, pg: SqlRecorder) -> None:
    """A writer that locked the game first (the scheduler's locking transaction, another host's applier
    mid-commit) is waited for; once it commits, the guarded statement re-reads the row, finds it changed
    and stores nothing, rather than writing over it."""
    game_id = started_game(pg)
    pg.queue_command(game_id, "a", "h", 0, 1, {"type": "pass"})
    other = open_recorder(pg_url)
    outcome: list[BaseException | None] = []
    locked, written = threading.Event(), threading.Event()

    def late_writer() -> None:
        try:
            with pg.settle_transaction(game_id) as tx:
                apply_one(tx, 1)
                locked.wait(5)
            outcome.append(None)
        except BaseException as exc:  # surfaced below
            outcome.append(exc)
        written.set()

    thread = threading.Thread(target=late_writer)
    with other.game_transaction(game_id) as tx:
        thread.start()
        apply_one(tx, 1)
        locked.set()
        assert not written.wait(0.5), "the guarded write did not wait for the transaction holding the row"
    thread.join(10)
    other.close()
    assert isinstance(outcome[0], Conflict)
    assert counts(pg_url, game_id)[0] == 1


def test_apply_pending_reads_again_after_losing_a_race(pg_url: str, pg: SqlRecorder) -> None:
    """Two appliers (two processes' caches) take the same command; the slow one loses, drops its session,
    reads again, finds nothing queued, and the game holds the command once."""
    from shared.engine import GameSession

    game_id = started_game(pg)
    session = GameSession.new("1825", [{"id": s.player_id, "name": s.name} for s in pg.seats(game_id)], 7,
                              ["unit_1"], game_id)
    action = session.legal_actions()[0]
    pg.queue_command(game_id, "a", "h", 0, None, action)
    slow_config = Config(database_url=pg_url, test_sleep_before_commit=0.5)
    settled: list[int] = []
    slow = threading.Thread(target=lambda: settled.append(
        apply_pending(pg, SessionCache(pg), slow_config, game_id)))
    slow.start()
    threading.Event().wait(0.2)  # the slow applier has decided and sleeps before its write
    assert apply_pending(pg, SessionCache(pg), Config(database_url=pg_url), game_id) == 1
    slow.join(10)
    assert settled == [0]
    events = pg.read_events(game_id)
    assert [e.version for e in events] == [1] and events[0].command_id == "a"
    game = pg.get_game(game_id)
    assert game is not None and game.version == 1 and game.state == read_model_at(pg, game_id)


def read_model_at(pg: SqlRecorder, game_id: int) -> dict[str, object]:
    game = pg.get_game(game_id)
    assert game is not None
    with SessionCache(pg).use(game) as session:
        return read_model(session, pg.read_events(game_id)[-1].data["action"])

"""One contract, every backend: the same tests run on SQLite and PostgreSQL recorders. No engine needed."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from shared.eventstore import (
    ACTION_APPLIED,
    Conflict,
    NewEvent,
    NewGame,
    NotFound,
    SqlRecorder,
    migrate,
    open_recorder,
)
from shared.eventstore.migrate import alembic_config
from shared.eventstore.records import ACTIVE, APPLIED, QUEUED, REFUSED

STATE = {"round": "Stock", "phase": "1", "acting": [1], "turn": 1}


@pytest.fixture(params=["sqlite", "postgres"])
def recorder(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlRecorder]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
        migrate(url)
    else:
        url = request.getfixturevalue("pg_url")
    rec = open_recorder(url)
    yield rec
    rec.close()


def started_game(rec: SqlRecorder, seats: int = 2) -> int:
    game = rec.create_game(NewGame("1825", ["unit_1"], 7, seats), {"title": "1825"})
    for i in range(seats):
        player = rec.create_player(f"p{i}", secrets.token_hex(8))
        rec.join(game.id, player.id, player.name, secrets.token_hex(8))
    rec.start(game.id, STATE, {"game_id": game.id})
    return game.id


def action_event(n: int, command_id: str | None = None) -> NewEvent:
    return NewEvent(ACTION_APPLIED, {"action": {"id": n, "type": "pass"}, "player_id": 1}, 2, command_id)


def append(rec: SqlRecorder, game_id: int, count: int = 1) -> None:
    with rec.game_transaction(game_id) as tx:
        start = tx.game.version
        for n in range(start + 1, start + count + 1):
            tx.append(n, action_event(n))
        tx.update_game(version=start + count)
        tx.outbox("turn", {"n": start + count}, start + count)


def test_first_revision_is_named_for_other_packages_to_build_on() -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    base = script.get_revision(script.get_bases()[0])
    assert base.revision == "0001_eventstore"


def test_game_lifecycle_writes_outbox_in_order(recorder: SqlRecorder) -> None:
    before = recorder.read_outbox(0, 100000)
    start = before[-1].position if before else 0
    game_id = started_game(recorder)
    kinds = [(o.kind, o.game_id) for o in recorder.read_outbox(start)]
    assert kinds == [("game_created", game_id), ("seat_joined", game_id), ("seat_joined", game_id),
                     ("game_started", game_id), ("turn", game_id)]
    game = recorder.get_game(game_id)
    assert game is not None and game.status == ACTIVE and game.state == STATE and game.version == 0
    assert [s.seat_index for s in recorder.seats(game_id)] == [0, 1]


def test_seats_refuse_double_join_full_game_and_late_join(recorder: SqlRecorder) -> None:
    game = recorder.create_game(NewGame("1825", [], 1, 1), {})
    ann = recorder.create_player("ann", None)
    recorder.join(game.id, ann.id, "ann", "t-" + secrets.token_hex(8))
    with pytest.raises(Conflict):
        recorder.join(game.id, ann.id, "ann", "t-" + secrets.token_hex(8))
    bob = recorder.create_player("bob", None)
    with pytest.raises(Conflict):
        recorder.join(game.id, bob.id, "bob", "t-" + secrets.token_hex(8))
    with pytest.raises(NotFound):
        recorder.join(10**9, bob.id, "bob", "t-" + secrets.token_hex(8))


def test_explicit_player_ids_push_the_counter(recorder: SqlRecorder) -> None:
    explicit = 10**6 + secrets.randbelow(10**6)
    recorder.create_player("old hand", None, explicit)
    with pytest.raises(Conflict):
        recorder.create_player("impostor", None, explicit)
    assert recorder.create_player("newcomer", None).id > explicit


def test_versions_are_contiguous_and_optimistic(recorder: SqlRecorder) -> None:
    game_id = started_game(recorder)
    append(recorder, game_id, 3)
    assert [e.version for e in recorder.read_events(game_id)] == [1, 2, 3]
    with pytest.raises(Conflict), recorder.game_transaction(game_id) as tx:
        tx.append(3, action_event(3))
    with pytest.raises(Conflict), recorder.game_transaction(game_id) as tx:
        tx.append(5, action_event(5))
    assert recorder.get_game(game_id).version == 3
    assert [e.version for e in recorder.read_events(game_id, after_version=1, limit=1)] == [2]


def test_a_failed_transaction_stores_neither_events_nor_outbox(recorder: SqlRecorder) -> None:
    game_id = started_game(recorder)
    outbox_before = recorder.read_outbox(0, 100000)[-1].position
    with pytest.raises(RuntimeError), recorder.game_transaction(game_id) as tx:
        tx.append(1, action_event(1))
        tx.outbox("turn", {}, 1)
        tx.update_game(version=1)
        raise RuntimeError("worker died before commit")
    assert recorder.read_events(game_id) == []
    assert recorder.read_outbox(outbox_before) == []
    assert recorder.get_game(game_id).version == 0


def test_command_ids_are_unique_per_game(recorder: SqlRecorder) -> None:
    game_id = started_game(recorder)
    with recorder.game_transaction(game_id) as tx:
        tx.append(1, action_event(1, "cmd-1"))
        tx.update_game(version=1)
    with pytest.raises(Exception), recorder.game_transaction(game_id) as tx:  # noqa: B017 (backend's own error)
        tx.append(2, action_event(2, "cmd-1"))
    other = started_game(recorder)
    with recorder.game_transaction(other) as tx:
        tx.append(1, action_event(1, "cmd-1"))


def test_receipts_are_idempotent_and_guard_the_version(recorder: SqlRecorder) -> None:
    game_id = started_game(recorder)
    receipt, created = recorder.queue_command(game_id, "k1", "h1", 0, 1, {"type": "pass"})
    assert created and receipt.status == QUEUED
    again, created = recorder.queue_command(game_id, "k1", "h1", 0, 1, {"type": "pass"})
    assert not created and again.command_id == "k1"
    with pytest.raises(Conflict) as reused:
        recorder.queue_command(game_id, "k1", "h2", 0, 1, {"type": "par"})
    assert reused.value.code == "idempotency_key_reused"
    with pytest.raises(Conflict) as contended:
        recorder.queue_command(game_id, "k2", "h2", 0, 2, {"type": "pass"})
    assert contended.value.code == "stale_version"
    with pytest.raises(Conflict) as stale:
        recorder.queue_command(game_id, "k3", "h3", 4, 2, {"type": "pass"})
    assert stale.value.code == "stale_version"
    with pytest.raises(NotFound):
        recorder.queue_command(10**9, "k1", "h1", 0, 1, {})


def test_settling_receipts_in_version_order(recorder: SqlRecorder) -> None:
    game_id = started_game(recorder)
    recorder.queue_command(game_id, "a", "h", 0, 1, {"type": "pass"})
    with recorder.game_transaction(game_id) as tx:
        receipt = tx.next_queued()
        assert receipt is not None and receipt.command_id == "a"
        tx.append(1, action_event(1, "a"))
        tx.update_game(version=1)
        tx.settle(receipt, APPLIED, new_version=1)
    recorder.queue_command(game_id, "b", "h", 1, 1, {"type": "bad"})
    with recorder.game_transaction(game_id) as tx:
        receipt = tx.next_queued()
        tx.settle(receipt, REFUSED, reason="no", rule="r", http_status=422)
        tx.outbox("action_refused", {"player_id": 1, "reason": "no"}, 1)
    assert recorder.get_receipt(game_id, "a").new_version == 1
    refused = recorder.get_receipt(game_id, "b")
    assert (refused.status, refused.http_status, refused.reason) == (REFUSED, 422, "no")
    with recorder.game_transaction(game_id) as tx:
        assert tx.next_queued() is None


def test_stale_receipts_are_found_for_redelivery(recorder: SqlRecorder) -> None:
    game_id = started_game(recorder)
    recorder.queue_command(game_id, "late", "h", 0, 1, {"type": "pass"})
    import time

    found = recorder.stale_receipts(time.time() + 1)
    assert ("late", game_id) in {(r.command_id, r.game_id) for r in found}
    assert all(r.status == QUEUED for r in found)


def test_snapshots_latest_wins(recorder: SqlRecorder) -> None:
    game_id = started_game(recorder)
    assert recorder.latest_snapshot(game_id) is None
    with recorder.game_transaction(game_id) as tx:
        tx.save_snapshot(0, b"zero")
        tx.save_snapshot(2, b"\x00two\xff")
    snap = recorder.latest_snapshot(game_id)
    assert (snap.version, snap.data) == (2, b"\x00two\xff")


def test_old_event_formats_are_upcast_on_read(recorder: SqlRecorder) -> None:
    game_id = started_game(recorder)
    with recorder.game_transaction(game_id) as tx:
        tx.append(1, NewEvent(ACTION_APPLIED, {"id": 1, "type": "pass", "entity": 1}, 1))  # the v1 shape
        tx.append(2, action_event(2))
        tx.update_game(version=2)
    old, new = recorder.read_events(game_id)
    assert old.type_version == 2 and old.data == {"action": {"id": 1, "type": "pass", "entity": 1},
                                                  "player_id": None}
    assert new.data["action"] == {"id": 2, "type": "pass"}


def test_import_is_all_or_nothing(recorder: SqlRecorder) -> None:
    explicit = 2 * 10**6 + secrets.randbelow(10**6)
    events = [action_event(n) for n in (1, 2)]
    game = recorder.import_game(NewGame("1825", [], 3, 2, status="finished"),
                                [(explicit, "a", None), (explicit + 1, "b", None)], events, STATE, {"1": 5}, b"s")
    assert game.version == 2 and game.result == {"1": 5}
    assert recorder.latest_snapshot(game.id).version == 2
    before = len(recorder.list_games(limit=100000))
    with pytest.raises(Exception):  # noqa: B017 (the backend's own integrity error)
        recorder.import_game(NewGame("1825", [], 3, 2), [(explicit + 5, "a", None), (explicit + 5, "a", None)],
                             events, STATE, None, None)
    assert len(recorder.list_games(limit=100000)) == before
    assert recorder.get_player(explicit + 5) is None


def test_list_filters(recorder: SqlRecorder) -> None:
    game_id = started_game(recorder)
    seat = recorder.seats(game_id)[0]
    games = recorder.list_games(player_id=seat.player_id)
    assert [g.id for g in games] == [game_id]
    assert all(g.status == ACTIVE for g in recorder.list_games(status=ACTIVE, title="1825"))


def test_tailing_readers_never_skip_a_committed_position(recorder: SqlRecorder) -> None:
    """Writers on different games commit concurrently; a reader that polls `position > last` must see every
    position exactly once, in order: a later position is never visible before an earlier one commits."""
    games = [started_game(recorder) for _ in range(4)]
    existing = recorder.read_all(0, 100000)
    last = existing[-1].position if existing else 0
    per_writer = 25
    seen: list[int] = []
    done = threading.Event()
    errors: list[BaseException] = []

    def write(game_id: int) -> None:
        try:
            for _ in range(per_writer):
                append(recorder, game_id, 1)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    def tail() -> None:
        cursor = last
        while True:
            finished = done.is_set()
            for event in recorder.read_all(cursor, 50):
                seen.append(event.position)
                cursor = event.position
            if finished and len(seen) >= per_writer * len(games):
                return
            if finished and not recorder.read_all(cursor, 1):
                return

    writers = [threading.Thread(target=write, args=(g,)) for g in games]
    reader = threading.Thread(target=tail)
    reader.start()
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    done.set()
    reader.join(timeout=30)
    assert not errors
    assert seen == list(range(last + 1, last + 1 + per_writer * len(games)))


def test_a_game_transaction_locks_the_row_without_reading_its_read_model(recorder: SqlRecorder) -> None:
    """The applier replaces the read model with every move and never reads the old one (the turn it compares
    against comes from the session), so the row it locks leaves `state` unread: a few kilobytes parsed per
    move for nothing. Everything else of the row is there, and a transaction that does not write the state
    leaves it as it was."""
    game_id = started_game(recorder)
    stored = recorder.get_game(game_id)
    assert stored is not None and stored.state == STATE
    with recorder.game_transaction(game_id) as tx:
        assert tx.game.state is None
        assert (tx.game.id, tx.game.title, tx.game.options, tx.game.version, tx.game.status) == (
            stored.id, stored.title, stored.options, stored.version, stored.status)
        tx.append(1, action_event(1))
        tx.update_game(version=1)
    after = recorder.get_game(game_id)
    assert after is not None and after.version == 1 and after.state == STATE

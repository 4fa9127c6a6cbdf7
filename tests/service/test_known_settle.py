"""A worker that holds a game hot settles the doorbell's command without reading the game first
(`SqlRecorder.settle_known`, shared/eventstore/guarded.py): the doorbell carries the receipt as the gateway
stored it, the worker remembers the game's head from its own last settle. Nothing of that is trusted: the
one write checks it against the store, and when anything differs it stores nothing and the worker reads as
before. These tests make each belief wrong in turn and check that the outcome is the one the store's
order and contents give.

A command the gateway did not store (it waits for the outcome, `services.play.commands.send_and_wait`) comes
whole with its doorbell: the worker stores it with its outcome in the one write that settles it. What that
write cannot vouch for, the worker stores queued first, as the gateway would have, and settles in the store's
order; what the gateway would have refused at once comes to its waiter as a `REJECTED` outcome. The last
tests take each case in turn and check what is stored and what the waiter is told."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
import pytest

from services.config import Config
from services.play.apply import Known, apply_pending
from services.play.commands import _heard, body_hash
from services.play.dispatch import doorbell_receipt, queued_receipt
from services.play.sessions import SessionCache
from services.play.signals import REJECTED, LocalSignals
from shared.engine import GameSession
from shared.eventstore import Conflict, Receipt, SqlRecorder, open_recorder
from shared.eventstore.guarded import READ
from shared.eventstore.records import APPLIED, FINISHED, QUEUED, REFUSED
from shared.jsontext import dumps

from .test_eventstore_contract import started_game

KEY = Config(database_url="postgresql://example/railpost").doorbell_key


class Counting:
    """Counts the settle's reads of the game (`READ`) on a recorder."""

    def __init__(self, rec: SqlRecorder, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads = 0
        original = rec._all

        def counted(cur: Any, sql: str, params: Any = ()) -> Any:
            self.reads += sql == READ
            return original(cur, sql, params)

        monkeypatch.setattr(rec, "_all", counted)


@pytest.fixture
def pg(pg_url: str) -> Iterator[SqlRecorder]:
    rec = open_recorder(pg_url)
    yield rec
    rec.close()


def moves(rec: SqlRecorder, game_id: int, count: int) -> list[dict[str, Any]]:
    """The first legal action at each of `count` positions of the game, played on a local session."""
    session = GameSession.new("1825", [{"id": s.player_id, "name": s.name} for s in rec.seats(game_id)], 7,
                              ["unit_1"], game_id)
    played = []
    for _ in range(count):
        action = {k: v for k, v in session.legal_actions()[0].items() if k != "id"}
        session.submit(action)
        played.append(action)
    return played


def queue(rec: SqlRecorder, game_id: int, key: str, version: int, action: dict[str, Any]) -> Receipt:
    body = {"action": action, "expected_version": version}
    receipt, created = rec.queue_command(game_id, key, body_hash(body), version, None, action)
    assert created
    return receipt


def known(receipt: Receipt) -> Known:
    decoded = queued_receipt(receipt.game_id, receipt.command_id, doorbell_receipt(receipt))
    assert decoded is not None
    return decoded


def status(rec: SqlRecorder, game_id: int, key: str) -> tuple[str, int | None, str | None]:
    receipt = rec.get_receipt(game_id, key)
    assert receipt is not None
    return receipt.status, receipt.new_version, receipt.rule


@pytest.fixture
def hot(pg_url: str, pg: SqlRecorder) -> tuple[int, SessionCache, list[dict[str, Any]]]:
    """A game whose first move this worker (its session cache) settled: session and head are held."""
    game_id = started_game(pg)
    played = moves(pg, game_id, 3)
    cache = SessionCache(pg)
    queue(pg, game_id, "m1", 0, played[0])
    assert apply_pending(pg, cache, Config(database_url=pg_url), game_id) == 1
    head = cache.head(game_id)
    assert head is not None and head.version == 1
    return game_id, cache, played


def test_a_hot_game_settles_the_doorbells_command_without_reading(
        pg_url: str, pg: SqlRecorder, hot: tuple[int, SessionCache, list[dict[str, Any]]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    game_id, cache, played = hot
    counting = Counting(pg, monkeypatch)
    receipt = queue(pg, game_id, "m2", 1, played[1])
    assert apply_pending(pg, cache, Config(database_url=pg_url), game_id, known=known(receipt)) == 1
    assert counting.reads == 0
    assert status(pg, game_id, "m2") == (APPLIED, 2, None)
    events = pg.read_events(game_id)
    assert [e.version for e in events] == [1, 2] and events[1].command_id == "m2"
    head = cache.head(game_id)
    assert head is not None and head.version == 2
    game = pg.get_game(game_id)
    assert game is not None and game.version == 2 and game.state is not None


def test_a_cold_game_reads_as_before(pg_url: str, pg: SqlRecorder, monkeypatch: pytest.MonkeyPatch) -> None:
    """No head remembered (a worker that has not settled this game): the doorbell's receipt is only a hint."""
    game_id = started_game(pg)
    played = moves(pg, game_id, 1)
    counting = Counting(pg, monkeypatch)
    receipt = queue(pg, game_id, "m1", 0, played[0])
    assert apply_pending(pg, SessionCache(pg), Config(database_url=pg_url), game_id, known=known(receipt)) == 1
    assert counting.reads == 1 and status(pg, game_id, "m1") == (APPLIED, 1, None)


@pytest.mark.parametrize("field", ["action", "expected_version", "player_id", "body_hash"])
def test_a_doorbell_that_misstates_its_receipt_stores_nothing_of_it(
        pg_url: str, pg: SqlRecorder, hot: tuple[int, SessionCache, list[dict[str, Any]]],
        monkeypatch: pytest.MonkeyPatch, field: str) -> None:
    """The store applies what it holds: a doorbell saying another action, version, player or body (a forged
    or garbled message) makes the known write stand down, and the read settles the stored receipt."""
    game_id, cache, played = hot
    counting = Counting(pg, monkeypatch)
    receipt = queue(pg, game_id, "m2", 1, played[1])
    other = {"action": {"type": "pass", "entity": "anyone"}, "expected_version": 2,
             "player_id": 99, "body_hash": "0" * 64}[field]
    told = Receipt(**{**receipt.__dict__, field: other})
    assert apply_pending(pg, cache, Config(database_url=pg_url), game_id,
                         known=Known(told, dumps(told.action))) == 1
    assert counting.reads == 1  # stood down, then read
    assert status(pg, game_id, "m2") == (APPLIED, 2, None)
    stored = pg.read_events(game_id)[-1].data
    assert {k: v for k, v in stored["action"].items() if k in played[1]} == played[1]
    assert stored["player_id"] is None


def test_an_older_queued_command_is_settled_first(
        pg_url: str, pg: SqlRecorder, hot: tuple[int, SessionCache, list[dict[str, Any]]]) -> None:
    """A command queued at an earlier version (left behind when another writer moved the game on) goes
    first in the store's order: it is refused as stale, then the doorbell's command is applied."""
    game_id, cache, played = hot
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO receipts (game_id, command_id, body_hash, status, expected_version, action, "
                     "created_at) VALUES (%s, 'old', 'h', %s, 0, %s, 0)", (game_id, QUEUED, dumps(played[0])))
    receipt = queue(pg, game_id, "m2", 1, played[1])
    assert apply_pending(pg, cache, Config(database_url=pg_url), game_id, known=known(receipt)) == 2
    assert status(pg, game_id, "old") == (REFUSED, None, "stale_version")
    assert status(pg, game_id, "m2") == (APPLIED, 2, None)


def test_a_head_behind_the_store_is_read_again(
        pg_url: str, pg: SqlRecorder, hot: tuple[int, SessionCache, list[dict[str, Any]]]) -> None:
    """Another process settled a move since this one's last: its remembered head (version 1) is stale. The
    known write stands down, the session is dropped, and the read catches up and applies the command."""
    game_id, cache, played = hot
    config = Config(database_url=pg_url)
    queue(pg, game_id, "m2", 1, played[1])
    assert apply_pending(pg, SessionCache(pg), config, game_id) == 1  # the other process
    receipt = queue(pg, game_id, "m3", 2, played[2])
    assert apply_pending(pg, cache, config, game_id, known=known(receipt)) == 1
    assert status(pg, game_id, "m3") == (APPLIED, 3, None)
    assert [e.version for e in pg.read_events(game_id)] == [1, 2, 3]
    head = cache.head(game_id)
    assert head is not None and head.version == 3


def test_a_game_no_longer_active_is_noticed(
        pg_url: str, pg: SqlRecorder, hot: tuple[int, SessionCache, list[dict[str, Any]]]) -> None:
    """The head remembered says active; the row says otherwise at the same version: the known write stands
    down and the read refuses the command."""
    game_id, cache, played = hot
    receipt = queue(pg, game_id, "m2", 1, played[1])
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE games SET status = 'finished' WHERE id = %s", (game_id,))
    assert apply_pending(pg, cache, Config(database_url=pg_url), game_id, known=known(receipt)) == 1
    assert status(pg, game_id, "m2") == (REFUSED, None, "not_active")
    assert [e.version for e in pg.read_events(game_id)] == [1]


def test_the_doorbell_receipt_round_trips_and_rejects_what_is_not_one() -> None:
    receipt = Receipt(5, "p3:k", "ab" * 32, QUEUED, 12, 3, {"type": "pass", "entity": "B1"}, 1765000000.25)
    back = queued_receipt(5, "p3:k", doorbell_receipt(receipt))
    assert back == Known(receipt, dumps(receipt.action))
    carried = doorbell_receipt(receipt, KEY)  # a command nobody stored: signed
    assert queued_receipt(5, "p3:k", carried, KEY) == Known(receipt, dumps(receipt.action), stored=False)
    assert queued_receipt(5, "p3:k", carried, b"another key") is None
    assert queued_receipt(5, "p3:k", carried) is None  # a worker that knows no key trusts none
    assert queued_receipt(6, "p3:k", carried, KEY) is None  # signed for another game
    assert queued_receipt(5, "p4:k", carried, KEY) is None  # or another seat's command
    for field in range(5):  # any field changed after signing
        forged = list(carried)
        forged[field] = 13 if field in (0, 1) else ("{}" if field == 4 else 2.5 if field == 3 else "cd" * 32)
        assert queued_receipt(5, "p3:k", forged, KEY) is None
    operator = Receipt(5, "admin:k", "cd" * 32, QUEUED, 0, None, {"type": "end_game"}, 1.0)
    assert queued_receipt(5, "admin:k", doorbell_receipt(operator)) == Known(operator, '{"type":"end_game"}')
    for garbled in (None, [], [1, 2], ["12", 3, "h", 1.0, "{}"], [12, "3", "h", 1.0, "{}"], [12, 3, "h", 1.0, 7],
                    [12, 3, "h", 1.0, "{not json"], [12, 3, "h", 1.0, "{}", 1], [12, 3, "h", 1.0, "{}", "ab", "ab"]):
        assert queued_receipt(5, "p3:k", garbled) is None


def test_a_command_left_queued_by_a_lost_race_is_settled_by_the_same_task(pg_url: str, pg: SqlRecorder) -> None:
    """Another writer (a stand-in's move, an operator) moves the game on while the applier decides: the
    applier's write stands down, and it reads again rather than leaving its command queued for the sweep:
    the command, now stale, is refused in the same task."""
    import threading

    from shared.eventstore import ACTION_APPLIED, NewEvent

    game_id = started_game(pg)
    session = GameSession.new("1825", [{"id": s.player_id, "name": s.name} for s in pg.seats(game_id)], 7,
                              ["unit_1"], game_id)
    first = {k: v for k, v in session.legal_actions()[0].items() if k != "id"}
    queue(pg, game_id, "a", 0, first)
    settled: list[int] = []
    slow = threading.Thread(target=lambda: settled.append(apply_pending(
        pg, SessionCache(pg), Config(database_url=pg_url, test_sleep_before_commit=0.5), game_id)))
    slow.start()
    threading.Event().wait(0.2)  # the applier has decided and sleeps before its write
    with pg.game_transaction(game_id) as tx:
        tx.append(1, NewEvent(ACTION_APPLIED, {"action": session.submit(first), "player_id": None}, 2, None))
        tx.update_game(version=1)
    slow.join(10)
    assert settled == [1]
    assert status(pg, game_id, "a") == (REFUSED, None, "stale_version")
    assert [e.command_id for e in pg.read_events(game_id)] == [None]


# -- a command nobody stored (the gateway waits for its outcome: services.play.commands.send_and_wait) --


class Heard(LocalSignals):
    """Every announcement, as (game, outcomes, reply channel)."""

    def __init__(self) -> None:
        super().__init__()
        self.said: list[tuple[int, list[dict[str, Any]], str | None]] = []

    def announce(self, game_id: int, outcomes: Sequence[dict[str, Any]], reply_to: str | None = None) -> None:
        self.said.append((game_id, list(outcomes), reply_to))


def unstored(game_id: int, key: str, version: int, action: dict[str, Any], player_id: int | None = None) -> Known:
    """The doorbell of a command nobody stored, as the gateway rings it and the worker decodes it."""
    body = {"action": action, "expected_version": version}
    receipt = Receipt(game_id, key, body_hash(body), QUEUED, version, player_id, action, time.time())
    decoded = queued_receipt(game_id, key, doorbell_receipt(receipt, KEY), KEY)
    assert decoded is not None and not decoded.stored
    return decoded


def settle(pg_url: str, pg: SqlRecorder, cache: SessionCache, doorbell: Known, signals: Heard) -> int:
    return apply_pending(pg, cache, Config(database_url=pg_url), doorbell.receipt.game_id, signals,
                         (doorbell.receipt.command_id, "reply"), doorbell)


def test_a_hot_game_stores_and_settles_the_command_in_one_write(
        pg_url: str, pg: SqlRecorder, hot: tuple[int, SessionCache, list[dict[str, Any]]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    game_id, cache, played = hot
    counting = Counting(pg, monkeypatch)
    signals = Heard()
    assert pg.get_receipt(game_id, "u2") is None
    assert settle(pg_url, pg, cache, unstored(game_id, "u2", 1, played[1]), signals) == 1
    assert counting.reads == 0  # no read, and no queued row before it: one write
    assert status(pg, game_id, "u2") == (APPLIED, 2, None)
    stored = pg.get_receipt(game_id, "u2")
    assert stored is not None and stored.action == played[1] and stored.expected_version == 1
    assert [e.command_id for e in pg.read_events(game_id)] == ["m1", "u2"]
    (said,) = signals.said
    assert said[0] == game_id and said[2] == "reply"
    assert _heard(stored, said[1][0]).status == APPLIED and said[1][0]["new_version"] == 2


def test_a_stale_version_is_stored_refused(
        pg_url: str, pg: SqlRecorder, hot: tuple[int, SessionCache, list[dict[str, Any]]]) -> None:
    game_id, cache, played = hot
    signals = Heard()
    assert settle(pg_url, pg, cache, unstored(game_id, "late", 0, played[0]), signals) == 1
    assert status(pg, game_id, "late") == (REFUSED, None, "stale_version")
    assert signals.said[0][1][0]["http_status"] == 409


def test_a_command_queued_at_its_version_goes_first(
        pg_url: str, pg: SqlRecorder, hot: tuple[int, SessionCache, list[dict[str, Any]]]) -> None:
    """A command stored queued at the same version (sent without waiting) holds that version: the one write
    stands down, and the carried command is refused as the gateway refuses a second command at a version
    (REJECTED, stale_version, nothing stored of it); the stored one then settles with its own doorbell."""
    game_id, cache, played = hot
    queue(pg, game_id, "stored", 1, played[1])
    signals = Heard()
    assert settle(pg_url, pg, cache, unstored(game_id, "carried", 1, played[1]), signals) == 0
    assert [o["rule"] for _g, outcomes, _r in signals.said for o in outcomes] == ["stale_version"]
    assert pg.get_receipt(game_id, "carried") is None
    assert apply_pending(pg, cache, Config(database_url=pg_url), game_id) == 1
    assert status(pg, game_id, "stored") == (APPLIED, 2, None)


def test_a_cold_game_stores_the_command_queued_then_reads(pg_url: str, pg: SqlRecorder) -> None:
    game_id = started_game(pg)
    played = moves(pg, game_id, 1)
    signals = Heard()
    assert settle(pg_url, pg, SessionCache(pg), unstored(game_id, "u1", 0, played[0]), signals) == 1
    assert status(pg, game_id, "u1") == (APPLIED, 1, None)
    assert [o["command_id"] for _g, outcomes, reply in signals.said for o in outcomes if reply == "reply"] == ["u1"]


def test_a_retry_of_a_settled_command_is_told_its_first_outcome(
        pg_url: str, pg: SqlRecorder, hot: tuple[int, SessionCache, list[dict[str, Any]]]) -> None:
    game_id, cache, played = hot
    assert settle(pg_url, pg, cache, unstored(game_id, "u2", 1, played[1]), Heard()) == 1
    signals = Heard()
    assert settle(pg_url, pg, cache, unstored(game_id, "u2", 1, played[1]), signals) == 0
    (said,) = signals.said
    assert said[1][0]["status"] == APPLIED and said[1][0]["new_version"] == 2 and said[2] == "reply"
    assert [e.version for e in pg.read_events(game_id)] == [1, 2]


@pytest.mark.parametrize("case", ["key_reused", "not_active"])
def test_what_the_gateway_would_refuse_at_once_is_rejected(
        pg_url: str, pg: SqlRecorder, hot: tuple[int, SessionCache, list[dict[str, Any]]], case: str) -> None:
    """Told to its waiter as REJECTED (nothing stored), which it raises as the store's own refusal."""
    game_id, cache, played = hot
    if case == "key_reused":
        queue(pg, game_id, "k", 1, played[1])
        doorbell = unstored(game_id, "k", 1, {**played[1], "note": "another body"})
    else:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("UPDATE games SET status = %s WHERE id = %s", (FINISHED, game_id))
        doorbell = unstored(game_id, "k", 1, played[1])
    cache.forget(game_id)  # a game this process does not hold: stored first, where the refusal arises
    signals = Heard()
    assert settle(pg_url, pg, cache, doorbell, signals) == 0
    rejected = [o for _g, outcomes, _r in signals.said for o in outcomes if o["status"] == REJECTED]
    assert len(rejected) == 1
    rule = "idempotency_key_reused" if case == "key_reused" else "not_active"
    assert rejected[0]["rule"] == rule
    with pytest.raises(Conflict) as raised:
        _heard(doorbell.receipt, rejected[0])
    assert raised.value.code == rule

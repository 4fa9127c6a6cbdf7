"""A seat's move whose token the gateway must look up again is queued in the same statement as the lookup
(`SqlRecorder.queue_as_seat`; on PostgreSQL one statement), unless its sender waits (then the settle stores
it and the gateway only reads the seat). The store contract on both backends, then the
gateway: the move takes that one statement, and everything that is not the plain case (another game's seat,
a player token, a handed-over token, a retry, a stale version, an undo) is answered exactly as before."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from services.play.commands import body_hash
from services.tokens import hash_token as TOKEN_HASH
from shared.eventstore import SqlRecorder
from shared.eventstore.records import QUEUED, NewGame, seat_command_id

from .conftest import ADMIN_TOKEN
from .helpers import Api, as_submitted, load_record
from .test_eventstore_contract import STATE, recorder  # noqa: F401 - the two-backend fixture

PASS = {"type": "pass", "entity": 1}


def seated_game(rec: SqlRecorder) -> tuple[int, list[tuple[int, str]]]:
    """An active game of two seats: (player id, seat token hash) each."""
    game = rec.create_game(NewGame("1825", ["unit_1"], 7, 2), {"title": "1825"})
    seats = []
    for i in range(2):
        player = rec.create_player(f"p{i}", secrets.token_hex(8))
        digest = TOKEN_HASH(secrets.token_hex(8))
        rec.join(game.id, player.id, player.name, digest)
        seats.append((player.id, digest))
    rec.start(game.id, STATE, {"game_id": game.id})
    return game.id, seats


def body(version: int = 0, action: dict[str, Any] = PASS) -> tuple[str, int, dict[str, Any]]:
    return body_hash({"action": action, "expected_version": version}), version, action


def test_a_seat_of_the_game_queues_its_command(recorder: SqlRecorder) -> None:  # noqa: F811
    game_id, [(player, digest), _] = seated_game(recorder)
    seat, receipt = recorder.queue_as_seat(game_id, digest, "k1", *body())
    assert seat is not None and (seat.game_id, seat.player_id, seat.token_hash) == (game_id, player, digest)
    assert receipt is not None and receipt.command_id == seat_command_id(player, "k1") == f"p{player}:k1"
    stored = recorder.get_receipt(game_id, receipt.command_id)
    assert stored is not None and (stored.status, stored.player_id, stored.expected_version, stored.action,
                                   stored.body_hash) == (QUEUED, player, 0, PASS, body()[0])
    assert stored.created_at == pytest.approx(receipt.created_at)


def test_what_is_not_the_plain_case_queues_nothing(recorder: SqlRecorder) -> None:  # noqa: F811
    game_id, [(player, digest), (other, other_digest)] = seated_game(recorder)
    other_game, [(_, foreign), _] = seated_game(recorder)
    assert recorder.queue_as_seat(game_id, TOKEN_HASH("nobody"), "k", *body()) == (None, None)
    seat, receipt = recorder.queue_as_seat(game_id, foreign, "k", *body())  # another game's seat
    assert seat is not None and seat.game_id == other_game and receipt is None
    _, first = recorder.queue_as_seat(game_id, digest, "k", *body())
    assert first is not None
    assert recorder.queue_as_seat(game_id, digest, "k", *body())[1] is None  # the retry: its first receipt stands
    assert recorder.queue_as_seat(game_id, other_digest, "k2", *body())[1] is None  # version 0 already claimed
    assert recorder.queue_as_seat(game_id, other_digest, "k3", *body(5))[1] is None  # stale version
    queued = [r for r in recorder.stale_receipts(float("inf")) if r.game_id in (game_id, other_game)]
    assert [r.command_id for r in queued] == [seat_command_id(player, "k")]


class Spy:
    """Counts the gateway's store calls that touch seats and receipts (its app's own recorder)."""

    def __init__(self, rec: SqlRecorder, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        for name in ("queue_as_seat", "seat_by_token", "queue_command"):
            original = getattr(rec, name)

            def spied(*args: Any, _name: str = name, _original: Any = original, **kw: Any) -> Any:
                self.calls.append(_name)
                return _original(*args, **kw)

            monkeypatch.setattr(rec, name, spied)


@pytest.fixture
def live(worker: Any, gateway: Any) -> tuple[Api, Any]:
    return Api(gateway.url, ADMIN_TOKEN), gateway.server.app.extensions["railpost"]


def test_a_seat_the_gateway_must_look_up_again_moves_in_one_statement(
        live: tuple[Api, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The usual play-by-mail move: the seat's token is past the cache's recheck (here: never seen by this
    process). One statement looks it up and queues the move; the worker applies it. A move the table's rules
    may touch (a purchase, which may take from another player) is read first instead (services/play/moves.py)."""
    api, runtime = live
    record = load_record()
    game_id, tokens = api.seated_game(record)
    actor = api.actor(game_id, record["actions"][0])
    move = {"type": "pass", "entity": actor, "entity_type": "player"}
    runtime.seat_tokens.clear()
    spy = Spy(runtime.recorder, monkeypatch)
    reply = api.act(game_id, tokens[actor], move, 0, key="first", wait=0)
    assert reply.status_code == 202, reply.text
    assert spy.calls == ["queue_as_seat"]
    assert reply.headers["Location"].endswith(f"/games/{game_id}/receipts/first")
    done = api.call("GET", f"/games/{game_id}/receipts/first?wait=10", tokens[actor]).json()
    assert done["new_version"] == 1 and done["command_id"] == "first"
    retry = api.act(game_id, tokens[actor], move, 0, key="first")  # now remembered
    assert retry.status_code == 200 and retry.json()["new_version"] == 1
    assert spy.calls == ["queue_as_seat"]  # the retry rides its doorbell: the worker answers the first receipt
    runtime.seat_tokens.clear()
    purchase = {**as_submitted(record["actions"][0], actor), "type": "buy_company"}
    api.act(game_id, tokens[actor], purchase, 1, key="second", wait=0)
    assert spy.calls[1:2] == ["seat_by_token"]  # looked up and read, not folded into one statement


def test_a_waited_move_of_a_seat_looked_up_again_writes_nothing_before_its_settle(
        live: tuple[Api, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """With `?wait` the doorbell carries the move and the worker stores it as it settles it
    (`send_and_wait`): the gateway only reads the seat (its token is not remembered) and stores nothing."""
    api, runtime = live
    record = load_record()
    game_id, tokens = api.seated_game(record)
    actor = api.actor(game_id, record["actions"][0])
    runtime.seat_tokens.clear()
    spy = Spy(runtime.recorder, monkeypatch)
    reply = api.act(game_id, tokens[actor], {"type": "pass", "entity": actor, "entity_type": "player"}, 0,
                    key="waited")
    assert reply.status_code == 200 and reply.json()["new_version"] == 1, reply.text
    assert spy.calls == ["seat_by_token"]


def test_what_the_statement_does_not_queue_is_answered_as_before(
        live: tuple[Api, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    api, runtime = live
    record = load_record()
    game_id, tokens = api.seated_game(record)
    other_game, other_tokens = api.seated_game(record)
    action = record["actions"][0]
    actor = api.actor(game_id, action)
    move = as_submitted(action, actor)
    runtime.seat_tokens.clear()
    # another game's seat: 403, nothing queued
    reply = api.act(game_id, other_tokens[actor], move, 0)
    assert reply.status_code == 403 and reply.json()["error"] == "wrong_seat", reply.text
    # a stale version: 409 as the store's slow path says it
    runtime.seat_tokens.clear()
    stale = api.act(game_id, tokens[actor], move, 7)
    assert stale.status_code == 409 and stale.json()["error"] == "stale_version", stale.text
    # an unknown token: 401; no key: 400 after the token is known good
    assert api.act(game_id, "not-a-token", move, 0).status_code == 401
    runtime.seat_tokens.clear()
    keyless = api.call("POST", f"/games/{game_id}/actions", tokens[actor],
                       json={"action": move, "expected_version": 0})
    assert keyless.status_code == 400 and keyless.json()["error"] == "idempotency_key_required"
    receipts = runtime.recorder.stale_receipts(float("inf"))
    assert not [r for r in receipts if r.game_id in (game_id, other_game)]
    assert runtime.recorder.get_game(game_id).version == 0

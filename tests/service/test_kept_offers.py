"""Each position's offers worked out after the move that reached it and kept (services/play/offers.py): the
answer read back is the engine's answer of that position, a game nobody reads gets none worked out, and a
shelf that fails is passed by."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from services.config import Config
from services.gateway import create_app
from services.notifier.db import make_engine
from services.play.offers import LocalShelf, RedisShelf, SeatOffers, position_offers, seat_offers
from services.play.table_log import TableLog
from services.play.timekeeping import Table
from shared.engine import GameSession
from shared.eventstore import migrate

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess, wait_until
from .helpers import Api, as_submitted, load_record

MOVES = 20  # the record's opening (up to its first undo): the privates, a stock round, LNWR's first turn


def _fresh_answer(record: dict[str, Any], played: int, player_id: int, needs: Any) -> dict[str, Any]:
    """What legal-actions answers the seat at that position, worked out from the record alone."""
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"].get("optional_rules") or [], 1)
    for action in record["actions"][:played]:
        session.submit({k: v for k, v in action.items() if k not in ("id", "user")})
    own, proposals = seat_offers(session, player_id).split(needs)
    return json.loads(json.dumps({"actions": own, "proposals": proposals,
                                  "dead_ends": seat_offers(session, player_id).dead_ends}))


def _needs(database_url: str, game_id: int) -> Any:
    """Which consent kinds this game's table puts to the players first (its table log, as the gateway reads)."""
    return Table.replay(TableLog(make_engine(database_url, pool_size=1)).read(game_id)).needs


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    """The embedded default on its own SQLite file; its rules thread stopped before the file goes."""
    url = f"sqlite:///{tmp_path / 'offers.sqlite3'}"
    migrate(url)
    app = create_app(Config(database_url=url, redis_url=None, admin_token="adm", snapshot_every=10,
                            sweep_interval_seconds=0.5))
    yield app, app.test_client()
    app.extensions["railpost"].close()


def _seated(client: Any, record: dict[str, Any]) -> tuple[int, dict[int, str]]:
    made = client.post("/games", json={"undo": "free", "title": record["title"], "seats": len(record["players"]),
                                       "seed": record["settings"]["seed"],
                                       "options": record["settings"]["optional_rules"]})
    game_id = made.json["id"]
    tokens = {}
    for seat, player in enumerate(record["players"]):
        joined = client.post(f"/games/{game_id}/join", headers={"Authorization": "Bearer adm"},
                             json={"name": player["name"], "seat": seat, "player_id": player["id"]})
        tokens[player["id"]] = joined.json["token"]
    assert client.post(f"/games/{game_id}/start", headers={"Authorization": "Bearer adm"}).status_code == 200
    return game_id, tokens


def _actor(client: Any, game_id: int, action: dict[str, Any]) -> int:
    if action.get("entity_type") == "player":
        return int(action["entity"])
    digest = client.get(f"/games/{game_id}/state").json["digest"]
    return int(digest["corporations"][action["entity"]]["president"])


def _play(client: Any, game_id: int, tokens: dict[int, str], action: dict[str, Any], version: int) -> None:
    actor = _actor(client, game_id, action)
    reply = client.post(f"/games/{game_id}/actions?wait=10",
                        json={"action": as_submitted(action, actor), "expected_version": version},
                        headers={"Authorization": f"Bearer {tokens[actor]}",
                                 "Idempotency-Key": uuid.uuid4().hex})
    assert reply.status_code == 200 and reply.json["new_version"] == version + 1, reply.json


def test_a_read_game_has_each_position_kept_and_it_is_the_engine_answer(embedded: tuple[Any, Any]) -> None:
    """The embedded worker keeps every seat's answer after each move of a game someone reads; legal-actions
    answers from it, and that answer is the one worked out from the record alone."""
    record = load_record()
    app, client = embedded
    shelf = app.extensions["railpost"].offers
    game_id, tokens = _seated(client, record)
    first = record["players"][0]["id"]
    assert client.get(f"/games/{game_id}/legal-actions",
                      headers={"Authorization": f"Bearer {tokens[first]}"}).status_code == 200
    needs = _needs(app.extensions["railpost"].config.database_url, game_id)
    kept_reads = 0
    for version, action in enumerate(record["actions"][:MOVES]):
        assert action["type"] not in ("undo", "redo", "message")
        _play(client, game_id, tokens, action, version)
        # worked out by the embedded worker after the answer, for every seat
        kept = wait_until(lambda v=version + 1: all(shelf.get(game_id, v, pid) for pid in tokens), timeout=10)
        assert kept
        pid = record["players"][version % len(record["players"])]["id"]  # an acting seat or the other
        answer = client.get(f"/games/{game_id}/legal-actions", headers={"Authorization": f"Bearer {tokens[pid]}"})
        assert answer.status_code == 200 and answer.json["version"] == version + 1
        assert {k: answer.json[k] for k in ("actions", "proposals", "dead_ends")} == \
            _fresh_answer(record, version + 1, pid, needs)
        kept_reads += bool(answer.json["actions"])
    assert kept_reads >= MOVES // 2  # the seats asked had moves at many of those positions


def test_a_game_nobody_reads_gets_no_offers_worked_out(embedded: tuple[Any, Any]) -> None:
    record = load_record()
    app, client = embedded
    shelf = app.extensions["railpost"].offers
    game_id, tokens = _seated(client, record)
    for version, action in enumerate(record["actions"][:5]):
        _play(client, game_id, tokens, action, version)
    assert not shelf.asked(game_id)
    assert all(shelf.get(game_id, v, pid) is None for v in range(7) for pid in tokens)
    # the first read works the seat's answer out and keeps it; the next move's position is then prepared
    first = record["players"][0]["id"]
    client.get(f"/games/{game_id}/legal-actions", headers={"Authorization": f"Bearer {tokens[first]}"})
    assert shelf.asked(game_id) and shelf.get(game_id, 5, first) is not None
    _play(client, game_id, tokens, record["actions"][5], 5)
    assert wait_until(lambda: all(shelf.get(game_id, 6, pid) for pid in tokens), timeout=10)
    # and legal-actions answers with what is kept (a marked answer put there comes back)
    marked = SeatOffers([{"type": "pass", "entity": first, "entity_type": "player", "kept": True}], [[None, []]], [])
    shelf.put(game_id, 6, {first: marked}, whole=False)
    answer = client.get(f"/games/{game_id}/legal-actions", headers={"Authorization": f"Bearer {tokens[first]}"})
    assert answer.json["actions"] == marked.actions and answer.json["version"] == 6


def _offers(n: int) -> SeatOffers:
    return SeatOffers([{"type": "pass", "entity": n}], [[None, []]], [])


def test_the_shelves_keep_the_newest_position_of_a_game(redis_url: str) -> None:
    for shelf in (LocalShelf(games=2), RedisShelf(redis_url)):
        shelf.put(901, 4, {1: _offers(1), 2: _offers(2)})
        assert shelf.get(901, 4, 2) == _offers(2) and shelf.get(901, 5, 2) is None
        shelf.put(901, 4, {3: _offers(3)}, whole=False)  # a reader's own seat, beside the worker's
        assert shelf.get(901, 4, 1) == _offers(1) and shelf.get(901, 4, 3) == _offers(3)
        shelf.put(901, 6, {1: _offers(7)})  # the next position replaces the older one
        assert shelf.get(901, 4, 1) is None and shelf.get(901, 6, 1) == _offers(7)
        shelf.put(901, 8, {})  # a position where nobody must act: the older one still goes
        assert shelf.get(901, 6, 1) is None
        shelf.put(901, 8, {2: _offers(2)}, whole=False)
        assert shelf.get(901, 8, 2) == _offers(2)
        assert not shelf.asked(902)
        shelf.mark(902)
        assert shelf.asked(902)
    # an answer kept in another spelling (another version of the code) reads as nothing kept
    client = redis.Redis.from_url(redis_url)
    client.hset("railpost:offers:901", "6:2", b'[[{"type": "pass"}], [[null, []]], []]')
    assert RedisShelf(redis_url).get(901, 6, 2) is None
    assert SeatOffers.decode(b"o1:not deflated") is None
    local = LocalShelf(games=2)
    for game in (1, 2, 3):
        local.put(game, 1, {1: _offers(game)})
    assert local.get(1, 1, 1) is None and local.get(3, 1, 1) == _offers(3)  # the oldest game went
    redis.Redis.from_url(redis_url).delete("railpost:offers:901", "railpost:offers-asked:902")


def test_a_reader_waits_for_the_position_a_worker_is_working_out(redis_url: str) -> None:
    for shelf in (LocalShelf(), RedisShelf(redis_url)):
        started = time.monotonic()
        assert shelf.wait(903, 5, 1, 5.0) is None and time.monotonic() - started < 1.0  # nobody works it out
        shelf.preparing(903, 5)
        assert shelf.wait(903, 4, 1, 5.0) is None  # another version: not waited for
        later = threading.Timer(0.3, lambda s=shelf: s.put(903, 5, {1: _offers(1)}))
        later.start()
        assert shelf.wait(903, 5, 1, 5.0) == _offers(1)
        later.join()
        shelf.preparing(903, 6)
        threading.Timer(0.2, lambda s=shelf: s.preparing(903, None)).start()  # it stopped, nothing kept
        started = time.monotonic()
        assert shelf.wait(903, 6, 1, 5.0) is None and time.monotonic() - started < 3.0
    redis.Redis.from_url(redis_url).delete("railpost:offers:903", "railpost:offers-preparing:903")


def test_a_shelf_that_cannot_be_reached_is_passed_by() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once the socket closes
    shelf = RedisShelf(f"redis://127.0.0.1:{port}/0")
    shelf.put(1, 1, {1: _offers(1)})
    shelf.mark(1)
    shelf.preparing(1, 1)
    assert shelf.get(1, 1, 1) is None and not shelf.asked(1) and shelf.wait(1, 1, 1, 1.0) is None


def test_celery_worker_keeps_the_positions_of_a_read_game(gateway: LiveServer, worker: WorkerProcess,
                                                          service_config: Config) -> None:
    """With Redis and a Celery rules worker: after each move the worker keeps every seat's answer in Redis,
    and legal-actions answers with it."""
    record = load_record()
    api = Api(gateway.url, ADMIN_TOKEN)
    game_id, tokens = api.seated_game(record)
    first = record["players"][0]["id"]
    assert api.call("GET", f"/games/{game_id}/legal-actions", tokens[first]).status_code == 200
    shelf = RedisShelf(service_config.redis_url or "")
    needs = _needs(service_config.database_url, game_id)
    for version, action in enumerate(record["actions"][:8]):
        reply = api.act(game_id, tokens[action["entity"]], as_submitted(action, action["entity"]), version)
        assert reply.status_code == 200 and reply.json()["status"] == "applied", reply.text
        assert wait_until(lambda v=version + 1: all(shelf.get(game_id, v, pid) for pid in tokens), timeout=20)
    fields = redis.Redis.from_url(service_config.redis_url or "").hkeys(f"railpost:offers:{game_id}")
    assert sorted(f.decode() for f in fields) == sorted(f"8:{pid}" for pid in tokens)  # the older went
    for pid, token in tokens.items():
        answer = api.call("GET", f"/games/{game_id}/legal-actions", token).json()
        assert {k: answer[k] for k in ("actions", "proposals", "dead_ends")} == _fresh_answer(record, 8, pid, needs)


def test_position_offers_name_every_seat() -> None:
    record = load_record()
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"].get("optional_rules") or [], 1)
    offers = position_offers(session)
    assert sorted(offers) == sorted(int(p["id"]) for p in record["players"])
    assert any(seat.actions for seat in offers.values())
    for seat in offers.values():
        assert SeatOffers.decode(seat.encode()) == SeatOffers(*json.loads(json.dumps(
            [seat.actions, seat.consents, seat.dead_ends])))
    # kept deflated: a seat's answer repeats itself (its standing orders for every corporation)
    plain = sum(len(json.dumps([seat.actions, seat.consents, seat.dead_ends])) for seat in offers.values())
    assert sum(len(seat.encode()) for seat in offers.values()) * 5 < plain


def test_every_seats_answer_worked_out_together_equals_each_asked_alone() -> None:
    """`position_offers` works the acting entity's moves out once for all seats (a memo shared by them): at
    every position of a game of each title, each seat's answer is the one it gets asked alone."""
    from bench.bench_legal import CONFORMANCE
    from services.play.legal import seat_actions, seat_dead_ends
    from shared.engine.session import final_active_flags

    for name, positions in (("1840/2player.json", 391), ("1828/1828Games_game_end_bankrupt.json", 150),
                            ("1825/1825_game_end_bank.json", 150)):
        record = json.loads((CONFORMANCE / name).read_text())
        session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                                  record["settings"].get("optional_rules") or [], record["id"])
        flags = final_active_flags(record["actions"])
        offered = 0
        for i, action in enumerate(record["actions"][:positions]):
            session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
            together = position_offers(session)
            for pid, seat in together.items():
                assert seat.actions == seat_actions(session, pid), (name, i, pid)
                assert seat.dead_ends == seat_dead_ends(session, pid), (name, i, pid)
                offered += len(seat.actions)
        assert offered > positions * 10, name


def test_a_gateway_renews_a_games_mark_at_most_once_per_refresh(redis_url: str) -> None:
    """Every read marks the game; the Redis write is made once per `MARK_REFRESH_SECONDS` by a process."""
    client = redis.Redis.from_url(redis_url)
    shelf = RedisShelf(redis_url)
    shelf.mark(904)
    assert client.ttl("railpost:offers-asked:904") > 0
    client.delete("railpost:offers-asked:904")
    shelf.mark(904)  # within the refresh: not written again
    assert not client.exists("railpost:offers-asked:904")
    RedisShelf(redis_url).mark(904)  # another process writes its own
    assert client.exists("railpost:offers-asked:904")
    client.delete("railpost:offers-asked:904")

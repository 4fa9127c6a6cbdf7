"""What touches another player needs the table (docs/time-controls.md, "Proposals"), through the service on the
embedded default and on PostgreSQL + Redis + Celery: ending the game is proposed and played only once every
other player accepts; a purchase from another player's holding is proposed to him, with its price, and played
in the buyer's name once he accepts; an 1828 merger started with another player's corporation names that
corporation's president, who may decline. Each decision takes effect in the request that takes it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from services.config import Config
from services.gateway import create_app
from shared.engine.records import RANGE_HINTS
from shared.eventstore import migrate

from .conftest import ADMIN_TOKEN, LiveServer, wait_until
from .helpers import Api

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "1828"
MARKET = FIXTURES / "1828Games_game_end_stock_market.json"

Call = Callable[..., tuple[int, Any]]  # (method, path, token=None, json=None, headers=None) -> (status, body)


def _embedded(tmp_path: Path) -> Iterator[Call]:
    url = f"sqlite:///{tmp_path / 'table.sqlite3'}"
    migrate(url)
    app = create_app(Config(database_url=url, redis_url=None, admin_token=ADMIN_TOKEN))
    client = app.test_client()

    def call(method: str, path: str, token: str | None = None, json: Any = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        head = {**(headers or {}), **({"Authorization": f"Bearer {token}"} if token else {})}
        reply = client.open(path, method=method, json=json, headers=head)
        return reply.status_code, reply.get_json(silent=True)
    yield call
    app.extensions["railpost"].close()


@pytest.fixture(params=["embedded", "postgres"])
def call(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Call]:
    if request.param == "embedded":
        yield from _embedded(tmp_path)
        return
    gateway: LiveServer = request.getfixturevalue("gateway")
    request.getfixturevalue("worker")  # a real Celery rules worker applies the moves
    api = Api(gateway.url, ADMIN_TOKEN)

    def http(method: str, path: str, token: str | None = None, json: Any = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        reply = api.call(method, path, token, json=json, headers=headers or {})
        try:
            return reply.status_code, reply.json()
        except ValueError:
            return reply.status_code, None
    yield http


def post(call: Call, game_id: int, token: str, action: dict[str, Any], version: int) -> tuple[int, Any]:
    return call("POST", f"/games/{game_id}/actions?wait=10", token, json={"action": action,
                                                                           "expected_version": version},
                headers={"Idempotency-Key": uuid.uuid4().hex})


def state(call: Call, game_id: int) -> dict[str, Any]:
    return call("GET", f"/games/{game_id}/state")[1]


def at_version(call: Call, game_id: int, version: int) -> dict[str, Any]:
    return wait_until(lambda: (s := state(call, game_id))["version"] >= version and s)


def imported(call: Call, upto: int, **rules: str) -> tuple[int, dict[int, str]]:
    """The public 1828 stock-market game moved here after its first `upto` actions, with the table's rules
    chosen for the rest of it; returns (game id, seat token per record player id)."""
    record = json.loads(MARKET.read_text())
    record["actions"] = record["actions"][:upto]
    query = "&".join(f"{k}={v}" for k, v in rules.items())
    status, body = call("POST", f"/games/import?{query}", ADMIN_TOKEN, json=record,
                        headers={"Idempotency-Key": uuid.uuid4().hex})
    assert status == 201, body
    game_id = body["game"]["id"]
    at_version(call, game_id, upto)
    return game_id, {int(s["player_id"]): s["token"] for s in body["seats"]}


def started_1840(call: Call, **rules: str) -> tuple[int, dict[int, str]]:
    status, game = call("POST", "/games", json={"title": "1840", "seats": 2, **rules})
    assert status == 201, game
    tokens = {}
    for name in ("Ann", "Bob"):
        status, joined = call("POST", f"/games/{game['id']}/join", json={"name": name})
        assert status == 201, joined
        tokens[int(joined["player_id"])] = joined["token"]
    status, _ = call("POST", f"/games/{game['id']}/start", next(iter(tokens.values())))
    assert status == 200
    return game["id"], tokens


def turn_moves(legal: dict[str, Any]) -> set[str]:
    """The types of the turn's moves legal-actions offers (ending the game and standing orders are open to
    every seat at any moment)."""
    return {a["type"] for a in legal["actions"]} - {"end_game", "program_buy_shares", "program_share_pass",
                                                    "program_disable"}


def end_game_of(call: Call, game_id: int, token: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The seat's `end_game` as legal-actions shows it, and where: among its own moves or its proposals."""
    _, legal = call("GET", f"/games/{game_id}/legal-actions", token)
    for where in ("actions", "proposals"):
        found = [a for a in legal[where] if a["type"] == "end_game"]
        if found:
            return found[0], legal[where]
    raise AssertionError(f"no end_game offered: {legal}")


def test_one_player_cannot_end_the_game_for_all(call: Call) -> None:
    game_id, tokens = started_1840(call)  # a new game's default: ending it is the table's vote
    (ann, ann_token), (bob, bob_token) = tokens.items()
    end, where = end_game_of(call, game_id, bob_token)
    assert end in where and end.get("needs_consent") == [ann]  # named apart, with whose word it needs
    version = state(call, game_id)["version"]

    status, body = post(call, game_id, bob_token, {k: v for k, v in end.items() if k != "needs_consent"},
                        version)  # off-turn, as anyone may propose it
    assert status == 202 and body["status"] == "proposed" and body["proposal"]["waiting_for"] == [ann], body
    assert state(call, game_id)["status"] == "active"  # nothing played
    clock = call("GET", f"/games/{game_id}/clock", ann_token)[1]
    assert clock["end_game"] == "vote" and clock["proposal"]["kind"] == "end_game" and clock["proposal"]["by"] == bob
    assert call("POST", f"/games/{game_id}/proposals/answer", bob_token, json={"accept": True})[0] == 403  # own

    # Ann declines: the game goes on, and the question is closed
    assert call("POST", f"/games/{game_id}/proposals/answer", ann_token, json={"accept": False})[0] == 200
    assert call("GET", f"/games/{game_id}/clock")[1]["proposal"] is None
    assert state(call, game_id)["status"] == "active" and state(call, game_id)["version"] == version

    # proposed again and accepted: the game ends in the request that accepted it (no tick waited for)
    status, body = post(call, game_id, bob_token, {"type": "end_game", "entity": bob, "entity_type": "player"},
                        version)
    assert status == 202, body
    assert call("POST", f"/games/{game_id}/proposals/answer", ann_token, json={"accept": True})[0] == 200
    ended = wait_until(lambda: (s := state(call, game_id))["status"] == "finished" and s, timeout=10)
    assert ended["digest"]["game_end_reason"] == "manually_ended"
    last = call("GET", f"/games/{game_id}/events")[1]["events"][-1]["data"]
    assert last["action"]["type"] == "end_game" and last["player_id"] == bob  # played in the proposer's name


def test_a_game_that_chose_so_may_be_ended_by_any_player(call: Call) -> None:
    game_id, tokens = started_1840(call, end_game="any")
    bob, bob_token = list(tokens.items())[1]
    end, where = end_game_of(call, game_id, bob_token)
    assert "needs_consent" not in end
    status, body = post(call, game_id, bob_token, end, state(call, game_id)["version"])
    assert status == 200 and body["status"] == "applied", body
    assert state(call, game_id)["status"] == "finished"


def test_a_train_is_bought_from_another_players_corporation_only_after_he_accepts(call: Call) -> None:
    # after 66 actions NW (3581's) may buy 2-0 from a corporation 8320 presides, at any price from $1
    game_id, tokens = imported(call, 66, purchases="consent")
    version = state(call, game_id)["version"]
    trains = state(call, game_id)["digest"]["corporations"]["NW"]["trains"]
    _, legal = call("GET", f"/games/{game_id}/legal-actions", tokens[3581])
    taking = [a for a in legal["proposals"] if a["type"] == "buy_train" and a["train"] == "2-0"]
    assert taking and all(a["needs_consent"] == [8320] for a in taking)
    assert not [a for a in legal["actions"] if a["type"] == "buy_train" and a["train"] == "2-0"]
    buy = {"type": "buy_train", "entity": "NW", "entity_type": "corporation", "train": "2-0", "price": 1}

    status, body = post(call, game_id, tokens[3581], buy, version)
    assert status == 202 and body["proposal"]["kind"] == "purchase" and body["proposal"]["waiting_for"] == [8320]
    assert body["proposal"]["action"]["price"] == 1  # the owner sees the price he is asked to accept
    assert call("POST", f"/games/{game_id}/proposals/answer", tokens[11345], json={"accept": True})[0] == 403
    assert call("POST", f"/games/{game_id}/proposals/answer", tokens[8320], json={"accept": False})[0] == 200
    assert state(call, game_id)["version"] == version  # declined: nothing bought

    status, body = post(call, game_id, tokens[3581], {**buy, "price": 80}, version)
    assert status == 202, body
    assert call("POST", f"/games/{game_id}/proposals/answer", tokens[8320], json={"accept": True})[0] == 200
    after = at_version(call, game_id, version + 1)
    assert sorted(after["digest"]["corporations"]["NW"]["trains"]) == sorted([*trains, "2"])
    last = call("GET", f"/games/{game_id}/events")[1]["events"][-1]["data"]
    assert last["action"]["price"] == 80 and last["player_id"] == 3581


def test_a_seat_cannot_slip_a_purchase_past_the_table(call: Call) -> None:
    """The rule holds where the move settles too: a seat's own purchase command that needs the owner's word
    is refused there (409), whatever way it was queued."""
    game_id, tokens = imported(call, 156, purchases="consent")  # MP (11345's) may buy D&H from 8320
    version = state(call, game_id)["version"]
    buy = {"type": "buy_company", "entity": "MP", "entity_type": "corporation", "company": "D&H", "price": 1}
    status, body = post(call, game_id, tokens[11345], buy, version)
    assert status == 202 and body["proposal"]["waiting_for"] == [8320], body
    assert state(call, game_id)["version"] == version


def test_the_partners_president_decides_a_merger_started_with_his_corporation(call: Call) -> None:
    # after 331 actions 3581 may start a merger with MP, which 11345 presides
    game_id, tokens = imported(call, 331)
    version = state(call, game_id)["version"]
    choose = {"type": "choose", "entity": 3581, "entity_type": "player", "choice": "MP"}
    status, body = post(call, game_id, tokens[3581], choose, version)
    assert status == 200 and body["status"] == "applied", body
    now = state(call, game_id)
    assert now["acting_players"] == [11345]  # named: the state, the page, the turn mail and clocks read this
    _, legal = call("GET", f"/games/{game_id}/legal-actions", tokens[11345])
    assert turn_moves(legal) == {"merge", "decline"}
    assert turn_moves(call("GET", f"/games/{game_id}/legal-actions", tokens[3581])[1]) == set()
    decline = next(a for a in legal["actions"] if a["type"] == "decline")
    assert decline["proposed_by"] == 3581

    # someone not asked cannot decline for him
    status, body = post(call, game_id, tokens[3581], {"type": "decline", "entity": 3581,
                                                      "entity_type": "player"}, version + 1)
    assert status == 422 and body["error"] == "nothing_to_decline", body
    key = {"Idempotency-Key": uuid.uuid4().hex}
    body_of = {"action": decline, "expected_version": version + 1}
    status, body = call("POST", f"/games/{game_id}/actions?wait=10", tokens[11345], json=body_of, headers=key)
    assert status == 200 and body["status"] == "applied", body
    again = call("POST", f"/games/{game_id}/actions?wait=10", tokens[11345], json=body_of, headers=key)
    assert again[0] == 200 and again[1]["new_version"] == body["new_version"], again  # a retry: the same receipt
    back = state(call, game_id)
    assert back["acting_players"] == [3581]  # the start taken back: the starter's turn goes on
    _, legal = call("GET", f"/games/{game_id}/legal-actions", tokens[3581])
    assert any(a["type"] == "choose" and a["choice"] == "MP" for a in legal["actions"])


def test_the_players_asked_are_told_what_the_proposal_is_with_its_price() -> None:
    from services.notifier.payloads import ask_sentence

    names = {"3581": "Ann", "8320": "Bob"}
    purchase = {"ask": "purchase", "by": "3581", "move": {"type": "buy_train", "entity": "NW", "train": "2-0",
                                                          "price": 80}}
    assert ask_sentence(purchase, names) == "Ann proposes that NW buys train 2-0 for 80"
    private = {"ask": "purchase", "by": "3581", "move": {"type": "buy_company", "entity": "MP", "company": "D&H",
                                                         "price": 1}}
    assert ask_sentence(private, names) == "Ann proposes that MP buys D&H for 1"
    assert ask_sentence({"ask": "end_game", "by": "8320"}, names) == "Bob proposes to end the game now"


TURN_ONLY = {"end_game", "program_buy_shares", "program_share_pass", "program_disable"}


@pytest.mark.parametrize("title,players,seed,moves", [("1828", 3, 4, 250), ("1840", 3, 11, 100),
                                                      ("1833NE", 3, 12, 250)])
def test_a_client_playing_only_what_the_named_players_are_offered_never_stalls(
        tmp_path: Path, title: str, players: int, seed: int, moves: int) -> None:
    """Who the state names is who can move, through the service: after every move the players `/state` names
    are exactly the seats legal-actions offers a move of the turn, and a client that plays only those never
    finds the table waiting on nobody (1828 seed 4 starts a merger with another player's corporation)."""
    import random

    call = next(_embedded(tmp_path))
    status, game = call("POST", "/games", json={"title": title, "seats": players, "seed": seed})
    assert status == 201, game
    tokens = {}
    for i in range(players):
        joined = call("POST", f"/games/{game['id']}/join", json={"name": f"P{i}"})[1]
        tokens[int(joined["player_id"])] = joined["token"]
    assert call("POST", f"/games/{game['id']}/start", next(iter(tokens.values())))[0] == 200
    rng = random.Random(seed)
    for _ in range(moves):
        now = state(call, game["id"])
        if now["status"] != "active":
            break
        named = {int(p) for p in now["acting_players"]}
        offers = {pid: [a for a in call("GET", f"/games/{game['id']}/legal-actions", tok)[1]["actions"]
                        if a["type"] not in TURN_ONLY] for pid, tok in tokens.items()}
        moving = {pid for pid, mine in offers.items() if mine}
        # every named player has a move; nobody else is offered one except a move open off turn (1840's
        # private sold to the bank), which never makes it his turn
        assert named and named <= moving, (now["version"], named, moving)
        pid = rng.choice(sorted(named))
        move = rng.choice(offers[pid])
        status, body = post(call, game["id"], tokens[pid], {k: v for k, v in move.items() if k not in RANGE_HINTS},
                            now["version"])
        assert status in (200, 202) and body.get("status") in ("applied", "proposed"), body

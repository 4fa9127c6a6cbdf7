"""Refusals at the gateway and in the worker, each JSON naming the problem, and none changing the game.
Needs the rules engine (a started game)."""

from __future__ import annotations

import uuid

import pytest

from services.config import Config
from shared.eventstore import open_recorder

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess
from .helpers import Api, as_submitted, load_record


@pytest.fixture
def started(gateway: LiveServer, worker: WorkerProcess) -> tuple[Api, int, dict[int, str], list[dict]]:
    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    first = record["actions"][0]
    assert api.act(game_id, tokens[first["entity"]], as_submitted(first), 0).status_code == 200
    return api, game_id, tokens, record["actions"]


def stored(api: Api, game_id: int, config: Config) -> tuple:
    """What a refusal must not change. Positions are numbered first: they are handed out after commit (by
    tailing readers or the worker's sweep, at any moment) and never change once given."""
    recorder = open_recorder(config.database_url)
    recorder.number_pending()
    recorder.close()
    state = api.call("GET", f"/games/{game_id}/state").json()
    events = api.call("GET", f"/games/{game_id}/events").json()["events"]
    return state["version"], state["digest"], [(e["version"], e["position"], e["data"]) for e in events]


def test_refusals_change_nothing(started: tuple, service_config: Config) -> None:
    api, game_id, tokens, actions = started
    (p1, p2) = list(tokens)
    before = stored(api, game_id, service_config)
    second = as_submitted(actions[1])  # player 2's move, at version 1
    path = f"/games/{game_id}/actions?wait=10"

    def post(token: str | None, body: object = None, raw: bytes | None = None, key: str | None = "k") -> tuple:
        headers = {"Idempotency-Key": key or uuid.uuid4().hex, "Content-Type": "application/json"}
        reply = api.call("POST", path, token, headers=headers, **({"data": raw} if raw is not None else {"json": body}))
        return reply.status_code, reply.json()

    assert post(tokens[p2], raw=b'{"action": {')[0] == 400
    assert post(tokens[p2], {"action": second})[1]["error"] == "invalid_request"
    assert post(None, {"action": second, "expected_version": 1}) == (401, post(None, {"action": second,
                                                                                   "expected_version": 1})[1])
    assert api.act(987654321, tokens[p2], second, 1).status_code == 404
    assert api.act(987654321, "rp_no_such_token", second, 1).status_code == 404  # 404 ahead of 401
    assert post("rp_no_such_token", {"action": second, "expected_version": 1})[0] == 401
    # a seat token of another game
    other_id, other_tokens = api.seated_game(load_record())
    code, body = post(other_tokens[p2], {"action": second, "expected_version": 1}, key=None)
    assert (code, body["error"]) == (403, "wrong_seat")
    # acting for the other player
    code, body = post(tokens[p1], {"action": second, "expected_version": 1}, key=None)
    assert (code, body["error"]) == (403, "not_your_entity")
    # stale expected version
    code, body = post(tokens[p2], {"action": second, "expected_version": 0}, key=None)
    assert (code, body["error"]) == (409, "stale_version")
    # oversize
    code, body = post(tokens[p2], {"action": {**second, "pad": "x" * service_config.max_body_bytes},
                                   "expected_version": 1}, key=None)
    assert code == 413
    # illegal: player 1 moves out of turn; the engine's reason comes back
    out_of_turn = dict(second, entity=p1)
    code, body = post(tokens[p1], {"action": out_of_turn, "expected_version": 1}, key=None)
    assert code == 422 and body["status"] == "refused" and body["reason"] and body["rule"]
    # idempotency key reused with a different body
    assert post(tokens[p1], {"action": out_of_turn, "expected_version": 1}, key="reused")[0] == 422
    code, body = post(tokens[p1], {"action": out_of_turn | {"created_at": 1}, "expected_version": 1}, key="reused")
    assert (code, body["error"]) == (422, "idempotency_key_reused")
    assert stored(api, game_id, service_config) == before
    # and the right move still goes through afterwards
    assert api.act(game_id, tokens[p2], second, 1).status_code == 200


def test_private_games_hide_reads(gateway: LiveServer) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    made = api.call("POST", "/games", json={"title": "1825", "seats": 2, "options": ["unit_1"], "visibility": "private"})
    assert made.status_code == 201, made.text
    game_id = made.json()["id"]
    assert api.call("GET", f"/games/{game_id}").status_code == 401
    token = api.call("POST", f"/games/{game_id}/join",
                     json={"name": "Ann", "invitation": made.json()["invitation"]}).json()["token"]
    assert api.call("GET", f"/games/{game_id}", token).status_code == 200
    assert api.call("GET", f"/games/{game_id}", ADMIN_TOKEN).status_code == 200

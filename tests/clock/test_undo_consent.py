"""Undo with consent over REST (docs/time-controls.md, "Undo and redo"): a player takes back his own moves
freely while nobody else has moved since; an undo or redo into another player's move is refused (409,
nothing stored) until the affected players accept a request; a decline or 48 hours of silence ends it; a
game may choose free undo at creation. Every step is in the table log and the undo in the game's events."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from flask.testing import FlaskClient

from services.gateway.table_api import table_log
from services.play import timekeeping as tk

from .conftest import bearer, wait_version

H = timedelta(hours=1)


def post(client: FlaskClient, game_id: int, headers: dict[str, str], action: dict[str, Any],
         version: int) -> Any:
    return client.post(f"/games/{game_id}/actions?wait=10", json={"action": action, "expected_version": version},
                       headers={**headers, "Idempotency-Key": uuid.uuid4().hex})


def acting(client: FlaskClient, game_id: int) -> int:
    return int(client.get(f"/games/{game_id}/state").json["acting_players"][0])


def move(client: FlaskClient, game_id: int, by: dict[int, dict[str, str]]) -> tuple[int, int]:
    """The acting player makes his first legal move; returns (player, the stored action id)."""
    state = client.get(f"/games/{game_id}/state").json
    player = int(state["acting_players"][0])
    action = client.get(f"/games/{game_id}/legal-actions", headers=by[player]).json["actions"][0]
    reply = post(client, game_id, by[player], action, state["version"])
    assert reply.json["status"] == "applied", reply.json
    return player, int(client.get(f"/games/{game_id}/events").json["events"][-1]["data"]["action"]["id"])


def snapshot(client: FlaskClient, game_id: int) -> tuple[int, int]:
    events = client.get(f"/games/{game_id}/events").json["events"]
    return client.get(f"/games/{game_id}/state").json["version"], len(events)


def test_undo_into_another_players_move_needs_consent(table: Any) -> None:
    client, game_id, seats, vc, scheduler, app = table
    by = {pid: bearer(tok) for tok, pid in seats.values()}
    assert client.post(f"/games/{game_id}/start", headers=by[seats["Ann"][1]]).status_code == 200
    assert client.get(f"/games/{game_id}/clock").json["undo"] == "consent"  # the default

    # one's own last move, nobody moved since: free, and so is its redo
    first, first_id = move(client, game_id, by)
    key = {**by[first], "Idempotency-Key": "undo-1"}
    undo = {"action": {"type": "undo"}, "expected_version": 1}
    assert client.post(f"/games/{game_id}/actions?wait=10", json=undo, headers=key).json["status"] == "applied"
    retry = client.post(f"/games/{game_id}/actions?wait=10", json=undo, headers=key)  # same key: same receipt
    assert retry.status_code == 200 and retry.json["new_version"] == 2, retry.json
    assert post(client, game_id, by[first], {"type": "redo"}, 2).json["status"] == "applied"
    # play on until someone else has moved after the first player's move
    while True:
        player, last_id = move(client, game_id, by)
        if player != first:
            break
    other = player
    before = snapshot(client, game_id)
    version = before[0]
    undo_back = {"type": "undo", "action_id": first_id - 1}  # back before the first move: takes the other's too

    refused = post(client, game_id, by[first], undo_back, version)
    assert refused.status_code == 409 and refused.json["error"] == "undo_needs_consent", refused.json
    assert refused.json["details"]["affected"] == [other]
    assert post(client, game_id, by[first], {"type": "undo"}, version).status_code == 409  # the other's last move
    assert post(client, game_id, by[first], {"type": "undo"}, version - 1).json["error"] == "stale_version"
    unknown = post(client, game_id, by[first], {"type": "undo", "action_id": 9999}, version)
    assert unknown.status_code == 422 and unknown.json["error"] == "undo_target"
    assert client.post(f"/games/{game_id}/actions", json={"action": {"type": "undo"}, "expected_version": version},
                       headers={"Idempotency-Key": "k"}).status_code == 401
    assert snapshot(client, game_id) == before  # nothing stored on any refusal
    # the other player's own last move is his to take back, and to bring back
    assert post(client, game_id, by[other], {"type": "undo"}, version).json["status"] == "applied"
    assert post(client, game_id, by[first], {"type": "redo"}, version + 1).json["error"] == "undo_needs_consent"
    assert post(client, game_id, by[other], {"type": "redo"}, version + 1).json["status"] == "applied"
    version += 2
    before = snapshot(client, game_id)

    requests, answer = f"/games/{game_id}/undo-requests", f"/games/{game_id}/undo-requests/answer"
    body = {"kind": "undo", "action_id": first_id - 1}
    # a decline ends the request and nothing changes
    assert client.post(requests, json=body, headers=by[first]).status_code == 202
    assert client.post(requests, json=body, headers=by[first]).status_code == 409  # one request at a time
    assert client.post(answer, json={"accept": False}, headers=by[other]).status_code == 200
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["undo_request"] is None
    assert snapshot(client, game_id) == before
    # silence for 48 hours is no consent either
    assert client.post(requests, json=body, headers=by[first]).status_code == 202
    vc.advance(48 * H)
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["undo_request"] is None
    assert snapshot(client, game_id) == before
    # a move after the request makes it moot: the consent would be to a position that is gone
    assert client.post(requests, json={"kind": "undo"}, headers=by[first]).status_code == 202
    mover = acting(client, game_id)
    move(client, game_id, by)
    if mover != first:  # the affected player answers, but the game moved on meanwhile
        client.post(answer, json={"accept": True}, headers=by[other])
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["undo_request"] is None
    before = snapshot(client, game_id)
    # all affected accept: the undo is played for the requester, and recorded as his
    version = before[0]
    assert client.post(requests, json=body, headers=by[first]).status_code == 202
    assert client.post(answer, json={"accept": True}, headers=by[first]).status_code == 403  # own request
    assert client.post(answer, json={"accept": True}, headers=by[other]).status_code == 200
    scheduler.run_once()
    wait_version(client, game_id, version + 1)
    last = client.get(f"/games/{game_id}/events").json["events"][-1]["data"]
    assert last["action"]["type"] == "undo" and last["action"]["action_id"] == first_id - 1
    assert last["player_id"] == first and last["action"]["user"] == first
    with app.app_context():
        log = table_log().read(game_id)
    settled = [e["state"] for e in log if e["type"] == "consent_settled"]
    assert settled == ["declined", "lapsed", "moot", "accepted"]
    assert tk.Table.replay(log) == tk.Table.replay([dict(e) for e in log])  # the decisions replay


def test_a_game_may_choose_free_undo_at_creation(table: Any) -> None:
    client, *_ = table
    assert client.post("/games", json={"title": "1840", "seats": 2, "undo": "maybe"}).status_code == 400
    game_id = client.post("/games", json={"title": "1840", "seats": 2, "undo": "free"}).json["id"]
    by = {}
    for name in ("Cy", "Di"):
        joined = client.post(f"/games/{game_id}/join", json={"name": name}).json
        by[joined["player_id"]] = bearer(joined["token"])
    client.post(f"/games/{game_id}/start", headers=next(iter(by.values())))
    assert client.get(f"/games/{game_id}/clock").json["undo"] == "free"
    first, _ = move(client, game_id, by)
    other = next(p for p in by if p != first)
    assert post(client, game_id, by[other], {"type": "undo"}, 1).json["status"] == "applied"

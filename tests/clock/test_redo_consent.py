"""Redo with consent, end to end over REST (docs/time-controls.md, "Undo and redo"): a redo that brings back
other players' moves is a request every affected player answers; when all accept, the scheduler plays the
redo for the requester and the position is the one before the undo; one decline, or 48 hours without every
answer, ends it and nothing is brought back."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask.testing import FlaskClient

from services.gateway.table_api import table_log

from .conftest import bearer, wait_version
from .test_undo_consent import move, post

H = timedelta(hours=1)


def position(client: FlaskClient, game_id: int) -> dict[str, Any]:
    """What the players see of the game, without its version (an undo and a redo each add one)."""
    state = dict(client.get(f"/games/{game_id}/state").json)
    out = {k: v for k, v in state.items() if k not in ("version", "updated_at")}
    # the digest names the last action (its id and type): an undo or a redo is one
    out["digest"] = {k: v for k, v in (out.get("digest") or {}).items() if k not in ("action_id", "type")}
    return out


def three_player_game(client: FlaskClient) -> tuple[int, dict[int, dict[str, str]]]:
    game_id = client.post("/games", json={"title": "1840", "seats": 3}).json["id"]
    by: dict[int, dict[str, str]] = {}
    for name in ("Ann", "Bob", "Cy"):
        joined = client.post(f"/games/{game_id}/join", json={"name": name}).json
        by[joined["player_id"]] = bearer(joined["token"])
    assert client.post(f"/games/{game_id}/start", headers=next(iter(by.values()))).status_code == 200
    return game_id, by


def test_a_redo_of_other_players_moves_is_played_once_all_of_them_accept(table: Any) -> None:
    client, _gid, _seats, vc, scheduler, app = table
    game_id, by = three_player_game(client)
    requests, answer = f"/games/{game_id}/undo-requests", f"/games/{game_id}/undo-requests/answer"
    requester, first_id = move(client, game_id, by)
    others = sorted(p for p in by if p != requester)
    movers: set[int] = set()
    while not set(others) <= movers:  # play on until both others have moved after the requester
        player, _ = move(client, game_id, by)
        movers.add(player)
    ahead = position(client, game_id)

    # the undo back to just after the requester's move takes both others' moves: both consent
    undo = {"kind": "undo", "action_id": first_id}
    assert client.post(requests, json=undo, headers=by[requester]).status_code == 202
    version = client.get(f"/games/{game_id}/state").json["version"]
    for p in others:
        assert client.post(answer, json={"accept": True}, headers=by[p]).status_code == 200
    wait_version(client, game_id, version + 1)  # played in the request that accepted it: no tick waited for
    assert position(client, game_id) != ahead
    version += 1

    # bringing those moves back touches the same players: a plain redo is refused
    refused = post(client, game_id, by[requester], {"type": "redo"}, version)
    assert refused.status_code == 409 and refused.json["details"]["affected"] == others, refused.json
    made = client.post(requests, json={"kind": "redo"}, headers=by[requester])
    assert made.status_code == 202 and made.json["undo_request"]["kind"] == "redo"
    assert made.json["undo_request"]["affected"] == others
    # one acceptance is not enough: nothing is played yet
    assert client.post(answer, json={"accept": True}, headers=by[others[0]]).status_code == 200
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/state").json["version"] == version
    assert client.get(f"/games/{game_id}/clock").json["undo_request"]["accepted"] == [others[0]]
    assert client.post(answer, json={"accept": True}, headers=by[others[0]]).status_code == 409  # answered
    assert client.post(answer, json={"accept": True}, headers=by[requester]).status_code == 403  # own request
    assert client.post(answer, json={"accept": True}, headers=by[others[1]]).status_code == 200
    wait_version(client, game_id, version + 1)
    last = client.get(f"/games/{game_id}/events").json["events"][-1]["data"]
    assert last["action"]["type"] == "redo" and last["player_id"] == requester
    assert position(client, game_id) == ahead  # every move brought back, as it was
    with app.app_context():
        settled = [(e["kind"], e["state"]) for e in table_log().read(game_id) if e["type"] == "consent_settled"]
    assert settled == [("undo", "accepted"), ("redo", "accepted")]


def test_a_redo_request_ends_on_a_decline_or_after_48_hours(table: Any) -> None:
    client, _gid, _seats, vc, scheduler, app = table
    game_id, by = three_player_game(client)
    requests, answer = f"/games/{game_id}/undo-requests", f"/games/{game_id}/undo-requests/answer"
    requester, _ = move(client, game_id, by)
    other, _ = move(client, game_id, by)
    while other == requester:
        other, _ = move(client, game_id, by)
    version = client.get(f"/games/{game_id}/state").json["version"]
    # the other player takes back his own last move (free); the requester would bring it back
    assert post(client, game_id, by[other], {"type": "undo"}, version).json["status"] == "applied"
    version += 1
    behind = position(client, game_id)

    assert client.post(requests, json={"kind": "redo"}, headers=by[requester]).status_code == 202
    assert client.post(answer, json={"accept": False}, headers=by[other]).status_code == 200
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["undo_request"] is None
    assert client.get(f"/games/{game_id}/state").json["version"] == version and position(client, game_id) == behind

    assert client.post(requests, json={"kind": "redo"}, headers=by[requester]).status_code == 202
    vc.advance(47 * H)
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["undo_request"] is not None  # still waiting
    vc.advance(H)
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["undo_request"] is None  # silence is no consent
    assert client.post(answer, json={"accept": True}, headers=by[other]).status_code == 409  # too late
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/state").json["version"] == version and position(client, game_id) == behind
    with app.app_context():
        settled = [(e["kind"], e["state"]) for e in table_log().read(game_id) if e["type"] == "consent_settled"]
    assert settled == [("redo", "declined"), ("redo", "lapsed")]
    # the move is still his to bring back himself
    assert post(client, game_id, by[other], {"type": "redo"}, version).json["status"] == "applied"

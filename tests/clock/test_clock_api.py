"""The time-control endpoints on the embedded store with the real scheduler pass and a time source the test moves:
set-up before the start, one's own hours and vacation, the vote at a deadline, undo consent; every bad input
a 4xx naming the problem, and nobody speaks for another seat."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from .conftest import bearer, wait_version

H = timedelta(hours=1)


def test_time_control_vote_and_undo_consent_over_rest(table: Any) -> None:
    client, game_id, seats, vc, scheduler, app = table
    ann, bob = bearer(seats["Ann"][0]), bearer(seats["Bob"][0])
    url = f"/games/{game_id}/clock"
    assert client.get(url).json["time_control"]["kind"] == "none"
    # bad set-ups name the field, and store nothing
    for body, field in [({"kind": "blitz"}, "kind"), ({"kind": "deadline"}, "per_move_hours"),
                        ({"kind": "bank", "bank_hours": -1}, "bank_hours"), ({"kind": "none", "x": 1}, "x")]:
        reply = client.put(url, json=body, headers=ann)
        assert reply.status_code == 400 and field in reply.json["details"], reply.json
    assert client.put(url, json={"kind": "deadline", "per_move_hours": 24}).status_code == 401
    assert client.put(url, json={"kind": "deadline", "per_move_hours": 24}, headers=ann).status_code == 200
    assert client.put(f"{url}/hours", json={"tz": "Mars/Base"}, headers=ann).json["details"] == \
        {"tz": ["unknown time zone 'Mars/Base'"]}
    assert client.put(f"{url}/hours", json={"quiet_start": "25:00"}, headers=ann).status_code == 400
    assert client.put(f"{url}/hours", json={"tz": "UTC"}, headers=bearer("adm")).status_code == 403
    assert client.post(f"/games/{game_id}/start", headers=ann).status_code == 200
    assert client.put(url, json={"kind": "none"}, headers=ann).status_code == 409
    assert client.post(f"{url}/vote", json={"choice": "extend"}, headers=bob).status_code == 409
    past = (vc.now() - H).isoformat()
    assert client.put(f"{url}/vacation", json={"until": past}, headers=ann).status_code == 400
    assert client.put(f"{url}/vacation", json={"until": "2026-03-09T10:00:00"}, headers=ann).status_code == 400

    scheduler.run_once()
    state = client.get(url).json
    first = client.get(f"/games/{game_id}/state").json["acting_players"][0]
    absent, other = (ann, bob) if first == seats["Ann"][1] else (bob, ann)
    assert state["to_move"] == first and state["deadline"] == (vc.now() + 24 * H).isoformat()
    vc.advance(24 * H)
    scheduler.run_once()
    vote = client.get(url).json["vote"]
    assert vote is not None and vote["absent"] == first
    assert client.post(f"{url}/vote", json={"choice": "extend"}, headers=absent).status_code == 403
    assert client.post(f"{url}/vote", json={"choice": "kick"}, headers=other).status_code == 400
    assert client.post(f"{url}/vote", json={"choice": "extend"}, headers=other).status_code == 201
    assert client.post(f"{url}/vote", json={"choice": "extend"}, headers=other).status_code == 409
    scheduler.run_once()
    state = client.get(url).json
    assert state["vote"] is None and state["deadline"] == (vc.now() + 24 * H).isoformat()

    # the absent player moves; the other asks to undo that move: a request the mover answers
    action = client.get(f"/games/{game_id}/legal-actions", headers=absent).json["actions"][0]
    moved = client.post(f"/games/{game_id}/actions?wait=10", json={"action": action, "expected_version": 0},
                        headers={**absent, "Idempotency-Key": uuid.uuid4().hex})
    assert moved.json["status"] == "applied", moved.json
    free = client.post(f"/games/{game_id}/undo-requests", json={}, headers=absent)
    assert free.status_code == 200 and free.json["free"] is True
    asked = client.post(f"/games/{game_id}/undo-requests", json={"kind": "undo"}, headers=other)
    assert asked.status_code == 202 and asked.json["undo_request"]["affected"] == [first]
    answer = f"/games/{game_id}/undo-requests/answer"
    assert client.post(answer, json={"accept": True}, headers=other).status_code == 403
    assert client.post(answer, json={"accept": "maybe"}, headers=absent).status_code == 400
    assert client.post(answer, json={"accept": True}, headers=absent).status_code == 200
    scheduler.run_once()
    wait_version(client, game_id, 2)
    events = client.get(f"/games/{game_id}/events").json["events"]
    assert events[-1]["data"]["action"]["type"] == "undo"
    assert client.get(url).json["undo_request"] is None


def test_unknown_game_and_bad_ids(table: Any) -> None:
    client, game_id, seats, *_ = table
    assert client.get("/games/999999/clock").status_code == 404
    assert client.put(f"/games/{game_id}/clock", data="not json", headers=bearer(seats["Ann"][0]),
                      content_type="application/json").status_code == 400

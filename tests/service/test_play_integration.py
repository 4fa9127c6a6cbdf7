"""The recorded 1825 game, end to end through the real gateway, Redis, Celery worker and PostgreSQL.
Needs the rules engine."""

from __future__ import annotations

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess
from .helpers import Api, as_submitted, load_record


def test_imported_record_reaches_the_recorded_result(gateway: LiveServer) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    reply = api.call("POST", "/games/import", ADMIN_TOKEN, json=record)  # the operator binds the record's ids
    assert reply.status_code == 201, reply.text
    game = reply.json()["game"]
    assert game["status"] == "finished" and game["version"] == len(record["actions"])
    assert game["result"] == record["result"]
    exported = api.call("GET", f"/games/{game['id']}/export").json()
    assert exported["result"] == record["result"]
    assert [a["type"] for a in exported["actions"]] == [a["type"] for a in record["actions"]]
    page = api.call("GET", f"/games/{game['id']}/events?after=540&limit=100").json()
    assert [e["version"] for e in page["events"]] == list(range(541, len(record["actions"]) + 1))


def test_a_bad_record_is_refused_with_its_first_bad_action(gateway: LiveServer) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    before = len(api.call("GET", "/games?limit=500", ADMIN_TOKEN).json()["games"])
    record["actions"] = record["actions"][:3] + [dict(record["actions"][3], entity=record["players"][0]["id"],
                                                      shares=["NOPE_9"])] + record["actions"][4:]
    reply = api.call("POST", "/games/import", ADMIN_TOKEN, json=record)
    assert reply.status_code == 422, reply.text
    assert reply.json()["error"] == "replay_refused" and reply.json()["details"]["index"] == 3
    assert len(api.call("GET", "/games?limit=500", ADMIN_TOKEN).json()["games"]) == before


def test_the_recorded_game_played_action_by_action(gateway: LiveServer, worker: WorkerProcess) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    for version, action in enumerate(record["actions"]):
        player = api.actor(game_id, action)
        reply = api.act(game_id, tokens[player], as_submitted(action, player), version)
        assert reply.status_code == 200, f"action {action['id']}: {reply.status_code} {reply.text}"
        assert reply.json()["new_version"] == version + 1
    state = api.call("GET", f"/games/{game_id}/state").json()
    assert state["status"] == "finished" and state["version"] == len(record["actions"])
    assert state["result"] == record["result"]
    exported = api.call("GET", f"/games/{game_id}/export").json()
    assert exported["result"] == record["result"]

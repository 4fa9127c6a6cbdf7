"""Imports running at the same time that name the same players all succeed (issue 22), on PostgreSQL over real
connections: the gateway is served over real HTTP (threaded), so each import runs in its own thread with its own
pooled connection, and all of them reach the event store together.

Before the fix two admin imports of one record both saw its players absent and both inserted them; the later
insert failed on the players' key (`UniqueViolation ... players_pkey`) and the caller got HTTP 500."""

from __future__ import annotations

import json
import secrets
import threading
import uuid
from pathlib import Path
from typing import Any

import requests

from .conftest import ADMIN_TOKEN, LiveServer

RECORD_1840 = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "1840" / "2player.json"
RACERS = 8


def record_with_new_players(actions: int) -> dict[str, Any]:
    """The 1840 record cut to its first `actions` actions, its two players renamed to ids no test stored yet
    (so every racer has to create them)."""
    record = json.loads(RECORD_1840.read_text())
    base = 10_000_000 + secrets.randbelow(10_000_000) * 10
    ids = {p["id"]: base + i for i, p in enumerate(record["players"])}

    def renamed(action: dict[str, Any]) -> dict[str, Any]:
        out = dict(action)
        if out.get("entity_type") == "player" and out.get("entity") in ids:
            out["entity"] = ids[out["entity"]]
        if out.get("user") in ids:
            out["user"] = ids[out["user"]]
        if out.get("auto_actions"):
            out["auto_actions"] = [renamed(a) for a in out["auto_actions"]]
        return out

    record["players"] = [{**p, "id": ids[p["id"]]} for p in record["players"]]
    record["actions"] = [renamed(a) for a in record["actions"][:actions]]
    record.pop("result", None)
    return record


def race(base: str, bodies: list[tuple[dict[str, Any], dict[str, str]]]) -> list[tuple[int, Any]]:
    """POST every body to /games/import at once (one thread and connection each); the answers in order."""
    start = threading.Barrier(len(bodies))
    answers: list[tuple[int, Any]] = [(0, None)] * len(bodies)

    def send(i: int, body: dict[str, Any], headers: dict[str, str]) -> None:
        start.wait()
        reply = requests.post(base + "/games/import", json=body, timeout=120,
                              headers={"Authorization": f"Bearer {ADMIN_TOKEN}", **headers})
        answers[i] = (reply.status_code, reply.json() if reply.content else None)

    threads = [threading.Thread(target=send, args=(i, b, h)) for i, (b, h) in enumerate(bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)
    return answers


def test_parallel_imports_naming_the_same_players_all_succeed(gateway: LiveServer) -> None:
    record = record_with_new_players(actions=12)
    ids = [p["id"] for p in record["players"]]
    # the same players in the other seat order too (a game with no moves yet replays in either order): the
    # identities are created in id order whatever the record's order, so such imports cannot deadlock
    swapped = {**record, "players": record["players"][::-1], "actions": []}
    bodies = [(record, {}) for _ in range(RACERS - 3)]
    bodies += [(swapped, {}), (swapped, {}), (record, {"Idempotency-Key": uuid.uuid4().hex})]
    answers = race(gateway.url, bodies)
    assert [status for status, _ in answers] == [201] * RACERS, answers
    games = {body["game"]["id"] for _, body in answers}
    assert len(games) == RACERS  # every import is a game of its own
    for (sent, _), (_, body) in zip(bodies, answers, strict=True):
        assert [s["player_id"] for s in body["seats"]] == [p["id"] for p in sent["players"]]
        assert body["players"] == []  # the admin binds the record's ids: no fresh identities
    # one identity per player id, each listing every game it was imported into
    for player_id in ids:
        listed = requests.get(f"{gateway.url}/games?player_id={player_id}&limit=100", timeout=30).json()
        assert games <= {g["id"] for g in listed["games"]}


def test_parallel_imports_by_the_same_idempotency_key_answer_one_game(gateway: LiveServer) -> None:
    record = record_with_new_players(actions=4)
    key = {"Idempotency-Key": uuid.uuid4().hex}
    answers = race(gateway.url, [(record, key) for _ in range(4)])
    assert sorted(status for status, _ in answers) == [200, 200, 200, 201], answers
    assert len({body["game"]["id"] for _, body in answers}) == 1

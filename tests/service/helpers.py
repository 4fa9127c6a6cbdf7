"""An HTTP client for the gateway and a driver that plays a recorded 18xx.games record through it."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import requests

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "1825" / "1825_game_end_bank.json"


def load_record() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


class Api:
    def __init__(self, base: str, admin_token: str) -> None:
        self.base = base
        self.admin = admin_token
        self.http = requests.Session()

    def call(self, method: str, path: str, token: str | None = None, **kw: Any) -> requests.Response:
        headers = dict(kw.pop("headers", {}))
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return self.http.request(method, self.base + path, headers=headers, timeout=60, **kw)

    def seated_game(self, record: dict[str, Any]) -> tuple[int, dict[int, str]]:
        """A started game with the record's set-up and players; returns (game id, seat token per player id)."""
        settings = record["settings"]
        created = self.call("POST", "/games", json={"undo": "free", "title": record["title"], "seats": len(record["players"]),
                                                    "options": settings["optional_rules"], "seed": settings["seed"]})
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        tokens = {}
        for seat, player in enumerate(record["players"]):
            joined = self.call("POST", f"/games/{game_id}/join", self.admin,
                               json={"name": player["name"], "seat": seat, "player_id": player["id"]})
            assert joined.status_code == 201, joined.text
            tokens[player["id"]] = joined.json()["token"]
        started = self.call("POST", f"/games/{game_id}/start", tokens[record["players"][0]["id"]])
        assert started.status_code == 200, started.text
        return game_id, tokens

    def actor(self, game_id: int, action: dict[str, Any]) -> int:
        """Who sends this recorded action: for undo/redo/chat whoever clicked (`user`); otherwise whoever
        controls the entity — the player itself or the corporation's president."""
        if action["type"] in ("undo", "redo", "message") and "user" in action:
            return int(action["user"])
        if action.get("entity_type") == "player":
            return int(action["entity"])
        state = self.call("GET", f"/games/{game_id}/state").json()
        president = (state["digest"].get("corporations") or {}).get(action["entity"], {}).get("president")
        return int(president if president is not None else state["acting_players"][0])

    def act(self, game_id: int, token: str, action: dict[str, Any], expected: int,
            key: str | None = None, wait: float = 10) -> requests.Response:
        return self.call("POST", f"/games/{game_id}/actions?wait={wait}", token,
                         headers={"Idempotency-Key": key or uuid.uuid4().hex},
                         json={"action": action, "expected_version": expected})


def as_submitted(action: dict[str, Any], actor: int | None = None) -> dict[str, Any]:
    """A recorded action as a client sends it: the server assigns the id, and `user` names the sender, so
    a recorded `user` who was not the sender (a table-mate clicking for the president) is left out."""
    return {k: v for k, v in action.items() if k != "id" and not (k == "user" and v != actor)}


def race_first_move(base: str, admin_token: str, racers: int = 20) -> tuple[list[int], list[int]]:
    """A new game whose first recorded move is sent by `racers` clients at once, all at version 0. Returns
    the sorted HTTP statuses and the versions stored afterwards."""
    import threading

    api = Api(base, admin_token)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    first = as_submitted(record["actions"][0])
    codes: list[int] = []
    barrier = threading.Barrier(racers)

    def race() -> None:
        client = Api(base, admin_token)
        barrier.wait()
        codes.append(client.act(game_id, tokens[first["entity"]], first, 0).status_code)

    threads = [threading.Thread(target=race) for _ in range(racers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = api.call("GET", f"/games/{game_id}/events").json()["events"]
    return sorted(codes), [e["version"] for e in events]

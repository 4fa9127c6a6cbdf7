"""A public game with standing orders played move by move through the REST API (embedded: SQLite and the
in-process queue): the server derives every auto action itself (the record's are not sent), exactly as
`railpost replay --live` does, and the final state equals the golden trace's last line.

1828Games_game_end_bankrupt: 778 actions, 117 of them with auto actions (orders firing, handed back for a
sale, a start, an unsecure president, a merger's choice), undos across orders. Needs the rules engine.
"""

from __future__ import annotations

import gzip
import json
import sys
import uuid
from pathlib import Path
from typing import Any

from services.config import Config
from services.gateway import create_app
from services.play.apply import READ_MODEL_EXTRAS

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.live_autos import normalise  # noqa: E402  (the checker's comparison of auto actions)

FIXTURE = (Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "1828"
           / "1828Games_game_end_bankrupt.json")


def _golden_last() -> dict[str, Any]:
    with gzip.open(FIXTURE.with_name(FIXTURE.name.replace(".json", ".trace.jsonl.gz")), "rt") as handle:
        last = ""
        for line in handle:
            last = line
    return json.loads(last)


def test_a_game_with_standing_orders_played_over_rest_equals_the_golden_trace(tmp_path: Path) -> None:
    from shared.eventstore import migrate

    url = f"sqlite:///{tmp_path / 'orders.sqlite3'}"
    migrate(url)
    config = Config(database_url=url, redis_url=None, admin_token="adm", snapshot_every=50,
                    sweep_interval_seconds=0.5)
    client = create_app(config).test_client()
    admin = {"Authorization": "Bearer adm"}
    record = json.loads(FIXTURE.read_text())
    made = client.post("/games", json={"undo": "free", "title": record["title"], "seats": len(record["players"]),
                                       "seed": record["settings"]["seed"],
                                       "options": record["settings"].get("optional_rules") or []})
    assert made.status_code == 201, made.json
    game_id = made.json["id"]
    tokens = {}
    for seat, player in enumerate(record["players"]):
        joined = client.post(f"/games/{game_id}/join", headers=admin,
                             json={"name": player["name"], "seat": seat, "player_id": player["id"]})
        assert joined.status_code == 201, joined.json
        tokens[player["id"]] = joined.json["token"]
    assert client.post(f"/games/{game_id}/start", headers=admin).status_code == 200

    server_id: dict[int, int] = {}  # recorded action id -> the id the server gave it (undo names ids)
    for version, action in enumerate(record["actions"]):
        sent = {k: v for k, v in action.items() if k not in ("id", "auto_actions", "created_at", "user")}
        if action["type"] == "undo" and action.get("action_id"):
            sent["action_id"] = server_id[action["action_id"]]
        reply = client.post(f"/games/{game_id}/actions?wait=10", json={"action": sent, "expected_version": version},
                            headers={**admin, "Idempotency-Key": uuid.uuid4().hex})
        assert reply.status_code == 200, f"action {action['id']}: {reply.status_code} {reply.json}"
        server_id[action["id"]] = version + 1

    state = client.get(f"/games/{game_id}/state").json
    golden = _golden_last()
    digest = {k: v for k, v in state["digest"].items() if k not in ("action_id", *READ_MODEL_EXTRAS)}
    assert digest == {k: v for k, v in golden.items() if k != "action_id"}
    assert state["result"] == record["result"]
    exported = client.get(f"/games/{game_id}/export").json["actions"]
    assert [normalise(a.get("auto_actions")) for a in exported] == \
        [normalise(a.get("auto_actions")) for a in record["actions"]]

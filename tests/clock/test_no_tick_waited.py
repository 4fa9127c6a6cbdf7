"""Nothing waits for the table's tick (docs/time-controls.md): the clock follows a move in the request that
settles it (whose turn, since when), and an accepted undo is played in the request that accepted it; the tick
stays the safety net for deadlines."""

from __future__ import annotations

import time
import uuid
from typing import Any

from .conftest import bearer, wait_version


def test_the_clock_names_the_next_player_as_soon_as_a_move_settles(table: Any) -> None:
    client, game_id, seats, vc, scheduler, app = table
    by = {pid: bearer(tok) for tok, pid in seats.values()}
    ann = bearer(seats["Ann"][0])
    assert client.put(f"/games/{game_id}/clock", json={"kind": "deadline", "per_move_hours": 24},
                      headers=ann).status_code == 200
    assert client.post(f"/games/{game_id}/start", headers=ann).status_code == 200
    scheduler.run_once()  # the first turn
    for _ in range(4):  # no tick from here on: each move is followed by the clock at once
        state = client.get(f"/games/{game_id}/state").json
        mover = int(state["acting_players"][0])
        action = client.get(f"/games/{game_id}/legal-actions", headers=by[mover]).json["actions"][0]
        reply = client.post(f"/games/{game_id}/actions?wait=10", headers={**by[mover], "Idempotency-Key":
                                                                           uuid.uuid4().hex},
                            json={"action": action, "expected_version": state["version"]})
        assert reply.json["status"] == "applied", reply.json
        wait_version(client, game_id, state["version"] + 1)
        now = client.get(f"/games/{game_id}/state").json
        for _ in range(100):  # the embedded worker follows the clock right after its commit
            if client.get(f"/games/{game_id}/clock").json["to_move"] == int(now["acting_players"][0]):
                break
            time.sleep(0.02)
        assert client.get(f"/games/{game_id}/clock").json["to_move"] == int(now["acting_players"][0])

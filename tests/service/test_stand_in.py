"""A stand-in's move on PostgreSQL through the real gateway and Celery worker: the seat check, made where the
command is settled, reads the table's `substitute` decision from the table log inside the game's own
(pipelined) transaction. Before the decision the move is the absent seat's (403, nothing stored); after it
the chosen seat moves in the absent seat's name and the record names who moved."""

from __future__ import annotations

from datetime import UTC, datetime

from services.notifier.db import make_engine
from services.play.table_log import TableLog

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess
from .helpers import Api, as_submitted, load_record


def test_the_chosen_seat_moves_for_the_absent_one(gateway: LiveServer, worker: WorkerProcess,
                                                   pg_url: str) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    action = as_submitted(record["actions"][0])
    absent = api.actor(game_id, action)
    other = next(p for p in tokens if p != absent)

    refused = api.act(game_id, tokens[other], action, 0)
    assert refused.status_code == 403 and refused.json()["error"] == "not_your_entity", refused.text
    assert api.call("GET", f"/games/{game_id}/state").json()["version"] == 0

    log = TableLog(make_engine(pg_url, pool_size=1))
    try:
        at = datetime(2026, 3, 2, 9, tzinfo=UTC).isoformat()
        log.append(game_id, len(log.read(game_id)), [
            {"type": "configured", "at": at, "control": {"kind": "deadline", "per_move_hours": 24}},
            {"type": "vote_decided", "at": at, "choice": "substitute", "absent": absent, "substitute": other},
        ])
    finally:
        log.engine.dispose()
    moved = api.act(game_id, tokens[other], action, 0)
    assert moved.status_code == 200 and moved.json()["new_version"] == 1, moved.text
    event = api.call("GET", f"/games/{game_id}/events").json()["events"][-1]["data"]
    assert event["action"]["user"] == other and event["action"]["entity"] == action["entity"]
    assert event["player_id"] is None  # sent on the absent seat's behalf: his move for the undo rule

    # the stand-in acts only for the absent seat: the next move is someone else's turn or his own
    follow = as_submitted(record["actions"][1])
    if api.actor(game_id, follow) not in (other, absent):
        assert api.act(game_id, tokens[other], follow, 1).status_code == 403

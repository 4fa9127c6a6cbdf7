"""The length benches' 5,000 point is the record's last stretch after a longer history, nothing else: the
chat lines `chatty` adds change the log's length, not the game."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from shared.engine import GameSession

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.bench_length import GAME, WINDOW, chatty, plan_points  # noqa: E402


def test_the_chatty_point_replays_the_same_moves_on_the_same_position() -> None:
    record = json.loads(GAME.read_text())
    points = plan_points(record)
    (_, plain, last), (label, talked, start) = points[-2], points[-1]
    assert plain is record and label.startswith("5000") and start == 5000
    assert [{k: v for k, v in a.items() if k != "id"} for a in talked["actions"][start:start + WINDOW]] == \
        [{k: v for k, v in a.items() if k != "id"} for a in record["actions"][last:last + WINDOW]]
    assert sum(a["type"] == "message" for a in talked["actions"]) == start - last
    before = GameSession.from_record(record, limit=last)
    after = GameSession.from_record(talked, limit=start)
    assert after.version == before.version + (start - last)
    assert after.game.digest({}) == before.game.digest({})


def test_undo_targets_follow_the_renumbering() -> None:
    record = {"players": [{"id": 1}, {"id": 2}], "actions": [
        {"id": 1, "type": "pass", "entity": 1}, {"id": 2, "type": "pass", "entity": 2},
        {"id": 3, "type": "undo", "entity": 1, "action_id": 1}]}
    talked = chatty(record, 3)
    assert [a["type"] for a in talked["actions"]] == ["pass", "message", "message", "pass", "message", "undo"]
    assert [a["id"] for a in talked["actions"]] == [1, 2, 3, 4, 5, 6]
    assert talked["actions"][-1]["action_id"] == 1
    talked = chatty({**record, "actions": [record["actions"][0], record["actions"][1],
                                           {**record["actions"][2], "action_id": 2}]}, 2)
    assert talked["actions"][-1]["action_id"] == 4  # the second pass moved behind the first one's two lines

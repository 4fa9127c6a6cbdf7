"""`GameSession.turn_fields` is the digest's say on whose turn it is, without the digest: the rules worker
compares it before and after each move to decide whether to tell a player it is his turn, instead of reading
the stored read model back (services/play/apply.py). Were the two to part, a turn alert would be sent or
missed wrongly; so they are compared after every action of one record per title."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.engine import GameSession
from shared.engine.session import final_active_flags

CONFORMANCE = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"
RECORDS = ["1825/1825_game_end_bank.json", "1828/1828Games_game_end_bankrupt.json",
           "1840/218809.json"]


@pytest.mark.parametrize("name", RECORDS)
def test_turn_fields_agree_with_the_digest_after_every_action(name: str) -> None:
    record = json.loads((CONFORMANCE / name).read_text())
    settings = record["settings"]
    session = GameSession.new(record["title"], record["players"], settings["seed"],
                              settings.get("optional_rules") or [], record.get("id", 0))
    survives = final_active_flags(record["actions"])
    changes = 0
    last = session.turn_fields()
    for i, action in enumerate(record["actions"]):
        session.submit(action, trusted=not survives[i], keep_id=True, recorded=True)
        fields = session.turn_fields()
        digest = session.digest()
        assert fields == {key: digest[key] for key in fields}, (name, i)
        changes += fields != last
        last = fields
    assert changes > len(record["actions"]) // 10  # the fields move as the game does

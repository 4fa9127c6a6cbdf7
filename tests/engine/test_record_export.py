"""The export is a faithful 18xx.games record (issue 21): every action in the shape the reference reads.

- bids (and any other offer) carry only the chosen value: the `min`, `step`, `max`, `multiple_of` hints the
  API's legal-actions adds are not part of the move, even when a client posts the offer back as it got it;
- undo, redo and chat name the acting player as `entity` with `entity_type` (the reference reads them from
  every action), and keep `user` for who clicked;
- city ids are the reference's: `<tile>-<copy>-<city index>` (a preprinted tile is named by its hex);
- the title is written as records name it (`1828.Games` for a game created as `1828`);
- the export replays to the same state, in replay and in live mode.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from shared.engine import GameSession
from shared.engine.ranges import annotate_bids
from shared.engine.records import RANGE_HINTS, record_action

sys.path.insert(0, str(Path(__file__).resolve().parent))
import randomplay  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"
CITY = re.compile(r"^[A-Za-z0-9&]+-\d+-\d+$")


def reference_keys() -> dict[str, set[str]]:
    """Every key each action type has in the public records (the reference's own exports)."""
    keys: dict[str, set[str]] = {}
    for path in FIXTURES.rglob("*.json"):
        if path.name.endswith(".setup.json"):
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        for action in record.get("actions") or []:
            for one in [action, *(action.get("auto_actions") or [])]:
                keys.setdefault(one["type"], set()).update(one)
    return keys


def three_players() -> list[dict[str, Any]]:
    return [{"id": 11, "name": "Ann"}, {"id": 12, "name": "Bob"}, {"id": 13, "name": "Cy"}]


def test_bids_posted_with_their_range_are_exported_with_the_price_only() -> None:
    session = GameSession.new("1828", three_players(), 7)
    offers = annotate_bids(session.game, session.legal_actions())
    bid = next(o for o in offers if o["type"] == "bid")
    assert {"min", "step", "max"} <= set(bid)  # as GET legal-actions states it
    session.submit(bid)
    exported = session.to_record()["actions"][0]
    assert exported == {"type": "bid", "entity": bid["entity"], "entity_type": "player",
                        "company": bid["company"], "price": bid["price"], "id": 1}
    assert not RANGE_HINTS & set(session.actions[0])  # not stored either


def test_undo_redo_and_chat_name_the_acting_player() -> None:
    session = GameSession.new("1828", three_players(), 7)
    first = session.acting_players()[0]
    session.submit(next(a for a in session.legal_actions() if a["type"] == "bid"))
    waiting = session.acting_players()[0]
    session.submit({"type": "message", "message": "gg", "user": 13})
    session.submit({"type": "undo"})
    session.submit({"type": "redo", "user": 13})
    message, undo, redo = session.to_record()["actions"][1:]
    assert (message["entity"], message["entity_type"], message["user"]) == (waiting, "player", 13)
    assert (undo["entity"], undo["entity_type"]) == (waiting, "player")  # the table waited for its player
    assert (redo["entity"], redo["entity_type"], redo["user"]) == (first, "player", 13)


def test_an_action_stored_without_an_entity_is_exported_with_its_sender() -> None:
    players = three_players()
    assert record_action({"type": "undo", "id": 4, "user": 12}, players) == \
        {"type": "undo", "id": 4, "user": 12, "entity": 12, "entity_type": "player"}
    assert record_action({"type": "message", "id": 5, "message": "hi"}, players)["entity"] == 11
    auto = {"type": "bid", "entity": 11, "entity_type": "player", "price": 30, "min": 25, "step": 5}
    assert record_action({"type": "pass", "auto_actions": [auto]}, players)["auto_actions"][0] == \
        {"type": "bid", "entity": 11, "entity_type": "player", "price": 30}


def test_the_title_is_exported_as_records_name_it() -> None:
    assert GameSession.new("1828", three_players(), 7).to_record()["title"] == "1828.Games"
    assert GameSession.new("1840", three_players(), 7).to_record()["title"] == "1840"


def test_a_played_game_exports_in_the_reference_shape_and_replays_to_the_same_state(tmp_path: Path,
                                                                                    monkeypatch: Any) -> None:
    """A random 1825 game (tokens in preprinted and laid cities), exported: every action's keys are keys the
    reference's own records use for that type, city ids are the reference's, and the record replays to the
    same final digest in replay and live mode."""
    monkeypatch.setenv("SOAK_EXPORT_DIR", str(tmp_path))
    randomplay.play("1825", ["unit_1"], 3, 1001, max_actions=400)
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text(encoding="utf-8"))
    known = reference_keys()
    cities = []
    for action in record["actions"]:
        for one in [action, *(action.get("auto_actions") or [])]:
            assert set(one) <= known[one["type"]] | {"id"}, (one, known[one["type"]])
            if "city" in one:
                cities.append(one["city"])
    assert cities and all(CITY.match(c) for c in cities), cities
    played = GameSession.from_record(record)
    assert played.to_record()["actions"] == record["actions"]
    live = GameSession.from_record(record, live=True)
    assert live.digest() == played.digest()


def test_a_live_replay_posts_every_action_as_the_api_does() -> None:
    """`from_record(live=True)` submits what a client posts (`as_posted`): the session numbers the actions
    (1, 2, ...), an undo names its target by that number, auto actions are derived; the game ends where the
    record does and its export replays to the same state."""
    record = json.loads((FIXTURES / "1840" / "2player.json").read_text(encoding="utf-8"))
    record["actions"] = record["actions"][:140]  # two undos naming a target (index 74 and 266 of the whole)
    for index, action in enumerate(record["actions"]):
        action["id"] = 1000 + 3 * index  # recorded ids with gaps: the API's numbering differs
        if action.get("type") == "undo" and action.get("action_id"):
            action["action_id"] = 1000 + 3 * (action["action_id"] - 1)
    live = GameSession.from_record(record, live=True)
    assert [a["id"] for a in live.actions] == list(range(1, 141))
    replayed = GameSession.from_record(record)
    assert live.digest() == replayed.digest()
    assert GameSession.from_record(live.to_record()).digest() == live.digest()

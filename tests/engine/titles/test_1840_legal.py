"""`legal_actions` for 1840, walked along the recorded 2-player game: at every surviving action each
offered action is accepted by a copy of the game (tile lays: a rotating seventh per state, plus the
recorded one), and the recorded action is among the offered ones whenever its type has finitely many
options."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path
from typing import Any

from shared.engine import GameSession
from shared.engine.board.tiles import parse_tile_id
from shared.engine.errors import EngineError
from shared.engine.legal import legal_actions
from shared.engine.session import final_active_flags

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_conformance import load  # noqa: E402

# types whose every option is enumerated (bids, private prices and routes are ranges or searches)
FINITE = {"choose", "merge", "dividend", "buy_train", "scrap_train", "reassign_trains", "lay_tile",
          "place_token", "remove_token", "pass", "par", "buy_shares", "sell_shares"}
IGNORED = {"id", "created_at", "entity_type", "user", "auto_actions", "tokener", "extra_revenue", "subsidy"}


def shape(action: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in action.items() if k not in IGNORED}
    if out.get("type") == "lay_tile":
        out["tile"] = parse_tile_id(out["tile"])[0]  # any free copy of the tile will do
    if out.get("type") == "reassign_trains":
        out["assignments"] = sorted((a["train"], a["corporation"]) for a in out["assignments"])
    return out


def clone(game: Any) -> Any:
    return pickle.loads(pickle.dumps(game, pickle.HIGHEST_PROTOCOL))


def test_offered_actions_are_accepted_and_include_the_recorded_ones() -> None:
    record, _, _ = load("1840/2player")
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"]["optional_rules"], record["id"])
    flags = final_active_flags(record["actions"])
    checked = 0
    for i, action in enumerate(record["actions"]):
        if flags[i] and action["type"] not in ("undo", "redo", "message", "program_share_pass",
                                               "program_disable", "choose_ability"):
            game = session.state
            offered = legal_actions(game, action["entity"])
            for n, option in enumerate(offered):
                # tile lays come in the hundreds: each state tries a rotating seventh of them
                if option["type"] == "lay_tile" and (n - i) % 7 and shape(option) != shape(action):
                    continue
                try:
                    clone(game).process(option)
                except EngineError as err:
                    raise AssertionError(f"index {i}: offered {option} is refused: {err}") from err
            if action["type"] in FINITE:
                shapes = [shape(o) for o in offered]
                assert shape(action) in shapes, f"index {i}: recorded {shape(action)} not offered"
            checked += 1
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
    assert session.finished and checked > 300

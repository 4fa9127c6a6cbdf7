"""The shortcuts that answer "does a run start here?" and "is there a city to station?" without a new reach
walk (`graph.nodes_beside_stations`) may only ever find what the whole reach finds: checked at many
positions of recorded games of every title, for every corporation with a station."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.engine import GameSession
from shared.engine.board.graph import compute_reach, nodes_beside_stations
from shared.engine.session import final_active_flags

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORDS = [
    "conformance/1825/1825_game_end_stock_market.json",
    "conformance/generated/1825/gen1825_unit_123_5p_514468.json",
    "conformance/1828/1828Games_game_end_bankrupt.json",
    "conformance/1840/2player.json",
    "1833NE/takeover_4p_seed3.json",
]
EVERY = 7  # positions checked: every 7th action


def positions(name: str):
    record = json.loads((FIXTURES / name).read_text())
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"].get("optional_rules") or [], record["id"])
    flags = final_active_flags(record["actions"])
    for i, action in enumerate(record["actions"]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
        if i % EVERY == 0:
            yield session.game
        if session.game.finished:
            return


@pytest.mark.parametrize("name", RECORDS)
def test_what_lies_beside_a_station_is_in_the_reach(name: str) -> None:
    checked = found = 0
    for game in positions(name):
        board = game.board
        for sym in game.corporations:
            if not board.station_cities(sym):
                continue
            near = set(nodes_beside_stations(board, sym))
            reach = compute_reach(board, sym)
            assert near <= reach.nodes, (name, sym, near - reach.nodes)
            if board.reach_known(sym):
                # the kept reach is the one a new walk finds (the shortcut reads it when it is kept)
                assert board.reach(sym).nodes == reach.nodes
            assert (board.runs_from_station(sym) in (None, bool(reach.nodes - reach.token_nodes))), (name, sym)
            checked += 1
            found += bool(near)
    assert checked > 20 and found > 0, (checked, found)  # the check saw stations, and the shortcut found stops

"""1825 rules of play found in the held-back games (issue 22): one scenario per rule of docs/rules-1825.md.

Positions come from the generated games (`position(name, i)`: the game right before action i).
"""

from __future__ import annotations

from typing import Any

import pytest
from positions_1825 import position

from shared.engine import IllegalAction
from shared.engine.board.upgrades import rotation_problem
from shared.engine.errors import EngineError

# -- ending the game by agreement ------------------------------------------------------------------------
U1_2P = "gen1825_unit_1_2p_248716"


@pytest.mark.parametrize(("index", "who"), [(40, 1001), (40, 1002), (300, 1001), (300, "GER")])
def test_anyone_may_end_the_game_at_any_moment(index: int, who: Any) -> None:
    game = position(U1_2P, index)
    before = {p.id: p.cash for p in game.players}
    kind = "player" if isinstance(who, int) else "corporation"
    game.process({"type": "end_game", "entity": who, "entity_type": kind})
    assert game.finished and game.game_end_reason == "manually_ended"
    assert game.acting() == [] and game.legal_actions() == []
    assert {p.id: p.cash for p in game.players} == before
    assert set(game.result()) == {"1001", "1002"}


def test_a_player_not_acting_ends_the_game_in_a_stock_round() -> None:
    game = position(U1_2P, 300)
    assert game.round.kind == "Stock" and game.acting() == [1002]
    game.process({"type": "end_game", "entity": 1001, "entity_type": "player"})
    assert game.finished and game.game_end_reason == "manually_ended"


def test_a_stranger_or_a_private_cannot_end_the_game() -> None:
    game = position(U1_2P, 40)
    with pytest.raises(EngineError):
        game.process({"type": "end_game", "entity": 4711, "entity_type": "player"})
    company = next(iter(game.companies))
    with pytest.raises(IllegalAction):
        game.process({"type": "end_game", "entity": company, "entity_type": "company"})
    assert not game.finished
    game.process({"type": "end_game", "entity": 1001, "entity_type": "player"})
    with pytest.raises(IllegalAction):
        game.process({"type": "end_game", "entity": 1002, "entity_type": "player"})


# -- how records number a tile's cities ------------------------------------------------------------------
K5 = "gen1825_unit_2_k5_3p_665169"  # GNR lays tile 119 on N18 at index 941
U3 = "gen1825_unit_3_2p_734947"


def test_a_city_is_numbered_by_its_place_among_the_tiles_parts() -> None:
    game = position(K5, 942)
    board = game.board
    assert board.hex("N18").tile.name == "119"
    # 119 is "stripes=color:brown;city=...": its one city is part 1 of the tile
    assert board.city_id("N18", 0) == "119-0-1"
    assert board.city_hex("119-0-1") == "N18"
    with pytest.raises(EngineError):
        board.city_hex("119-0-0")


def test_the_cities_of_a_preprinted_hex_count_its_paths_too() -> None:
    board = position(U3, 1).board
    # G5 is "city;path;city;path;city;path": cities 0, 1, 2 are parts 0, 2 and 4
    assert [board.city_id("G5", i) for i in range(3)] == ["G5-0-0", "G5-0-2", "G5-0-4"]
    assert [board.locate_city(f"G5-0-{p}")[1] for p in (0, 2, 4)] == [0, 1, 2]
    with pytest.raises(EngineError):
        board.city_hex("G5-0-1")


def test_a_station_on_tile_119_is_offered_and_accepted_under_the_records_number() -> None:
    game = position(K5, 942)
    board = game.board
    corp = "GNR"
    h = board.hex("N18")
    h.tokens[0] = [None] * len(h.tokens[0])
    options = [c for c, _ in board.reachable_token_cities(corp)]
    assert "119-0-1" in options and "119-0-0" not in options
    board.check_token(corp, "119-0-1", 0)
    board.place_token(corp, "119-0-1", 0)
    assert h.tokens[0][0] == corp


# -- extra upgrades: a yellow city 115 becomes two towns ---------------------------------------------------
def test_tile_115_may_become_tile_2_keeping_its_track_through_a_town() -> None:
    game = position(U3, 1)
    board = game.board
    colors = {"yellow", "green"}
    assert board.hex("J6").tile.preprinted and not board.hex("J6").tile.paths
    board.lay("J6", "115-0", 4)
    # 115's extra upgrade is given as the text "206": tiles 2, 6, 20 and 206 (tile 2 is yellow too)
    assert {"2", "6", "20", "206"} <= board.upgrade_targets(board.hex("J6"))
    result = board.check_lay("M&C", "J6", "2-0", 1, colors, must_connect=False)
    assert result is not None
    board.lay("J6", "2-0", 1)
    assert [n.kind for n in board.hex("J6").tile.nodes] == ["town", "town"]


def test_an_extra_upgrade_still_keeps_the_old_edges() -> None:
    board = position(U3, 1).board
    old, new = board.catalogue["115"], board.catalogue["2"]
    everywhere = {e: "X" for e in range(6)}
    # 115 in rotation 4 has track on edge 4; tile 2 in rotation 1 runs a town through edges 1-4, in
    # rotation 0 through 0-3 and 1-2 only: the old track would be lost
    assert rotation_problem(old, 4, new, 1, everywhere, any_stop=True) is None
    assert rotation_problem(old, 4, new, 0, everywhere, any_stop=True) == "the new tile does not keep all existing track"
    # without the extra upgrade a city is never replaced by a town
    assert rotation_problem(old, 4, new, 1, everywhere) == "the new tile does not keep all existing track"


def test_a_city_never_becomes_a_town_by_an_ordinary_upgrade() -> None:
    board = position(U3, 1).board
    assert not board.extra_upgrade("57", "3")
    assert board.extra_upgrade("115", "2") and board.extra_upgrade("3", "119")

"""1840 tile lays of a line (docs/rules-1840.md, *Tile lays*), each on a position of a recorded game."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shared.engine.errors import IllegalAction

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_1840_tram_turn import session_at  # noqa: E402


def lay(game, entity: str, hex_id: str, tile: str, rotation: int) -> None:  # type: ignore[no-untyped-def]
    game.process({"type": "lay_tile", "entity": entity, "hex": hex_id, "tile": tile, "rotation": rotation})


def test_a_stadtbahn_tile_must_continue_its_stadtbahns_track() -> None:
    # line 6 laid its ordinary tile; none of W, G or D reaches D12, D22 or I15 yet, but W's station at I11
    # (2-player map) reaches I13 across its required exit
    game = session_at("gen1840_2p_382918", 49).game
    for hex_id, tile, rotation in (("D12", "L3-0", 3), ("D22", "L4-0", 5), ("I15", "L3-0", 1)):
        with pytest.raises(IllegalAction) as err:
            lay(game, "6", hex_id, tile, rotation)
        assert err.value.rule == "stadtbahn_track"
    major = game.rules.owner_major(game, game.corporations["6"])
    cash = major.cash
    lay(game, "6", "I13", "L2-0", 4)
    assert major.cash == cash - 20  # the orange frame's cost, paid by the major
    assert game.round.pending == ["yellow"]  # I13's icon: an extra yellow lay


def test_an_orange_hex_upgrade_may_be_followed_by_a_stadtbahn_tile_but_not_by_a_second_one() -> None:
    game = session_at("gen1840_4p_344173", 394).game  # line 11 has upgraded B10 (framed green L12)
    line = game.round
    assert line.normal_laid and not line.stadtbahn_laid and line.lays == 1
    with pytest.raises(IllegalAction) as err:  # another orange-hex upgrade: one per turn
        lay(game, "11", "E23", "L12-1", 0)
    assert err.value.rule == "tile_lays"
    lay(game, "11", "C13", "L2-6", 3)  # the yellow Stadtbahn tile is still allowed
    assert line.stadtbahn_laid and line.lays == 2 and line.pending == ["purple"]


def test_a_stadtbahn_tile_leaves_the_turns_one_tile_for_an_orange_hex_upgrade() -> None:
    """rules-1840 *Tile lays*: the orange-hex upgrade is the turn's one tile, so it may follow the Stadtbahn
    tile; after it, no ordinary lay is left (the record's own next move, E17, is then refused)."""
    game = session_at("gen1840_small_3p_986400", 223).game  # line 7 laid the Stadtbahn tile L1 on E13
    line = game.round
    assert line.stadtbahn_laid and not line.normal_laid and line.lays == 1 and line.pending == []
    major = game.rules.owner_major(game, game.corporations["7"])
    cash = major.cash
    assert {"type": "lay_tile", "hex": "G21", "tile": "L6-0", "rotation": 1, "entity": "7",
            "entity_type": "corporation"} in game.legal_actions(kinds={"lay_tile"})
    lay(game, "7", "G21", "L6-0", 1)  # green framed L6 over the yellow framed L2
    assert game.board.hex("G21").tile.name == "L6" and major.cash == cash  # the frame's 20 was paid once
    assert line.normal_laid and line.lays == 2 and game.legal_actions(kinds={"lay_tile"}) == []
    with pytest.raises(IllegalAction) as err:
        lay(game, "7", "E17", "8864-0", 0)
    assert err.value.rule == "tile_lays"


def test_the_extra_lay_pays_the_hex_cost_and_may_go_anywhere_connected() -> None:
    # line 17's Stadtbahn tile on B10 granted an extra yellow lay; water on B28 costs 40
    game = session_at("gen1840_4p_635682", 131).game
    assert game.round.pending == ["yellow"]
    cash = game.corporations["SJE"].cash
    lay(game, "17", "B28", "4-0", 3)
    assert game.corporations["SJE"].cash == cash - 40 and game.round.pending == []


def test_a_station_on_a_trackless_city_follows_its_city_to_the_first_free_city_of_the_upgrade() -> None:
    """Upgrading 235 (one city with track, one without) to 8859: the city with track keeps its track, the
    trackless city (line 3's station) becomes the new tile's other city."""
    game = session_at("gen1840_3p_289409", 137).game
    h = game.board.hex("E17")
    assert h.tile.name == "235" and h.tokens == [[None], ["3"]]
    lay(game, "3", "E17", "8859-0", 4)
    assert h.tokens == [["3"], [None]]
    assert "E15" in game.board.reach("3").edges  # through the station's new city


def test_an_orange_hex_upgrade_is_the_turns_one_tile() -> None:
    # line 7 laid its ordinary tile (F22); upgrading orange-framed E23 would be a second tile
    game = session_at("gen1840_4p_344173", 450).game
    assert game.round.current_entity(game) == "7" and game.round.normal_laid
    for rotation in (3, 0):
        with pytest.raises(IllegalAction) as err:
            lay(game, "7", "E23", "L12-1", rotation)
        assert err.value.rule == "tile_lays"


def test_a_second_ordinary_lay_is_refused_live_but_replayed_when_a_record_takes_it_back() -> None:
    """rules-1840 *Tile lays*: one ordinary tile a turn. A recorded lay that the record's own undo takes
    back is applied as 18xx.games applied it (docs/conflicts-1840.md), not re-judged."""
    game = session_at("gen1840_4p_344173", 450).game
    assert game.round.normal_laid and game.round.lays == 1
    move = {"type": "lay_tile", "entity": "7", "hex": "E23", "tile": "L12-1", "rotation": 3}
    with pytest.raises(IllegalAction) as err:
        game.process(dict(move))
    assert err.value.rule == "tile_lays"
    game.process(dict(move), trusted=True)
    assert game.board.hex("E23").tile.name == "L12" and game.round.lays == 2

"""1825 board rules the reverse check showed missing (docs/rules-1825.md): track is reached only along a
line a train could run, an upgrade must add track the corporation can use, an upgrade keeps every station
(and every home reserved for a station to come).

Each scenario starts from a real position of one of Railpost's own random games (`position(name, i)`: the
game after the first i actions of the record; the next one is the move the reference refused).
"""

from __future__ import annotations

import pytest
from positions_1825 import position

from shared.engine import IllegalAction
from shared.engine.game import Game


def lays_on(game: Game, entity: str, hex_id: str) -> list[dict]:
    return [a for a in game.legal_actions(entity) if a["type"] == "lay_tile" and a.get("hex") == hex_id]


def path_index(game: Game, hex_id: str, a: int, b: int) -> int:
    h = game.board.hex(hex_id)
    return next(i for i, p in enumerate(h.tile.rpaths[h.rotation]) if {p.a, p.b} == {a, b})


# -- track is reached only along a line a train could run --------------------------------------------------
# Unit 2, 2 players: L&Y (stations N10, N14, O11) reaches N16 (tile 47) from M15; N16's track to M17 (side 3)
# starts at sides 0 (London, O15) and 5; L&Y could get onto it only by running out to London across side 0
# and back into N16 across the same side.
LOOP_BACK = ("rp_1825_2p_4_unit_2", 443)


def test_track_behind_a_loop_back_into_the_same_hex_is_not_reached() -> None:
    game = position(*LOOP_BACK)
    reach = game.board.reach("L&Y")
    assert ("N16", path_index(game, "N16", 0, 2)) in reach.paths  # out to London: a line a train can run
    assert ("N16", path_index(game, "N16", 0, 3)) not in reach.paths  # back in across side 0, on to M17
    assert not reach.edges.get("M19") and ("L18", 10) not in reach.nodes  # nothing behind it either
    assert lays_on(game, "L&Y", "M19") == []
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "lay_tile", "entity": "L&Y", "hex": "M19", "tile": "28-0", "rotation": 2})
    assert caught.value.rule == "not_connected"
    assert game.board.hex("M19").tile.name == "7"


def test_a_hex_entered_and_left_across_one_side_on_different_track_is_still_reached() -> None:
    """London (O15) is entered from N16 across N16's side 0 and its second city left towards O17: the
    track out is reached (a train runs N16 - London - O17)."""
    game = position(*LOOP_BACK)
    reach = game.board.reach("L&Y")
    assert ("O17", path_index(game, "O17", 5, 1)) in reach.paths


# -- an upgrade must add track the corporation can use -----------------------------------------------------
# Unit 3, 2 players: GNoS (station B12) has tile 23 on C11 joining B12 (side 3) to D10 (0) and C9 (1).
NEW_TRACK = ("rp_1825_2p_7_unit_3", 405)


def test_new_track_usable_only_by_looping_back_into_its_hex_does_not_count() -> None:
    """41 in rotation 0 adds one piece, D10 - C9: GNoS could use it only by leaving C11 to one of them and
    coming back in from the other, so the upgrade adds no usable track: refused, C11 and GNoS unchanged."""
    game = position(*NEW_TRACK)
    cash = game.corporations["GNoS"].cash
    assert game.board.hex("C11").tile.name == "23"
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "lay_tile", "entity": "GNoS", "hex": "C11", "tile": "41-0", "rotation": 0})
    assert caught.value.rule == "track_restriction"
    assert game.board.hex("C11").tile.name == "23" and game.corporations["GNoS"].cash == cash
    assert not [a for a in lays_on(game, "GNoS", "C11") if a["tile"].startswith("41-") and a["rotation"] == 0]


# -- an upgrade keeps every station ---------------------------------------------------------------------------
# Unit 3 + DB1, 2 players: CR has a station on H6's yellow city 115; 115's extra upgrade "206" names tiles
# 2 (two towns), 6 (a city), 20 (plain track) and 206.
STATION = ("rp_1825_2p_9434425_unit_3_db1", 169)


def test_a_city_holding_a_station_cannot_become_a_tile_without_a_city() -> None:
    game = position(*STATION)
    assert game.board.hex("H6").tokens == [["CR"]]
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "lay_tile", "entity": "CR", "hex": "H6", "tile": "2-0", "rotation": 1})
    assert caught.value.rule == "station_lost"
    assert game.board.hex("H6").tile.name == "115" and game.board.hex("H6").tokens == [["CR"]]
    offered = lays_on(game, "CR", "H6")
    assert offered and all(a["tile"].split("-")[0] not in ("2", "20") for a in offered)


def test_the_station_moves_to_the_city_of_the_new_tile() -> None:
    game = position(*STATION)
    lay = next(a for a in lays_on(game, "CR", "H6") if a["tile"].startswith("6-"))
    game.process({k: v for k, v in lay.items() if k != "entity_type"})
    assert game.board.hex("H6").tile.name == "6" and game.board.hex("H6").tokens[0].count("CR") == 1
    assert "H6" in game.board.token_hexes("CR")


# Units 1+2+3 + R1-R3, 6 players: GNR has a 115 on Darlington (L14), NER's home, with NER's reservation;
# NER has not floated.
RESERVED = ("rp_1825_6p_1088533_unit_123_r1_r2_r3", 880)


def test_a_reserved_home_city_cannot_become_a_tile_without_a_city() -> None:
    game = position(*RESERVED)
    h = game.board.hex("L14")
    assert h.tile.name == "115" and h.reservations == [["NER"]] and not game.corporations["NER"].floated
    cash = game.corporations["GNR"].cash
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "lay_tile", "entity": "GNR", "hex": "L14", "tile": "2-0", "rotation": 1})
    assert caught.value.rule == "home_lost" and "NER" in str(caught.value)
    assert game.board.hex("L14").tile.name == "115" and game.corporations["GNR"].cash == cash
    offered = {a["tile"].split("-")[0] for a in lays_on(game, "GNR", "L14")}
    assert offered and not offered & {"2", "20"}


def test_the_reservation_moves_to_the_city_of_the_new_tile() -> None:
    game = position(*RESERVED)
    lay = next(a for a in lays_on(game, "GNR", "L14") if a["tile"].startswith("6-"))
    game.process({k: v for k, v in lay.items() if k != "entity_type"})
    assert game.board.hex("L14").tile.name == "6" and game.board.hex("L14").reservations == [["NER"]]


# -- a sepia hex with a tile is entered along its track ------------------------------------------------------
# Unit 1 + D1, 3 players (oracle-bot game, first 791 actions): Swindon (V14) is sepia, its printed track leads
# to every side but 0, the side facing W13; at 732 LSWR upgrades it to tile 200 (rotation 4), whose track
# leads to side 0 as well; at 790 GWR lays a 7 on W13 leading into Swindon (W13's side 3).
SEPIA = "camp1825_unit_1_d1_3p_3331454_791"


def test_a_tile_on_a_sepia_hex_opens_the_sides_its_track_leads_to() -> None:
    game = position(SEPIA, 732)
    assert 3 not in game.board.hex("W13").neighbors  # no track may lead into Swindon from W13 yet
    game.process({"type": "lay_tile", "entity": "LSWR", "hex": "V14", "tile": "200-0", "rotation": 4})
    assert game.board.hex("W13").neighbors[3] == "V14" and game.board.hex("V14").neighbors[0] == "W13"


def test_track_may_lead_into_a_sepia_hex_once_its_tile_leads_back() -> None:
    game = position(SEPIA, 790)  # the 200 on Swindon laid, taken back by undos and kept through them
    assert game.board.hex("V14").tile.name == "200"
    cash = game.corporations["GWR"].cash
    game.process({"type": "lay_tile", "entity": "GWR", "hex": "W13", "tile": "7-1", "rotation": 3})
    h = game.board.hex("W13")
    assert (h.tile.name, h.rotation) == ("7", 3) and game.corporations["GWR"].cash == cash

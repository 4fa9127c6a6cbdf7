"""1840 privates after the auction (docs/rules-1840.md, *Selling a private*, *Buying a private*) and the
home station on a two-city start hex (*Home station*), each on a position of a recorded game."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shared.engine.errors import IllegalAction

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_1840_tram_turn import session_at  # noqa: E402


def test_the_player_whose_turn_it_is_may_sell_his_private_to_the_bank_in_a_stock_round() -> None:
    game = session_at("gen1840_small_3p_986400", 143).game  # stock round, 1002 to act, owns SSB (60)
    assert game.round.kind == "Stock" and game.round.current_entity(game) == 1002
    cash = game.player(1002).cash
    game.process({"type": "choose_ability", "entity": "SSB", "choice": {"type": "sell"}})
    assert game.player(1002).cash == cash + 60 and game.companies["SSB"].closed
    assert game.round.current_entity(game) == 1002  # the sale does not use up the turn
    # somebody else's private cannot be sold in 1002's turn
    with pytest.raises(IllegalAction):
        game.process({"type": "choose_ability", "entity": "SB", "choice": {"type": "sell"}})
    # players never buy privates from each other
    assert "buy_company" not in game.round.actions_for(game, 1002)


def test_a_line_buys_a_private_for_its_major_at_any_moment_of_its_turn() -> None:
    # line 1 (of SJE) has just laid the first tile on its two-city start hex: its station waits to be placed
    game = session_at("gen1840_5p_522166", 294).game
    line = game.round
    assert line.current_entity(game) == "1" and line.pending == ["home"]
    assert line.open_actions(game) == ["buy_company", "place_token"]
    sje, seller = game.corporations["SJE"], game.player(1004)
    cash, seller_cash = sje.cash, seller.cash
    game.process({"type": "buy_company", "entity": "1", "company": "SSB", "price": 60})  # up to face value
    assert sje.cash == cash - 60 and seller.cash == seller_cash + 60 and "SSB" in sje.companies
    assert line.pending == ["home"]  # still the line's turn, the station still to place


def test_a_line_may_buy_a_private_before_it_runs() -> None:
    game = session_at("gen1840_5p_522166", 299).game  # line 1 is about to run
    line = game.round
    assert line.stage == "route" and "buy_company" not in line.open_actions(game)  # nothing is for sale
    ssb = game.companies["SSB"]  # arranged: SJE's SSB back in the hands of a player
    game.corporations[str(ssb.owner)].companies.remove("SSB")
    ssb.owner = 1004
    game.player(1004).companies.append("SSB")
    assert line.open_actions(game) == ["buy_company", "run_routes", "scrap_train"]
    with pytest.raises(IllegalAction):  # above face value
        game.process({"type": "buy_company", "entity": "1", "company": "SSB", "price": 65})
    game.process({"type": "buy_company", "entity": "1", "company": "SSB", "price": 1})
    assert ssb.owner == "SJE" and line.stage == "route"


def test_a_line_chooses_its_home_city_once_its_two_city_start_hex_has_track() -> None:
    # line 2's start hex D18 (reserved for lines 1 and 2 as a whole) got a tile from line 1
    game = session_at("gen1840_5p_522166", 300).game
    line = game.round
    assert line.current_entity(game) == "2" and line.pending == ["home"]
    assert game.corporations["2"].tokens_placed == 0
    with pytest.raises(IllegalAction):  # nothing else first
        game.process({"type": "pass", "entity": "2"})
    with pytest.raises(IllegalAction):  # line 1 holds the other city
        game.process({"type": "place_token", "entity": "2", "city": "235-0-1", "slot": 0})
    game.process({"type": "place_token", "entity": "2", "city": "235-0-0", "slot": 0})
    assert game.corporations["2"].tokens_placed == 1 and line.pending == []


def test_a_hex_reserved_as_a_whole_keeps_a_city_for_each_line_still_to_come() -> None:
    """Line 1 has its station on D18 (tile 235, two one-slot cities); line 2, which reserved D18 with it,
    has not operated yet: no other line may take D18's last free city, and line 2 gets it."""
    game = session_at("gen1840_5p_522166", 300).game  # line 2 is about to place its home station
    from shared.engine.titles.g1840.line import check_hex_reservation

    h = game.board.hex("D18")
    assert h.tile_reservations == ["2"] and h.tokens == [[None], ["1"]]  # line 1 took its share
    with pytest.raises(IllegalAction) as err:
        check_hex_reservation(game, game.corporations["3"], "D18")
    assert err.value.rule == "reserved"
    check_hex_reservation(game, game.corporations["2"], "D18")  # its own reservation never blocks it
    game.process({"type": "place_token", "entity": "2", "city": "235-0-0", "slot": 0})
    check_hex_reservation(game, game.corporations["3"], "D18")  # nobody left waiting: nothing kept

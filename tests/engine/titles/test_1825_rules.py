"""1825 rules of play, one scenario per rule of docs/rules-1825.md.

Each scenario starts from a real position of a generated game (`position(name, i)`: the game right before
action i of the record) and, where the rule needs it, adjusts money or holdings so that the rule's
boundary is what decides; then it asserts money, holdings, prices and who acts next.
"""

from __future__ import annotations

from typing import Any

import pytest
from positions_1825 import position

from shared.engine import IllegalAction
from shared.engine.game import Game
from shared.engine.legal import legal_actions
from shared.engine.titles.g1825.steps.trains import BuyTrain1825


def sell(player: int, shares: list[str], percent: int) -> dict[str, Any]:
    return {"type": "sell_shares", "entity": player, "shares": shares, "percent": percent}


def holding(game: Game, corp: str, player: int) -> int:
    return game.corporations[corp].percent_owned_by(player)


# -- share sales by the director in the train step -------------------------------------------------------
# Unit 1, 4 players: OR1, LBSC (director 1001, £130 after three 2-trains) is in its train step; 1001 has £10
# and holds the SECR director's certificate (20%, price 71); 1002 also holds 20% of SECR.
U1_4P = "gen1825_unit_1_4p_256123"
TRAIN_STEP = 29


def test_director_sells_in_the_train_step_and_keeps_the_money() -> None:
    game = position(U1_4P, TRAIN_STEP)
    assert game.acting() == ["LBSC"]
    lbsc_cash = game.corporations["LBSC"].cash
    assert "sell_shares" in game.action_types(1001)
    game.process(sell(1001, ["SECR_0"], 20))
    assert game.player(1001).cash == 10 + 142
    assert game.corporations["LBSC"].cash == lbsc_cash  # a director never pays towards a train
    assert game.corporations["SECR"].president == 1002  # the other 20% holder takes the certificate
    assert holding(game, "SECR", "pool") == 20
    assert game.acting() == ["LBSC"]  # the corporation still buys (or passes)
    assert game.share_price(game.corporations["SECR"]) == 71  # selling never moves the price


def test_only_the_director_of_the_operating_corporation_sells() -> None:
    game = position(U1_4P, TRAIN_STEP)
    assert game.action_types(1002) == []
    with pytest.raises(IllegalAction) as caught:
        game.process(sell(1002, ["SECR_1"], 10))
    assert caught.value.rule == "not_your_turn"


def test_no_sale_once_director_and_corporation_can_pay_the_cheapest_train() -> None:
    """Cheapest depot train 180, LBSC 130: with 10 + 130 + 142 < 180 + 142 the sale is allowed; with
    £50 more the three together reach 180 + one certificate (142) and it is refused."""
    game = position(U1_4P, TRAIN_STEP)
    game.player(1001).cash = 50
    with pytest.raises(IllegalAction) as caught:
        game.process(sell(1001, ["SECR_0"], 20))
    assert caught.value.rule == "sell_more_than_needed"
    game.player(1001).cash = 49
    game.process(sell(1001, ["SECR_0"], 20))
    assert game.player(1001).cash == 49 + 142


def test_the_directors_certificate_needs_someone_to_take_it() -> None:
    game = position(U1_4P, TRAIN_STEP)
    secr = game.corporations["SECR"]
    for share in secr.shares:
        if share.owner == 1002:
            secr.give(share, secr.sym)  # nobody else holds 20% any more
    with pytest.raises(IllegalAction) as caught:
        game.process(sell(1001, ["SECR_0"], 20))
    assert caught.value.rule == "sell_president"


def test_no_sale_before_the_train_step() -> None:
    game = position(U1_4P, 24)  # LBSC is laying track
    assert game.acting() == ["LBSC"]
    assert game.action_types(1001) == []
    with pytest.raises(IllegalAction):
        game.process(sell(1001, ["SECR_0"], 20))


def test_legal_actions_offer_the_directors_sales() -> None:
    game = position(U1_4P, TRAIN_STEP)
    options = game.legal_actions(1001)
    assert {"type": "sell_shares", "entity": 1001, "entity_type": "player", "shares": ["SECR_0"],
            "percent": 20} in options
    assert all(o["type"] == "sell_shares" for o in options)


def test_director_may_not_give_up_the_operating_corporation() -> None:
    """LBSC's director sells LBSC in its own train step only while he stays the largest holder."""
    game = position(U1_4P, TRAIN_STEP)
    lbsc = game.corporations["LBSC"]
    assert holding(game, "LBSC", 1001) == 30 and max(holding(game, "LBSC", p) for p in (1002, 1003, 1004)) == 10
    ordinary = [s.id for s in lbsc.shares if s.owner == 1001 and not s.president]
    game.process(sell(1001, ordinary[:1], 10))  # 20% left against 10%: allowed
    assert lbsc.president == 1001
    other = next(s for s in lbsc.shares if s.owner == lbsc.sym)
    lbsc.give(other, 1002)  # 1002 now holds 20%, as much as 1001
    with pytest.raises(IllegalAction) as caught:
        game.process(sell(1001, ["LBSC_0"], 10))
    assert caught.value.rule in ("sell_president", "sell_more_than_needed")


# -- selling part of the director's certificate ------------------------------------------------------------
# Unit 1, 3 players, OR: GER in its train step; 1001 directs LBSC with only the 20% certificate and 1003
# holds 20% in ordinary shares; 1001 sells 10% of the certificate.
U1_3P = "gen1825_unit_1_3p_361300"


def test_selling_half_the_certificate_hands_the_presidency_over() -> None:
    game = position(U1_3P, 53)
    assert game.acting() == ["GER"]
    cash = game.player(1001).cash
    game.process(sell(1001, ["LBSC_0"], 10))
    lbsc = game.corporations["LBSC"]
    assert lbsc.president == 1003
    assert holding(game, "LBSC", 1001) == 10
    assert holding(game, "LBSC", 1003) == 20
    assert holding(game, "LBSC", "pool") == 10
    assert game.player(1001).cash == cash + 67  # 10% at the LBSC price of 67


# -- corporations' hex reservations ------------------------------------------------------------------------
def test_a_corporations_reserved_hex_stops_no_one() -> None:
    """W19 is LSWR's (`blocks_hexes`); LSWR has not floated, yet LBSC may lay track there."""
    game = position(U1_4P, 108)
    assert not game.corporations["LSWR"].floated
    assert any(a.get("type") == "blocks_hexes" and "W19" in a.get("hexes", [])
               for a in game.corporations["LSWR"].abilities)
    game.process({"type": "lay_tile", "entity": "LBSC", "hex": "W19", "tile": "56-0", "rotation": 2})
    assert game.board.hex("W19").tile.name == "56"


# -- a minor's own train is not for sale ---------------------------------------------------------------------
U3_2P = "gen1825_unit_3_2p_734947"


def test_a_minors_own_train_is_not_for_sale() -> None:
    """Unit 3: HR (U3) pays out with £58 left; the only other train in play is M&C's own 3T and the bank's
    cheapest is a 2-train at 180, so HR has nothing to buy and M&C operates next."""
    game = position(U3_2P, 8)
    assert game.acting() == ["HR"]
    assert game.corporations["HR"].cash < 180
    game.process({"type": "dividend", "entity": "HR", "kind": "payout"})
    assert game.acting() == ["M&C"]


def test_buying_a_minors_own_train_is_refused() -> None:
    game = position(U3_2P, 8)
    hr, mc = game.corporations["HR"], game.corporations["M&C"]
    train = mc.trains[0]
    assert train.name == "3T" and hr.president is not None  # not in receivership: the minor's rule decides
    step = next(s for s in game.round.steps if isinstance(s, BuyTrain1825))
    assert train not in step.other_trains(game, hr)
    with pytest.raises(IllegalAction) as caught:
        step.check_train_from_corporation(game, hr, mc, train, 10, 500)
    assert caught.value.rule == "train_owner"


# Unit 3 + DB3, 2 players (oracle-bot game, first 976 actions): GNoS formed with its own 5 (5-0) and handed it
# back to the bank over the train limit at index 629; HR bought it from the bank for 550 at 962.
DB3_BOT = "camp1825_unit_3_db3_2p_1149842_976"


def test_a_minors_own_train_handed_back_to_the_bank_is_an_ordinary_train() -> None:
    """Once GNoS discarded its own 5, the train is like any other: HR bought it from the bank, and CR (in
    its train step, £10 at least) buys it from HR for £10; GSWR operates next."""
    before = position(DB3_BOT, 629)
    assert before.corporations["GNoS"].required_train == "5-0"
    assert before.depot.by_id("5-0").owner == "GNoS"
    game = position(DB3_BOT, 974)
    hr, cr = game.corporations["HR"], game.corporations["CR"]
    assert game.acting() == ["CR"] and game.depot.by_id("5-0").owner == "HR"
    hr_cash, cr_cash = hr.cash, cr.cash
    step = next(s for s in game.round.steps if isinstance(s, BuyTrain1825))
    assert game.depot.by_id("5-0") in step.other_trains(game, cr)
    game.process({"type": "buy_train", "entity": "CR", "train": "5-0", "price": 10})
    assert (hr.cash, cr.cash) == (hr_cash + 10, cr_cash - 10)
    assert [t.id for t in hr.trains] == ["U3-0"] and "5-0" in [t.id for t in cr.trains]
    assert game.acting() == ["GSWR"]


# -- track does not reverse at a town or city ------------------------------------------------------------
def test_a_station_reached_only_by_reversing_at_a_town_cannot_be_tokened() -> None:
    """Unit 1 + K3: LNWR (T16) reaches U21 and on into U23's town; London's city 3 (V20, edge to U21) lies
    behind U21's other branch, which LNWR could only take by running back out of the town on the track it
    came in on. So after its two tile lays LNWR has no station to place, its track step ends, it withholds
    (no train) and drops from 100 to 90."""
    game = position("gen1825_unit_1_k3_4p_437920", 410)
    game.process({"type": "lay_tile", "entity": "LNWR", "hex": "T14", "tile": "8-6", "rotation": 4})
    assert ("V20", 13) not in game.board.reach("LNWR").nodes
    assert "place_token" not in game.action_types("LNWR")
    assert game.share_price(game.corporations["LNWR"]) == 90


# -- game end ------------------------------------------------------------------------------------------------
def test_top_of_the_market_ends_the_game_at_once_even_after_the_bank_broke() -> None:
    game = position("gen1825_unit_1_k6_3p_967870", 859)
    assert game.end_trigger is not None and game.end_trigger[0] == "bank"
    game.process({"type": "dividend", "entity": "LBSC", "kind": "payout"})  # LBSC 320 -> 340, the top cell
    assert game.finished and game.game_end_reason == "stock_market"
    assert game.acting() == []


# -- a minor builds its home hex before its home station ---------------------------------------------------
def test_minor_upgrades_its_home_hex_before_its_station_without_a_reachable_train() -> None:
    """Unit 2 + K5: NS has no station yet (its home Q13 holds a yellow double town); it upgrades Q13 to a
    green city, which no train of its could otherwise reach, and its home station goes down."""
    game = position("gen1825_unit_2_k5_3p_665169", 234)
    ns = game.corporations["NS"]
    assert ns.tokens_placed == 0
    game.process({"type": "lay_tile", "entity": "NS", "hex": "Q13", "tile": "14-0", "rotation": 2})
    assert game.board.hex("Q13").tile.name == "14"
    assert game.board.token_hexes("NS") == ["Q13"]



def test_a_minor_places_no_station_before_its_home_one() -> None:
    """Unit 1 + R1: TV's home V8 (Cardiff & Newport) holds two empty cities without track. TV may not put a
    station on either before it lays its home tile: it is offered the lay and pass only, a station is refused
    naming the rule, and nothing changes; after the lay its home station goes down (a choice of city)."""
    game = position("gen1825_unit_1_r1_4p_273112", 143)
    tv = game.corporations["TV"]
    assert tv.tokens_placed == 0 and game.acting() == ["TV"]
    offered = {a["type"] for a in legal_actions(game, "TV")}
    assert "place_token" not in offered and "lay_tile" in offered
    cash = tv.cash
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "place_token", "entity": "TV", "city": "V8-0-0", "slot": 0})
    assert caught.value.rule == "home_first" and "lay a tile there first" in str(caught.value)
    assert tv.cash == cash and game.board.token_hexes("TV") == []
    game.process({"type": "lay_tile", "entity": "TV", "hex": "V8", "tile": "10-0", "rotation": 5})
    game.process({"type": "place_token", "entity": "TV", "city": "10-0-1", "slot": 0})
    assert game.board.token_hexes("TV") == ["V8"] and tv.cash == cash


# -- upgrading a station needs a train that reaches it -----------------------------------------------------
def test_two_2_trains_reach_only_two_stops_for_an_upgrade() -> None:
    """Unit 1 + K3: GER owns four 2-trains; T24's town is two stops from its stations. The 2-trains may
    double-head for revenue, but for the upgrade each reaches only 2 stops, so the upgrade is refused."""
    game = position("gen1825_unit_1_k3_4p_437920", 102)
    assert [t.name for t in game.corporations["GER"].trains] == ["2", "2", "2", "2"]
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "lay_tile", "entity": "GER", "hex": "T24", "tile": "87-0", "rotation": 0})
    assert caught.value.rule == "upgrade_reach"
    assert game.board.hex("T24").tile.name == "4"


def test_a_halt_is_passed_without_counting() -> None:
    """Unit 1 + D1: GWR (two 2-trains) reaches T20's town from its V16 station through U19's halt (tile 11,
    visit cost 0): one counted stop (V16) before T20, fewer than 2, so the upgrade is allowed."""
    game = position("gen1825_unit_1_d1_4p_982429", 771)
    game.process({"type": "lay_tile", "entity": "GWR", "hex": "T20", "tile": "87-0", "rotation": 0})
    assert game.board.hex("T20").tile.name == "87"


def test_a_u3_counts_its_starting_city() -> None:
    """Unit 3 + DB1: HR (U3 and a 2-train) would upgrade G7 to a town tile; the town lies past HR's own
    station and two more cities, three cities in all, not fewer than the U3's 3: refused."""
    game = position("gen1825_unit_3_db1_2p_683714", 336)
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "lay_tile", "entity": "HR", "hex": "G7", "tile": "888-0", "rotation": 0})
    assert caught.value.rule == "upgrade_reach"


def test_a_stop_reached_only_over_the_same_track_twice_is_out_of_reach() -> None:
    """Unit 1 + D1: GER (4-, 2- and 3-train) would upgrade T22's plain track to tile 11 (a halt). By the
    fewest stops the halt is two stops away, but every such way runs over one piece of track twice: refused."""
    game = position("gen1825_unit_1_d1_4p_982429", 624)
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "lay_tile", "entity": "GER", "hex": "T22", "tile": "11-0", "rotation": 0})
    assert caught.value.rule == "upgrade_reach"
    assert game.board.hex("T22").tile.name == "8"


# -- a reserved home goes where its reservation went --------------------------------------------------------
# Unit 1 + K2 + K3, 3 players (Railpost's own game, reverse check): London (V20) is six one-sided cities,
# city i facing side i; LSWR's station faces W19 (side 0), GER's home is reserved on the city facing V22
# (side 4). SECR upgrades London to brown 32 turned one side (action 260), so the cities shift one place round.
HOME_MOVES = "rp_1825_3p_6685680_unit_1_k2_k3"
LONDON_SIDES = {0: "W19", 4: "V22", 5: "W21"}


def test_a_reservation_moves_with_its_city_when_the_hex_is_upgraded() -> None:
    game = position(HOME_MOVES, 259)
    london = game.board.hex("V20")
    assert london.reservations[4] == ["GER"] and london.tokens[0] == ["LSWR"]
    game.process({"type": "lay_tile", "entity": "SECR", "hex": "V20", "tile": "32-0", "rotation": 1})
    london = game.board.hex("V20")
    assert london.tile.name == "32" and london.rotation == 1
    assert london.reservations[3] == ["GER"]  # new city 3 faces side 4, as old city 4 did
    assert london.tokens[5] == ["LSWR"]  # new city 5 faces side 0


def test_a_home_token_goes_to_the_reserved_city_not_the_setup_index() -> None:
    """GER floats at the end of the stock round (the pass at 290) and its home station goes down in the
    city its reservation moved to (city 3, facing V22), not in city 4 of the new tile (the setup's index,
    which now faces W21). So GER reaches V22 and not W21, and is offered no tile there (it was, and the
    reference refused its 47 on W21 at action 304)."""
    game = position(HOME_MOVES, 289)
    assert game.corporations["GER"].tokens_placed == 0
    game.process({"type": "pass", "entity": 1002})
    london = game.board.hex("V20")
    assert london.tokens[3] == ["GER"] and london.tokens[4] == [None]
    assert not any(any(slots) for slots in london.reservations)
    game = position(HOME_MOVES, 303)
    assert game.acting() == ["GER"]
    assert game.board.reach("GER").edges.get("W21") is None
    assert not [a for a in legal_actions(game, "GER") if a.get("hex") == "W21"]
    with pytest.raises(IllegalAction):
        game.process({"type": "lay_tile", "entity": "GER", "hex": "W21", "tile": "47-0", "rotation": 5})


# -- a director's certificate in the market keeps the turn open ---------------------------------------------
# Unit 3 + DB3, 2 players (Railpost's own game, reverse check), stock round 18: the market holds the 40%
# director's certificates of GNoS (price 16: £64) and HR (price 5: £20) and nothing else of theirs. Player 2
# (£6, no GNoS or HR) sells his CR share for £76.
DIRECTOR_IN_POOL = "rp_1825_2p_6778996_unit_3_db3"


def test_a_directors_certificate_in_the_market_keeps_the_turn_open() -> None:
    """After the sale player 2 may buy nothing (CR he just sold; a director's certificate from the market
    needs a share of the corporation already), but he could pay for one, so his turn goes on: he is offered
    the pass only, and only his pass hands the turn to player 1 (Railpost had ended the turn at the sale, and
    the reference refused player 1's pass at 148)."""
    game = position(DIRECTOR_IN_POOL, 146)
    game.process(sell(1002, ["CR_2"], 10))
    assert game.player(1002).cash == 82
    assert game.acting() == [1002]
    assert legal_actions(game, 1002) == [{"type": "pass", "entity": 1002, "entity_type": "player"}]
    with pytest.raises(IllegalAction):
        game.process({"type": "buy_shares", "entity": 1002, "shares": ["GNoS_0"], "percent": 40})
    game.process({"type": "pass", "entity": 1002})
    assert game.acting() == [1001]


def test_a_turn_with_nothing_in_reach_ends_at_the_sale() -> None:
    """The same sale with neither director's certificate in the market (back in the treasuries): nothing is
    left for player 2 to do and his turn ends by itself; player 1 acts next."""
    game = position(DIRECTOR_IN_POOL, 146)
    for sym in ("GNoS", "HR"):
        corp = game.corporations[sym]
        corp.give(corp.shares[0], sym)
    game.edited()
    game.process(sell(1002, ["CR_2"], 10))
    assert game.acting() == [1001]


def _player_1s_turn_with(cash: int) -> Game:
    """The DIRECTOR_IN_POOL position after player 2's sale and pass: player 1 (GNoS_1, 20%) acts, with `cash`."""
    game = position(DIRECTOR_IN_POOL, 146)
    game.process(sell(1002, ["CR_2"], 10))
    game.process({"type": "pass", "entity": 1002})
    game.player(1001).cash = cash
    game.edited()
    assert game.acting() == [1001]
    return game


def test_a_shareholder_takes_the_directors_certificate_from_the_market() -> None:
    """Player 1 holds a 20% GNoS share; GNoS's 40% director's certificate lies in the market at 16. He is
    offered it, pays one share (£32), hands his GNoS_1 to the market and is director: GNoS leaves
    receivership. The market keeps GNoS_1; his holding goes from 20% to 40%."""
    game = _player_1s_turn_with(100)
    offer = {"type": "buy_shares", "entity": 1001, "entity_type": "player", "shares": ["GNoS_0"], "percent": 40}
    assert offer in legal_actions(game, 1001)
    game.process({"type": "buy_shares", "entity": 1001, "shares": ["GNoS_0"], "percent": 40})
    gnos = game.corporations["GNoS"]
    assert game.player(1001).cash == 68
    assert [(s.id, s.owner) for s in gnos.shares[:2]] == [("GNoS_0", 1001), ("GNoS_1", "pool")]
    assert gnos.president == 1001 and not game.rules.receivership(game, gnos)
    assert holding(game, "GNoS", 1001) == 40


def test_the_directors_certificate_from_the_market_needs_a_share_and_its_value_in_hand() -> None:
    """Nobody holds HR, so nobody may take HR's certificate; player 1 with £40 pays only one GNoS share
    (£32) but must have the certificate's value (£64) in hand, so he is not offered it and is refused."""
    game = _player_1s_turn_with(100)
    assert not any(a.get("shares") == ["HR_0"] for a in legal_actions(game, 1001))
    with pytest.raises(IllegalAction, match="only a holder of a HR share"):
        game.process({"type": "buy_shares", "entity": 1001, "shares": ["HR_0"], "percent": 40})
    game = _player_1s_turn_with(40)
    assert not any(a["type"] == "buy_shares" for a in legal_actions(game, 1001))
    with pytest.raises(IllegalAction, match="needs its value, 64, in hand"):
        game.process({"type": "buy_shares", "entity": 1001, "shares": ["GNoS_0"], "percent": 40})
    with pytest.raises(IllegalAction, match="bought whole"):
        game.process({"type": "buy_shares", "entity": 1001, "shares": ["GNoS_0"], "percent": 20})


def test_part_of_the_certificate_is_offered_in_the_train_step() -> None:
    """GER's train step, player 1 holding LBSC's director's certificate alone and player 3 a 20% of LBSC:
    he is offered the sale of half the certificate (player 3 takes over, see the test above) beside the
    whole of it; a partial sale of a corporation where nobody can take over is not offered."""
    game = position(U1_3P, 53)
    options = legal_actions(game, 1001)
    assert {"type": "sell_shares", "entity": 1001, "entity_type": "player", "shares": ["LBSC_0"],
            "percent": 10} in options
    for option in options:
        corp = game.corporations[option["shares"][0].rpartition("_")[0]]
        if option["percent"] < sum(corp.shares[int(s.rpartition("_")[2])].percent for s in option["shares"]):
            others = max(holding(game, corp.sym, p.id) for p in game.players if p.id != 1001)
            assert others >= corp.shares[0].percent


def test_part_of_the_certificate_for_the_stock_round() -> None:
    """The stock round offers the sales of part of a director's certificate: all of a holding less one share
    of the certificate. Player 1 (CR_0, CR_1, CR_3: 40% of CR at 76) sells
    30%; nobody holds CR to take over, so the certificate goes to the market and he keeps one ordinary share
    from it (CR_2, which player 2 sold there)."""
    game = _player_1s_turn_with(7)
    options = [o for o in legal_actions(game, 1001) if o["type"] == "sell_shares"]
    assert {"type": "sell_shares", "entity": 1001, "entity_type": "player", "shares": ["CR_1", "CR_3", "CR_0"],
            "percent": 30} in options
    # with the certificate: all 40% or all less one share's worth, never less (he keeps at most one share)
    assert {o["percent"] for o in options if "CR_0" in o["shares"]} <= {30, 40}
    game.process(sell(1001, ["CR_1", "CR_3", "CR_0"], 30))
    cr = game.corporations["CR"]
    assert game.player(1001).cash == 7 + 3 * 76
    assert [s.id for s in cr.shares if s.owner == 1001] == ["CR_2"]
    assert cr.shares[0].owner == "pool" and cr.president is None


# -- a corporation at £0 leaves the board at once -------------------------------------------------------------
REMOVED = "rp_1825_3p_3415641_unit_2_k3"


def test_a_removed_corporations_city_takes_a_station_at_once() -> None:
    """Units 2 + K3 (Railpost's soak game, seed 3415641): GCR, with stations on O15, P16 and Q15, passes into
    the £0 cell and is removed; in the same operating round MR (£350, one £100 station left) reaches O15,
    now empty, and may put its station there at once (the reference's cached routes refused it:
    docs/conflicts-1825.md #21)."""
    before = position(REMOVED, 553)
    assert before.acting() == ["GCR"] and before.board.token_hexes("GCR") == ["O15", "P16", "Q15"]
    game = position(REMOVED, 565)
    assert game.corporations["GCR"].closed and game.board.token_hexes("GCR") == []
    assert game.acting() == ["MR"]
    offered = [a for a in legal_actions(game, "MR") if a["type"] == "place_token"]
    assert {"type": "place_token", "entity": "MR", "city": "O15-0-0", "slot": 0} in [
        {k: a[k] for k in ("type", "entity", "city", "slot")} for a in offered]
    game.process({"type": "place_token", "entity": "MR", "city": "O15-0-0", "slot": 0})
    assert game.board.token_hexes("MR") == ["O15", "P16", "Q15", "Q17"]
    assert game.corporations["MR"].cash == 350 - 100



# -- a waiting home keeps its slot in the city laid on its hex ------------------------------------------------
WAITING_HOME = "rp_1825_3p_9221574_unit_2_k5"


def test_a_waiting_home_keeps_its_slot_in_the_city_laid_on_its_hex() -> None:
    """Units 2 + K5 (Railpost's soak game, seed 9221574): NS's home Q13 has no city yet (tile 114) and is
    reserved as a whole. MR upgrades it to a green 15 (one city, two slots): the reservation becomes the
    city's first slot. MR's own station then takes the second slot; GCR may not take NS's slot (not offered,
    refused naming the slot, its money untouched), and NS's home station goes into it."""
    game = position(WAITING_HOME, 259)
    assert game.acting() == ["MR"] and game.board.hex("Q13").tile_reservations == ["NS"]
    game.process({"type": "lay_tile", "entity": "MR", "hex": "Q13", "tile": "15-1", "rotation": 2})
    q13 = game.board.hex("Q13")
    assert q13.tile_reservations == [] and q13.reservations == [["NS", None]]

    game = position(WAITING_HOME, 333)
    q13 = game.board.hex("Q13")
    assert game.acting() == ["GCR"] and q13.tokens == [[None, "MR"]] and q13.reservations == [["NS", None]]
    assert "15-1-0" not in {a["city"] for a in legal_actions(game, "GCR") if a["type"] == "place_token"}
    cash, stations = game.corporations["GCR"].cash, game.board.token_hexes("GCR")
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "place_token", "entity": "GCR", "city": "15-1-0", "slot": 0})
    assert "slot 0 is reserved for NS" in str(caught.value)
    assert game.corporations["GCR"].cash == cash and game.board.token_hexes("GCR") == stations
    assert q13.tokens == [[None, "MR"]]
    game.board.place_home_token("NS", "Q13")
    assert q13.tokens == [["NS", "MR"]]


# -- Stoke's DB1 city tiles are North Staffordshire's --------------------------------------------------------
# Units 2+3 with DB1 and DB3, 5 players (Railpost's random game, seed 8200705, cut at the move the reference
# refused): GNR (£10) lays on Q13, a yellow double town (tile 2) that DB1 lets become a green 887 or 15.
STOKE = "rp_1825_5p_8200705_unit_23_db1_db3"


def test_only_north_staffordshire_lays_a_db1_city_tile_on_stoke() -> None:
    """NS is not in this game, so nobody may lay 887 or 888 on Q13: neither is offered to GNR, the 887 it
    laid in Railpost's game is refused with the board and GNR's money untouched, and the ordinary green 15
    stays GNR's to lay."""
    game = position(STOKE, 1128)
    assert game.acting() == ["GNR"] and game.board.hex("Q13").tile.name == "2"
    offers = [a for a in legal_actions(game, "GNR") if a["type"] == "lay_tile" and a["hex"] == "Q13"]
    assert [a["tile"].split("-")[0] for a in offers] == ["15"]
    cash = game.corporations["GNR"].cash
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "lay_tile", "entity": "GNR", "hex": "Q13", "tile": "887-0", "rotation": 3})
    assert "only NS may lay tile 887 on Q13" in str(caught.value)
    assert game.board.hex("Q13").tile.name == "2" and game.corporations["GNR"].cash == cash
    game.process({"type": "lay_tile", "entity": "GNR", "hex": "Q13", "tile": "15-1", "rotation": 3})
    assert game.board.hex("Q13").tile.name == "15"


# -- a train leased this turn measures the reach of an upgrade -----------------------------------------------
# Units 1+2 with K2 and K3, 4 players (Railpost's random game, seed 8414910, cut at the move the reference
# refused): GER (£320, in receivership) owns a 3, a 4, a U3 and a 6 and is in its track step; R24 holds a
# yellow city (tile 6) that it may upgrade to a 14.
LEASED_REACH = "rp_1825_4p_8414910_unit_12_k2_k3"
GER_14 = {"type": "lay_tile", "entity": "GER", "hex": "R24", "tile": "14-0", "rotation": 2}


def test_a_leased_train_alone_measures_the_reach_of_an_upgrade() -> None:
    """Before leasing, GER's own trains reach R24 and the 14 is offered. After leasing a 2+2 (£10) only the
    2+2 counts: R24 lies beyond it, so no tile on R24 is offered and the 14 is refused with the board and
    GER's money untouched. Leasing the 6 instead keeps R24 within reach."""
    game = position(LEASED_REACH, 980)
    assert game.acting() == ["GER"] and game.corporations["GER"].president is None
    assert [t.name for t in game.corporations["GER"].trains] == ["3", "4", "U3", "6"]
    assert any(a["type"] == "lay_tile" and a["hex"] == "R24" and a["tile"] == "14-0" and a["rotation"] == 2
               for a in legal_actions(game, "GER"))

    game.process({"type": "special_buy", "entity": "GER", "description": "2+2", "cost": 10})
    assert game.corporations["GER"].cash == 310
    assert not any(a["type"] == "lay_tile" and a["hex"] == "R24" for a in legal_actions(game, "GER"))
    with pytest.raises(IllegalAction) as caught:
        game.process(dict(GER_14))
    assert "no train of GER can reach the upgraded tile on R24" in str(caught.value)
    assert game.board.hex("R24").tile.name == "6" and game.corporations["GER"].cash == 310

    game = position(LEASED_REACH, 980)
    game.process({"type": "special_buy", "entity": "GER", "description": "6", "cost": 10})
    game.process(dict(GER_14))
    assert game.board.hex("R24").tile.name == "14"

"""1833NE seed audit (2026-12-05): scenario tests for the rules the audit found untested or wrong, played
through `GameSession` (money, prices, holdings, who acts next) with the refusal a player reads.

The checklist that maps each rule of the Dutch seed to its code and test is in docs/1833NE.md,
"Seed audit (2026-12-05)".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from play_1833ne import players
from test_1833ne_rules import boston_to_portland, give_private, run, track
from test_1833ne_tables import swap_tables  # noqa: F401  (a fixture)

from shared.engine import GameSession, MalformedAction
from shared.engine.errors import IllegalAction
from shared.engine.legal import legal_actions
from shared.engine.session import final_active_flags
from shared.engine.titles.g1833ne import bonuses
from shared.engine.titles.g1833ne import constants as K
from shared.engine.titles.g1833ne.bonuses import choose_luxury
from shared.engine.titles.g1833ne.steps.finance import CorporationFinance
from shared.engine.titles.g1833ne.steps.runs import RunStep
from shared.engine.titles.g1833ne.steps.track import BuildStep
from shared.engine.titles.g1833ne.steps.trains import TrainStep
from shared.engine.titles.g1833ne.takeover import complete_takeover


def new(n: int = 4, options: list[str] | None = None) -> GameSession:
    return GameSession.new("1833NE", players(n), seed=7, optional_rules=options or [])


def cell(s: GameSession, price: int) -> str:
    return next(c.id for c in s.game.market.par_cells() if c.price == price)


def price_of(s: GameSession, corp: str) -> int:
    return s.game.share_price(s.game.corporations[corp]) or 0


def kinds(s: GameSession) -> set[str]:
    return {a["type"] for a in legal_actions(s.game)}


def opening(s: GameSession) -> None:
    """SR1: P1 launches CV at 150, P2 buys P6, P3 launches BW at 100, P4 launches B&L at 60, P1 buys P1; all pass."""
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(s, 150)})
    s.submit({"type": "buy_company", "entity": 2, "company": "P6", "price": 80})
    s.submit({"type": "par", "entity": 3, "corporation": "BW", "share_price": cell(s, 100)})
    s.submit({"type": "par", "entity": 4, "corporation": "B&L", "share_price": cell(s, 60)})
    s.submit({"type": "buy_company", "entity": 1, "company": "P1", "price": 15})
    for pid in (2, 3, 4, 1):
        s.submit({"type": "pass", "entity": pid})


def test_first_operating_round_runs_lowest_price_first_then_highest_first() -> None:
    s = new()
    opening(s)
    g = s.game
    assert type(g.round).__name__ == "Operating1833"
    # seed: the first OR of the game in reverse price order
    assert g.round.entities == ["B&L", "BW", "CV"] and g.acting() == ["B&L"]
    # private income is paid as the OR starts: P1 $5 to player 1, P6 $30 to player 2
    assert g.player(1).cash == 450 - 300 - 15 + 5 and g.player(2).cash == 450 - 80 + 30


def test_boston_and_lowell_may_not_build_or_run_in_phase_one_without_p2() -> None:
    s = new()
    opening(s)
    g = s.game
    assert "lay_tile" not in kinds(s)
    with pytest.raises(IllegalAction, match="Boston & Lowell lays no track in phase I until a corporation has "
                                            "bought the Lowell Merchants"):
        s.submit({"type": "lay_tile", "entity": "B&L", "hex": "G20", "tile": "3-0", "rotation": 0})
    s.submit({"type": "pass", "entity": "B&L"})
    # no train: the run is skipped, nothing is paid and the price drops one space (0 is less than half of 60)
    assert price_of(s, "B&L") == 50
    # it must buy a train (it may issue shares first), and may buy nothing else first
    assert kinds(s) == {"buy_train", "sell_shares"}
    with pytest.raises(IllegalAction, match="no train and must buy one before anything else"):
        s.submit({"type": "buy_company", "entity": "B&L", "company": "P1", "price": 15})
    with pytest.raises(IllegalAction, match="no train and must buy one before its turn ends"):
        s.submit({"type": "pass", "entity": "B&L"})
    g = s.game  # a refusal folds the log again: read the new state
    s.submit({"type": "buy_train", "entity": "B&L", "train": "2-0", "price": 75, "variant": "2"})
    assert g.corporations["B&L"].cash == 120 - 75 and g.acting() == ["B&L"]
    s.submit({"type": "pass", "entity": "B&L"})
    assert g.acting() == ["BW"]
    # the next operating round: B&L has a train but Boston is not upgraded and nobody has bought P2
    g2 = s.game
    assert RunStep().route_actions(g2, g2.round, g2.corporations["B&L"]) == []


def test_a_corporation_buys_a_private_from_any_player_in_phase_one_and_pays_the_p6_fee() -> None:
    s = new()
    opening(s)
    for corp in ("B&L", "BW"):
        s.submit({"type": "pass", "entity": corp})
        s.submit({"type": "buy_train", "entity": corp, "train": f"2-{0 if corp == 'B&L' else 1}", "price": 75,
                  "variant": "2"})
        s.submit({"type": "pass", "entity": corp})
    g = s.game
    assert g.acting() == ["CV"]
    cv = g.corporations["CV"]
    assert cv.president == 1 and g.companies["P6"].owner == 2
    p2 = g.player(2).cash
    bank = g.bank_cash
    # seed: "Maatschappijen mogen in fasen I en II privates van spelers kopen voor $1 tot de catalogusprijs"
    with pytest.raises(IllegalAction, match="P6 sells for \\$1 to \\$80, not 81"):
        s.submit({"type": "buy_company", "entity": "CV", "company": "P6", "price": 81})
    g = s.game  # a refusal folds the log again: read the new state
    cv = g.corporations["CV"]
    s.submit({"type": "buy_company", "entity": "CV", "company": "P6", "price": 80})
    assert g.player(2).cash == p2 + 80 and g.bank_cash == bank + K.P6_BANK_FEE
    assert cv.cash == 300 - 80 - 40 and g.companies["P6"].owner == "CV" and "P6" in cv.companies
    s.submit({"type": "pass", "entity": "CV"})
    s.submit({"type": "buy_train", "entity": "CV", "train": "2-2", "price": 100, "variant": "2+1"})
    # privates may be bought at any point of the turn, the train step included
    assert "buy_company" in kinds(s)
    s.submit({"type": "buy_company", "entity": "CV", "company": "P1", "price": 10})
    assert g.companies["P1"].owner == "CV" and cv.cash == 180 - 100 - 10
    assert g.acting() == ["CV"]


def test_no_private_changes_hands_from_phase_three_on() -> None:
    s = new()
    opening(s)
    g = s.game
    cv = g.corporations["CV"]
    g.phase_index = 2  # phase III
    reason = CorporationFinance.private_refusal(g, cv, {"company": "P6", "price": 10})
    assert reason == "corporations buy privates only in phases I and II"
    assert CorporationFinance.buyable_privates(g, cv) == []


def test_refusals_name_the_station_and_train_rules() -> None:
    s = new()
    opening(s)
    g = s.game
    blw = g.corporations["B&L"]
    # both stations down: a third is refused with the rule
    blw.tokens_placed = 2
    g.edited()
    with pytest.raises(IllegalAction, match="both its stations \\(home and one more\\)"):
        g.process({"type": "place_token", "entity": "B&L", "city": "G22-0", "slot": 0})
    # buying before running is refused as such
    with pytest.raises(IllegalAction, match="trains are bought after running and paying"):
        g.process({"type": "buy_train", "entity": "B&L", "train": "2-0", "price": 75, "variant": "2"})
    # the Boston & Worcester's station in Worcester costs $40, any other second station $80
    worcester = g.board.city_id(K.WORCESTER, 0)
    assert BuildStep.station_price(g, g.corporations["BW"], worcester) == K.WORCESTER_PRICE == 40
    assert BuildStep.station_price(g, g.corporations["CV"], worcester) == K.STATION_PRICE == 80


def test_a_corporation_reaching_its_train_limit_ends_its_turn() -> None:
    s = new()
    opening(s)
    g = s.game
    blw = g.corporations["B&L"]
    g.pay(None, blw, 500)
    for i in range(2):
        g.buy_train_from_depot(blw, g.depot.by_id(f"2-{i}"), 75)
    g.edited()
    g.process({"type": "pass", "entity": "B&L"})
    assert g.acting() == ["B&L"] and {a["type"] for a in legal_actions(g)} >= {"buy_train", "pass"}
    g.process({"type": "buy_train", "entity": "B&L", "train": "2-2", "price": 100, "variant": "2+1"})
    # three trains is the phase-I limit: nothing is left to buy, the next corporation operates
    assert len(g.rules.limit_trains(g, blw)) == 3 == g.train_limit(blw)
    assert blw.cash == 120 + 500 - 150 - 100 and g.acting() == ["BW"]
    with pytest.raises(IllegalAction, match="not B&L's turn"):
        g.process({"type": "buy_train", "entity": "B&L", "train": "2-3", "price": 75, "variant": "2"})


def test_buying_the_first_phase_three_card_on_its_cheaper_face_starts_phase_three() -> None:
    """The 3+3 face of a 4/7 card starts phase III: 2-trains obsolete (no longer counted, run once more),
    privates held by players and P1-P2 removed, P3-P6 keep their ability without income."""
    s = new()
    opening(s)
    g = s.game
    cv, bw = g.corporations["CV"], g.corporations["BW"]
    g.pay(None, bw, 2000)
    two = g.depot.by_id("2-0")
    g.buy_train_from_depot(cv, two, 75)
    g.companies["P6"].owner, cv.companies = "CV", ["P6"]
    g.player(2).companies.remove("P6")
    for t in [t for t in g.depot.trains if t.name in ("2", "3/5") and t.owner is None]:
        t.rusted = True  # sold out (scenario set-up)
    g.edited()
    train = next(t for t, face, _ in TrainStep.depot_faces(g) if face == "3+3")
    assert TrainStep.check_depot_purchase(g, bw, train, 230, "3+3") == "3+3"
    bw_cash = bw.cash
    g.buy_train_from_depot(bw, train, 230)
    assert g.phase.name == "III" and bw.cash == bw_cash - 230
    assert two.obsolete and two in cv.trains and g.rules.limit_trains(g, cv) == []
    assert g.companies["P1"].closed and "P1" not in g.player(1).companies
    assert not g.companies["P6"].closed and g.companies["P6"].revenue == 0


def play_on(s: GameSession, until: Any, limit: int = 500) -> None:
    """Advance with the plainest legal move (pass, else the first offered) until `until(s)` holds."""
    for _ in range(limit):
        if until(s):
            return
        options = legal_actions(s.game)
        move = next((o for o in options if o["type"] == "pass"), None) or \
            next((o for o in options if o["type"] in ("run_routes", "dividend")), None) or options[0]
        s.submit(move)
    raise AssertionError("the game did not get there")


def test_an_empty_bank_finishes_the_current_set_and_privates_count_before_phase_three() -> None:
    """Seed: the bank runs out -> the running set (stock round + its two ORs) is finished, then the game ends;
    privates held by players count at face value when the game ends before phase III."""
    s = new()
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(s, 100)})
    s.submit({"type": "buy_company", "entity": 2, "company": "P4", "price": 60})
    g = s.game
    g.bank_cash = 0  # the bank runs out during the first stock round (scenario set-up; money is not checked)
    g.edited()
    s.submit({"type": "pass", "entity": 3})
    assert g.end_trigger == ("bank", "full_set")
    play_on(s, lambda s: s.finished or type(s.game.round).__name__ == "Operating1833")
    assert not s.finished and s.game.round.round_num == 1
    play_on(s, lambda s: s.finished or s.game.round.round_num == 2)
    assert not s.finished  # the second OR of the set is played
    play_on(s, lambda s: s.finished)
    g = s.game
    assert g.turn == 1 and g.phase.name == "I"
    # player 2: cash + P4 at its $60 face value
    assert s.result["2"] == g.player(2).cash + 60
    assert s.result["1"] == g.player(1).cash + 2 * (g.share_price(g.corporations["CV"]) or 0)


def test_a_presidents_sale_drops_one_space_however_many_and_may_pass_the_presidency() -> None:
    s = new()
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(s, 60)})
    s.submit({"type": "buy_shares", "entity": 2, "shares": ["CV_1"], "percent": 10})
    s.submit({"type": "pass", "entity": 3})
    s.submit({"type": "pass", "entity": 4})
    s.submit({"type": "buy_shares", "entity": 1, "shares": ["CV_2"], "percent": 10})
    s.submit({"type": "pass", "entity": 1})  # his turn stays open after a purchase: he may still sell
    s.submit({"type": "buy_shares", "entity": 2, "shares": ["CV_4"], "percent": 10})
    s.submit({"type": "pass", "entity": 3})
    s.submit({"type": "pass", "entity": 4})
    s.submit({"type": "buy_shares", "entity": 1, "shares": ["CV_3"], "percent": 10})
    s.submit({"type": "pass", "entity": 1})
    s.submit({"type": "buy_shares", "entity": 2, "shares": ["CV_5"], "percent": 10})
    s.submit({"type": "pass", "entity": 3})
    s.submit({"type": "pass", "entity": 4})
    g = s.game
    cv = g.corporations["CV"]
    assert cv.percent_owned_by(1) == 40 and cv.percent_owned_by(2) == 30 and cv.president == 1
    g.corporations["CV"].operated = True  # after its first run anybody may sell (scenario set-up)
    g.edited()
    cash = g.player(1).cash
    g.process({"type": "sell_shares", "entity": 1, "shares": ["CV_2", "CV_3"], "percent": 20})
    # two certificates, one space down (60 -> 50); player 2 (30%) now holds more than player 1 (20%)
    assert g.player(1).cash == cash + 120 and g.share_price(cv) == 50
    assert cv.president == 2 and cv.shares[0].owner == 2 and cv.percent_owned_by(1) == 20


def test_off_board_values_follow_the_phase() -> None:
    s = new()
    g = s.game
    s.submit({"type": "par", "entity": 1, "corporation": "HR", "share_price": cell(s, 100)})
    g.board.place_home_token("HR", "C24")
    track(s, "C8", (2, 0))
    give_private(s, K.P4, "HR")
    route = {"train": "2-0", "connections": [["A6", "B7", "C8"]], "nodes": ["A6-0", "C8-0"]}
    # the seed: off-board values change in phases III and V (A6: $10 in I-II, $30 in III-IV, $10 in V)
    paid = {}
    for index, name in enumerate(K.PHASES):
        g.phase_index = index
        assert g.phase.name == name
        paid[name] = run(s, "HR", [route])[0] - 20  # St. Albans pays $20 on its yellow tile
    assert paid == {"I": 10, "II": 10, "III": 30, "IV": 30, "V": 10}


def emergency_position(president_cash: int) -> tuple[GameSession, Any]:
    """CV (president: player 1, alone) with $10 and no train, at its train step in the first OR."""
    s = new(3)
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(s, 40)})
    s.submit({"type": "par", "entity": 2, "corporation": "FRR", "share_price": cell(s, 100)})
    for pid in (3, 1, 2):
        s.submit({"type": "pass", "entity": pid})
    g = s.game
    assert g.acting() == ["CV"]
    cv = g.corporations["CV"]
    g.pay(cv, None, cv.cash - 10)
    g.pay(g.player(1), None, g.player(1).cash - president_cash)
    g.edited()
    g.process({"type": "pass", "entity": "CV"})
    return s, g


def test_emergency_purchase_issues_then_takes_the_presidents_cash_for_the_cheapest_train_only() -> None:
    s, g = emergency_position(president_cash=100)
    cv = g.corporations["CV"]
    assert {o["type"] for o in legal_actions(g)} == {"buy_train"}
    # no train ran: nothing paid, 40 -> 30. Players hold 20%, but only one forced issue keeps the price at $20
    # or more: 30 -> 20, fetching the price below (10); the president pays the remaining 75 - 10 - 10 = 55
    with pytest.raises(IllegalAction, match="president's money may only buy the cheapest train \\(2 at 75\\)"):
        g.process({"type": "buy_train", "entity": "CV", "train": "2-0", "price": 100, "variant": "2+1"})
    g.process({"type": "buy_train", "entity": "CV", "train": "2-0", "price": 75, "variant": "2"})
    assert cv.cash == 0 and g.share_price(cv) == 20 and cv.percent_owned_by("pool") == 10
    assert g.player(1).cash == 100 - 55 and len(cv.trains) == 1
    g.process({"type": "pass", "entity": "CV"})
    assert g.acting() == ["FRR"]


def test_a_president_who_cannot_pay_goes_bankrupt_and_the_game_goes_on() -> None:
    s, g = emergency_position(president_cash=20)
    cv = g.corporations["CV"]
    assert [o["type"] for o in legal_actions(g)] == ["bankrupt"]
    with pytest.raises(IllegalAction, match="CV cannot raise 75 for the 2 .*must declare bankruptcy"):
        g.process({"type": "buy_train", "entity": "CV", "train": "2-0", "price": 75, "variant": "2"})
    g.process({"type": "bankrupt", "entity": "CV"})
    # his $20 went to CV; his president's certificate went to the market and nobody can take CV over: it closes
    assert g.player(1).bankrupt and g.player(1).cash == 0 and cv.closed
    assert not g.finished and g.acting() == ["FRR"] and 1 not in g.player_order


def test_sherbrooke_yellow_tile_brings_the_shared_free_token() -> None:
    from test_1833ne_rules import track

    s = new()
    g = s.game
    track(s, K.SHERBROOKE, (0, 3, 4))  # its own "Sh" tile
    BuildStep.tile_placed(g, K.SHERBROOKE)
    slots = g.board.hex(K.SHERBROOKE).tokens[0]
    # one token shared by StL&A and A&StL (two markers, no third company crowded out); neither paid for it
    assert sorted(s for s in slots if s) == ["A&StL", "StL&A"]
    assert all(g.corporations[c].cash == 0 and g.corporations[c].tokens_placed == 0 for c in ("A&StL", "StL&A"))


def test_variable_start_corporations_launch_from_phase_two_on_a_free_city() -> None:
    s = new(4, ["takeover_game"])
    g = s.game
    spec = next(c for c in g.corporations.values() if c.home is None)
    worcester = g.board.city_id(K.WORCESTER, 0)
    with pytest.raises(IllegalAction, match="may be launched only from phase II on"):
        s.submit({"type": "par", "entity": 1, "corporation": spec.sym, "share_price": cell(s, 100),
                  "city": worcester, "slot": 0})
    g = s.game
    g.phase_index = 1
    g.edited()
    # Lowell: an empty white hex (no track) costs the $80 home token, paid from the launch money
    lowell = g.board.city_id(K.LOWELL, 0)
    g.process({"type": "par", "entity": 1, "corporation": spec.sym, "share_price": cell(s, 50),
               "city": lowell, "slot": 0})
    corp = g.corporations[spec.sym]
    assert corp.cash == 100 - 80 and g.player(1).cash == 450 - 100 and corp.home == K.LOWELL
    assert g.board.hex(K.LOWELL).tokens[0][0] == spec.sym


def test_phases_four_and_five_retire_trains_privates_ferries_and_reservations() -> None:
    s = new()
    opening(s)
    g = s.game
    cv, bw = g.corporations["CV"], g.corporations["BW"]
    two, three = g.depot.by_id("2-0"), g.depot.by_id("3/5-0")
    g.buy_train_from_depot(cv, two, 75)
    g.buy_train_from_depot(bw, three, 180)
    for sym in ("P3", "P6"):
        g.companies[sym].owner = "CV"
        cv.companies.append(sym)
    g.player(2).companies.remove("P6")
    g.title_state.ferries["F1"] = "BW"
    assert g.board.hex(K.WORCESTER).reservations[0][0] == "BW"
    g.phase_index = 3
    g.rules.phase_changed(g)  # phase IV
    assert two.rusted and two not in cv.trains  # phase-I trains leave
    assert three.obsolete and three in bw.trains and g.rules.limit_trains(g, bw) == []
    assert g.companies["P3"].closed and not g.companies["P6"].closed
    assert set(g.title_state.ferries.values()) == {"removed"}
    assert g.board.hex(K.WORCESTER).reservations[0][0] is None
    assert g.train_limit(cv) == 2
    g.phase_index = 4
    g.rules.phase_changed(g)  # phase V
    assert three.rusted and three not in bw.trains


def test_an_obsolete_train_is_not_sold_to_another_corporation() -> None:
    s = new()
    opening(s)
    g = s.game
    cv, bw = g.corporations["CV"], g.corporations["BW"]
    two = g.depot.by_id("2-0")
    g.buy_train_from_depot(cv, two, 75)
    two.obsolete = True
    step = TrainStep()
    assert two not in step.used_trains(g, bw)
    with pytest.raises(IllegalAction, match="an obsolete train cannot be sold"):
        step.check_train_from_corporation(g, bw, cv, two, 10, bw.cash)


def test_p2_bought_by_the_boston_and_lowell_frees_it_and_gives_a_free_lay_in_lowell() -> None:
    s = new()
    s.submit({"type": "par", "entity": 1, "corporation": "B&L", "share_price": cell(s, 100)})
    s.submit({"type": "buy_company", "entity": 2, "company": "P2", "price": 40})
    for pid in (3, 4, 1, 2):
        s.submit({"type": "pass", "entity": pid})
    g = s.game
    assert g.acting() == ["B&L"] and "lay_tile" not in kinds(s)  # phase I, nobody has bought P2
    s.submit({"type": "buy_company", "entity": "B&L", "company": "P2", "price": 40})
    blw = g.corporations["B&L"]
    assert blw.cash == 200 - 40 and g.player(2).cash == 450 - 40 + 10 + 40
    lay = next(o for o in legal_actions(g) if o["type"] == "lay_tile" and o["hex"] == K.LOWELL)
    s.submit(lay)
    assert blw.cash == 160 and g.board.hex(K.LOWELL).tile.color == "yellow"  # the Lowell lay was free
    other = next(o for o in legal_actions(g) if o["type"] == "lay_tile")
    s.submit(other)
    assert blw.cash < 160  # the second lay of the turn is paid as usual ($20 + terrain)


def test_a_variable_start_home_on_a_hex_with_track_costs_120_and_needs_a_start_of_60() -> None:
    s = new(4, ["takeover_game"])
    g = s.game
    g.phase_index = 1
    g.edited()
    spec = next(c for c in g.corporations.values() if c.home is None)
    # Montreal: preprinted yellow with track; StL&A (its home) is launched first, so it is no longer reserved
    g.process({"type": "par", "entity": 1, "corporation": "StL&A", "share_price": cell(s, 100)})
    assert g.acting() == [2]
    tokens = g.board.hex(K.MONTREAL).tokens
    city = g.board.city_id(K.MONTREAL, next(ci for ci, slots in enumerate(tokens) if slots[0] is None))
    with pytest.raises(IllegalAction, match="costs 120 and needs a start price of at least 60"):
        g.process({"type": "par", "entity": 2, "corporation": spec.sym, "share_price": cell(s, 50),
                   "city": city, "slot": 0})
    g.process({"type": "par", "entity": 2, "corporation": spec.sym, "share_price": cell(s, 60),
               "city": city, "slot": 0})
    assert g.corporations[spec.sym].cash == 120 - 120 and g.player(2).cash == 450 - 120


def test_a_takeover_target_may_refuse_only_while_it_has_a_running_train() -> None:
    from shared.engine.titles.g1833ne.takeover import may_refuse

    s = new(4, ["takeover_game"])
    opening(s)
    g = s.game
    bw = g.corporations["BW"]
    assert not may_refuse(g, bw)  # no train: it must accept
    two = g.depot.by_id("2-0")
    g.buy_train_from_depot(bw, two, 75)
    assert may_refuse(g, bw)
    two.obsolete = True
    assert not may_refuse(g, bw)  # only obsolete trains: it must accept


def test_players_privates_count_for_the_certificate_limit_and_corporations_do_not() -> None:
    s = new()
    opening(s)
    g = s.game
    assert g.num_certs(g.player(1)) == 2  # CV's president's certificate + P1
    cv = g.corporations["CV"]
    g.companies["P1"].owner, cv.companies = "CV", ["P1"]
    g.player(1).companies.remove("P1")
    assert g.num_certs(g.player(1)) == 1


def test_p1_blocks_quincy_until_a_corporation_buys_it() -> None:
    s = new()
    opening(s)
    g = s.game
    quincy = "H23"
    assert g.board.hex(quincy).blockers == ["P1"] or "P1" in g.board.hex(quincy).blockers
    for sym in ("B&L", "BW"):
        s.submit({"type": "pass", "entity": sym})
        s.submit({"type": "buy_train", "entity": sym, "train": f"2-{0 if sym == 'B&L' else 1}", "price": 75,
                  "variant": "2"})
        s.submit({"type": "pass", "entity": sym})
    s.submit({"type": "buy_company", "entity": "CV", "company": "P1", "price": 15})
    assert "P1" not in s.game.board.hex(quincy).blockers


def test_the_boston_and_providence_gets_its_boston_reservation_with_the_green_tile_until_phase_four() -> None:
    s = new()
    g = s.game
    boston = g.board.hex(K.BOSTON)
    BuildStep.tile_placed(g, K.BOSTON)
    assert not any("B&P" in r for r in boston.reservations)  # still the yellow preprinted tile
    g.phase_index = 1
    copy = g.board.supply.free_copy("N23")
    g.board.check_lay("B&L", K.BOSTON, f"N23-{copy}", 4, {"yellow", "green"}, must_connect=False)
    g.board.lay(K.BOSTON, f"N23-{copy}", 4)  # Boston's green tile (scenario: no company pays)
    boston = g.board.hex(K.BOSTON)
    BuildStep.tile_placed(g, K.BOSTON)
    assert any("B&P" in r for r in boston.reservations)
    g.phase_index = 3
    g.rules.phase_changed(g)
    assert not any("B&P" in r for r in boston.reservations)


def test_the_game_ends_at_once_when_all_players_but_one_are_bankrupt() -> None:
    from shared.engine.titles.g1833ne.finance import go_bankrupt

    s, g = emergency_position(president_cash=0)
    frr = g.corporations["FRR"]
    g.player(3).bankrupt = True  # scenario: player 3 went bankrupt earlier
    g.player_order = [p for p in g.player_order if p != 3]
    go_bankrupt(g, g.corporations["CV"])
    assert not frr.closed and g.finished and g.game_end_reason == "bankrupt"


# -- P4's doubling and P5's ferry (#57, #58) ---------------------------------------------------------------------
# The run helper returns (stops paid by the board, what the title adds: bonuses and ferries); their sum is the
# revenue the operating round records (`core/runs.py`: route revenues + `RunStep.extra_revenue`).
A6_TO_BOSTON_TRACK = (("C8", (2, 0)), ("C10", (3, 5)), ("D11", (2, 0)), ("D13", (3, 0)), ("D15", (3, 0)),
                      ("D17", (3, 0)), ("D19", (3, 5)), ("F21", (2, 0)), ("F23", (3, 4)))
# a 2-train runs Ogdensburg (A6) - St. Albans (C8); the run is extended over Greenfield, Fitchburg, Concord and
# Framingham into Boston's first city to collect the A6-Boston bonus of the test's table
A6_TO_BOSTON = {"train": "2-0", "connections": [["A6", "B7", "C8"], ["C8", "C10", "D11", "D13", "D15", "D17", "D19"],
                                                ["D19", "E20"], ["E20", "F21"], ["F21", "F23"], ["F23", "G22"]],
                "nodes": ["A6-0", "C8-0", "D19-0", "E20-0", "F21-0", "F23-0", "G22-0"], "extension": [0, 5]}
A6_BOSTON_BONUS = {"I": 40, "II": 40, "III": 60, "IV": 80, "V": 100}


@pytest.fixture
def a6_boston_table(swap_tables: Any) -> None:  # noqa: F811  (the imported fixture)
    """The shipped tables.json has no bonus joining A6 and Boston (see docs/1833NE.md, #57): these tests play
    with a copy that adds one, as a corrected file might."""
    swap_tables(lambda raw: raw["bonuses"].append({"key": "a6-boston", "name": "Ogdensburg-Boston", "a": ["A6"],
                                                   "b": ["G22"], "value": A6_BOSTON_BONUS, "source": "provisional"}))


def hr_from_a6_to_boston() -> GameSession:
    """HR (home Hartford) with its second station in St. Albans, and track from there to Boston."""
    s = new()
    s.submit({"type": "par", "entity": 1, "corporation": "HR", "share_price": cell(s, 100)})
    g = s.game
    for hex_id, edges in A6_TO_BOSTON_TRACK:
        track(s, hex_id, edges)
    g.board.place_home_token("HR", "C24")
    g.board.place_home_token("HR", "C8")  # scenario: the run is legal without P4's virtual station too
    return s


def test_p4_doubles_the_bonus_of_a_route_from_a6_to_boston(a6_boston_table: None) -> None:
    s = hr_from_a6_to_boston()
    # A6 $10 (phase I) + St. Albans $20 on the board; the extension pays only the bonus
    assert run(s, "HR", [A6_TO_BOSTON]) == (30, 40)
    give_private(s, K.P4, "CV")
    assert run(s, "HR", [A6_TO_BOSTON]) == (30, 40)  # P4 works for its owner only
    s.game.corporations["CV"].companies.remove(K.P4)
    give_private(s, K.P4, "HR")
    assert run(s, "HR", [A6_TO_BOSTON]) == (30, 2 * 40)
    # a route from A6 that does not reach Boston collects no bonus: nothing to double
    short = {"train": "2-0", "connections": [["A6", "B7", "C8"]], "nodes": ["A6-0", "C8-0"]}
    assert run(s, "HR", [short]) == (30, 0)


def test_p4_doubles_in_phase_three_after_its_flip_and_stops_when_phase_four_removes_it(a6_boston_table: None) -> None:
    s = hr_from_a6_to_boston()
    g = s.game
    give_private(s, K.P4, "HR")
    g.phase_index = 2
    g.rules.phase_changed(g)  # phase III: P4 flips (no income) and keeps its ability
    assert g.companies[K.P4].revenue == 0 and K.P4 in g.corporations["HR"].companies
    assert run(s, "HR", [A6_TO_BOSTON]) == (30 + 20, 2 * 60)  # A6 pays $30 from III
    g.phase_index = 3
    g.rules.phase_changed(g)  # phase IV: P3-P5 are removed
    assert run(s, "HR", [A6_TO_BOSTON]) == (30 + 20, 80)  # the IV bonus, single
    assert g.companies[K.P4].closed and K.P4 not in g.corporations["HR"].companies


def bl_to_portland_with_p5_for_sale() -> GameSession:
    """B&L ($200) with track Boston - Lowell - Portland; player 2 owns P5 and will sell it to B&L."""
    s = new()
    s.submit({"type": "par", "entity": 1, "corporation": "B&L", "share_price": cell(s, 100)})
    s.submit({"type": "buy_company", "entity": 2, "company": K.P5, "price": 70})
    boston_to_portland(s)
    return s


EXTENDED_TO_PORTLAND = {"train": "2-0", "connections": [["G22", "G20"], ["G20", "G18", "G16", "G14", "H13", "I12",
                                                                           "I14"]],
                        "nodes": ["G22-1", "G20-0", "I14-0"], "extension": [0, 1]}
BOSTON_PORTLAND_I = 50  # the shipped Boston-Portland bonus in phase I (provisional)


def test_p5_doubles_its_ferry_with_the_new_bonus() -> None:
    s = bl_to_portland_with_p5_for_sale()
    g = s.game
    bl = g.corporations["B&L"]
    bonuses.buy_ferry(g, bl, {"description": "F5"})
    # without P5: F5 (Portland) $30 + "New" $20, once
    assert run(s, "B&L", [EXTENDED_TO_PORTLAND]) == (50, BOSTON_PORTLAND_I + 30 + 20)
    CorporationFinance.corporation_buys_private(g, bl, {"company": K.P5, "price": 70})
    choose_luxury(g, {"type": "choose", "entity": "B&L", "choice": "F5"})  # its owner's choice (issue 45)
    assert g.title_state.luxury == "F5"
    # with P5: the ferry and its "New" bonus doubled; the route bonus is not a ferry's and stays single
    assert run(s, "B&L", [EXTENDED_TO_PORTLAND]) == (50, BOSTON_PORTLAND_I + 2 * (30 + 20))


def test_p5_stays_on_its_ferry_when_the_corporation_buys_another() -> None:
    s = bl_to_portland_with_p5_for_sale()
    g = s.game
    bl = g.corporations["B&L"]
    CorporationFinance.corporation_buys_private(g, bl, {"company": K.P5, "price": 70})
    assert g.title_state.luxury is None  # no ferry yet: nothing to choose
    bonuses.buy_ferry(g, bl, {"description": "F5"})
    choose_luxury(g, {"type": "choose", "entity": "B&L", "choice": "F5"})
    assert g.title_state.luxury == "F5"
    bonuses.buy_ferry(g, bl, {"description": "F1"})  # the newest ferry now: "New" moves to F1 (New Haven)
    assert g.title_state.luxury == "F5"  # never reassigned
    assert run(s, "B&L", [EXTENDED_TO_PORTLAND]) == (50, BOSTON_PORTLAND_I + 2 * 30)


def test_p5_doubles_the_last_bonus_of_the_last_ferry(swap_tables: Any) -> None:  # noqa: F811
    """New $7 and Last $11 (distinct values from a corrected file) tell the two markers apart."""
    def values(raw: dict[str, Any]) -> None:
        raw["ferries"]["new_bonus"]["value"] = 7
        raw["ferries"]["last_bonus"]["value"] = 11

    swap_tables(values)
    s = bl_to_portland_with_p5_for_sale()
    s.submit({"type": "par", "entity": 3, "corporation": "CV", "share_price": cell(s, 100)})
    g = s.game
    bl, cv = g.corporations["B&L"], g.corporations["CV"]
    CorporationFinance.corporation_buys_private(g, bl, {"company": K.P5, "price": 70})
    for fid in ("F1", "F2", "F3"):
        bonuses.buy_ferry(g, cv, {"description": fid})
    bonuses.buy_ferry(g, bl, {"description": "F5"})
    choose_luxury(g, {"type": "choose", "entity": "B&L", "choice": "F5"})
    assert run(s, "B&L", [EXTENDED_TO_PORTLAND]) == (50, BOSTON_PORTLAND_I + 2 * (30 + 7))
    bonuses.buy_ferry(g, cv, {"description": "F4"})  # the last ferry: the marker goes to F4 and reads "Last"
    assert run(s, "B&L", [EXTENDED_TO_PORTLAND]) == (50, BOSTON_PORTLAND_I + 2 * 30)
    g.title_state.ferry_order.remove("F5")
    g.title_state.ferry_order.append("F5")  # scenario: B&L had bought F5 last of all
    assert run(s, "B&L", [EXTENDED_TO_PORTLAND]) == (50, BOSTON_PORTLAND_I + 2 * (30 + 11))


def test_p5_inherited_in_a_takeover_doubles_the_acquirers_ferry() -> None:
    """The acquirer gets the target's privates and ferries; its president then chooses the ferry P5 doubles."""
    s = new(4, ["takeover_game"])
    s.submit({"type": "par", "entity": 1, "corporation": "B&L", "share_price": cell(s, 100)})
    s.submit({"type": "buy_company", "entity": 2, "company": K.P5, "price": 70})
    s.submit({"type": "par", "entity": 3, "corporation": "FRR", "share_price": cell(s, 50)})
    boston_to_portland(s)
    g = s.game
    bl, frr = g.corporations["B&L"], g.corporations["FRR"]
    bonuses.buy_ferry(g, bl, {"description": "F5"})
    CorporationFinance.corporation_buys_private(g, frr, {"company": K.P5, "price": 70})  # FRR: P5, no ferry
    assert g.title_state.luxury is None
    g.phase_index = 1  # takeovers from phase II (Boston-Portland: $50 in II as in I)
    complete_takeover(g, bl, frr)
    assert K.P5 in bl.companies and g.title_state.luxury is None
    choose_luxury(g, {"type": "choose", "entity": "B&L", "choice": "F5"})  # its new owner chooses (issue 45)
    assert run(s, "B&L", [EXTENDED_TO_PORTLAND]) == (50, BOSTON_PORTLAND_I + 2 * (30 + 20))


def test_a_corporations_share_trade_names_its_certificates_percent_and_a_used_train_has_a_price_range() -> None:
    """A corporation issuing or buying back its shares states the certificates' own percent (15% of one 10%
    certificate is refused, nothing changed), and another corporation's train is offered at any price from 1
    to all the buyer's cash, stated as the range legal-actions gives (min, step, max)."""
    record = json.loads((Path(__file__).resolve().parents[2] / "fixtures/1833NE/standard_4p_seed1.json").read_text())
    flags = final_active_flags(record["actions"])

    def at(upto: int) -> GameSession:
        session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                                  record["settings"].get("optional_rules") or [], record.get("id", 0))
        for i, action in enumerate(record["actions"][:upto]):
            session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
        return session

    session = at(28)
    issue = next(o for o in session.game.legal_actions_of(session.game.acting_players()[0], orders=False)
                 if o["type"] == "sell_shares" and o["entity"] == "HR" and len(o["shares"]) == 1)
    before = session.digest()
    for percent in (5, 11, 15):
        with pytest.raises(MalformedAction):
            session.submit(issue | {"percent": percent})
    assert session.digest() == before
    assert session.game.accepts(issue)
    session = at(42)
    game = session.game
    used = [o for o in game.legal_actions_of(game.acting_players()[0], orders=False)
            if o["type"] == "buy_train" and o["train"] == "2-4"]
    cash = game.corporations["FRR"].cash
    assert {(o["min"], o["step"], o["max"]) for o in used} == {(1, 1, cash)} and cash > 1
    assert {o["price"] for o in used} == {1, cash}
    for price in (1, cash // 2 or 1, cash):
        assert game.accepts({"type": "buy_train", "entity": "FRR", "train": "2-4", "price": price})
    assert not game.accepts({"type": "buy_train", "entity": "FRR", "train": "2-4", "price": cash + 1})

"""1833NE scenario tests: each asserts the exact money, prices and holdings the rules digest implies
(/work/shared/rules/1833NE.md), plus a refusal for each limit. No recorded games exist for this title."""

from __future__ import annotations

from typing import Any

import pytest
from play_1833ne import players

from shared.engine import GameSession
from shared.engine.board.routes import DefaultRouteRules, Route, RouteContext
from shared.engine.errors import IllegalAction
from shared.engine.legal import legal_actions
from shared.engine.model import POOL
from shared.engine.titles.g1825.routes import RouteRules1825
from shared.engine.titles.g1833ne import constants as K
from shared.engine.titles.g1833ne import p3
from shared.engine.titles.g1833ne.finance import emergency_plan, issue_limit, issue_price
from shared.engine.titles.g1833ne.steps.runs import DividendStep, RunStep
from shared.engine.titles.g1833ne.steps.track import BuildStep
from shared.engine.titles.g1833ne.steps.trains import TrainStep
from shared.engine.titles.g1833ne.takeover import (
    cash_needed,
    complete_takeover,
    pay_kinds,
    share_payment,
    takeover_price,
)


def new(n: int = 4, options: list[str] | None = None) -> GameSession:
    return GameSession.new("1833NE", players(n), seed=7, optional_rules=options or [])


def cell(price: int) -> str:
    s = new()
    return next(c.id for c in s.game.market.par_cells() if c.price == price)


def launch(s: GameSession, pid: int, corp: str, price: int) -> None:
    s.submit({"type": "par", "entity": pid, "corporation": corp, "share_price": cell(price)})


def price_of(s: GameSession, corp: str) -> int:
    return s.game.share_price(s.game.corporations[corp]) or 0


def set_price(s: GameSession, corp: str, price: int) -> None:
    row = s.game.market.grid[0]
    s.game.corporations[corp].share_cell = next((0, c.column) for c in row if c is not None and c.price == price)


def test_setup_cash_bank_and_cert_limits() -> None:
    for n, cash, limit in ((3, 600, 24), (4, 450, 18), (5, 400, 14)):
        s = new(n)
        assert [p.cash for p in s.game.players] == [cash] * n
        assert s.game.bank_cash == 10000 - n * cash
        assert s.game.rules.cert_limit(s.game) == limit
    t = new(4, ["takeover_game"])
    assert len(t.game.corporations) == 14 and t.game.rules.cert_limit(t.game) == 26


def test_launch_pays_twice_the_start_price_to_the_treasury() -> None:
    s = new()
    launch(s, 1, "CV", 100)
    cv = s.game.corporations["CV"]
    assert s.game.player(1).cash == 250 and cv.cash == 200
    assert cv.percent_owned_by(1) == 20 and cv.treasury_percent == 80
    assert cv.floated and price_of(s, "CV") == 100


@pytest.mark.parametrize("price", [30, 165])
def test_start_price_outside_40_150_is_refused(price: int) -> None:
    s = new()
    cid = next(c.id for row in s.game.market.grid for c in row if c is not None and c.price == price)
    with pytest.raises(IllegalAction):
        s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cid})


def test_treasury_share_pays_the_corporation_the_current_price() -> None:
    s = new()
    launch(s, 1, "CV", 100)
    set_price(s, "CV", 112)
    s.submit({"type": "buy_shares", "entity": 2, "shares": ["CV_1"], "percent": 10})
    assert s.game.player(2).cash == 450 - 112 and s.game.corporations["CV"].cash == 200 + 112


def test_sixty_percent_hard_limit() -> None:
    s = new(3)
    g = s.game
    launch(s, 1, "CV", 40)
    cv = g.corporations["CV"]
    for i in (1, 2, 3, 4):
        cv.give(cv.shares[i], 1)
    assert cv.percent_owned_by(1) == 60
    step = g.round.steps[0]
    g.round.index = 0
    g.round.turn_actions = []
    assert step.can_buy(g, g.round, g.player(1), cv.shares[5]) == "Player 1 may hold at most 60% of CV"


def test_only_the_president_sells_before_first_operation_and_never_his_certificate() -> None:
    s = new()
    launch(s, 1, "CV", 100)
    s.submit({"type": "buy_shares", "entity": 2, "shares": ["CV_1"], "percent": 10})
    s.submit({"type": "pass", "entity": 3})
    s.submit({"type": "pass", "entity": 4})
    s.submit({"type": "buy_shares", "entity": 1, "shares": ["CV_2"], "percent": 10})
    s.submit({"type": "pass", "entity": 1})
    g = s.game
    reason = g.round.steps[0].can_sell(g, g.round, g.player(2), g.corporations["CV"])
    assert reason == "only CV's president may sell before it has operated"
    with pytest.raises(IllegalAction, match="sell|hold"):
        s.submit({"type": "sell_shares", "entity": 2, "shares": ["CV_1"], "percent": 10})
    s.submit({"type": "pass", "entity": 2})
    s.submit({"type": "pass", "entity": 3})
    s.submit({"type": "pass", "entity": 4})
    with pytest.raises(IllegalAction, match="president's certificate"):
        s.submit({"type": "sell_shares", "entity": 1, "shares": ["CV_0"], "percent": 20})
    cash = s.game.player(1).cash
    s.submit({"type": "sell_shares", "entity": 1, "shares": ["CV_2"], "percent": 10})
    # a president's sale pays the current price and drops the price one space
    assert s.game.player(1).cash == cash + 100 and price_of(s, "CV") == 90


def test_non_president_sale_does_not_move_the_price_and_market_limit_is_50() -> None:
    s = new()
    g = s.game
    launch(s, 1, "CV", 100)
    cv = g.corporations["CV"]
    cv.operated = True
    for i in (1, 2, 3):
        cv.give(cv.shares[i], 2)
    for i in (6, 7, 8):
        cv.give(cv.shares[i], POOL)
    g.round.index = 1
    for step in g.round.steps:
        step.setup(g, g.round)
    g.edited()  # the state was changed outside `process`
    s.submit({"type": "sell_shares", "entity": 2, "shares": ["CV_1", "CV_2"], "percent": 20})
    assert price_of(s, "CV") == 100 and cv.percent_owned_by(POOL) == 50
    assert g.corporations["CV"].president == 1
    assert g.round.steps[0].can_sell(g, g.round, g.player(2), cv) == "the market already holds 50% of CV"
    with pytest.raises(IllegalAction, match="sell|hold"):
        s.submit({"type": "sell_shares", "entity": 2, "shares": ["CV_3"], "percent": 10})


def test_end_of_stock_round_moves() -> None:
    from shared.engine.titles.g1833ne.stock import finish_stock_round

    s = new()
    g = s.game
    launch(s, 1, "CV", 100)
    launch(s, 2, "FRR", 100)
    cv, frr = g.corporations["CV"], g.corporations["FRR"]
    cv.give(cv.shares[1], POOL)
    for share in frr.shares[1:]:
        frr.give(share, 3)
    finish_stock_round(g)
    assert price_of(s, "CV") == 90 and price_of(s, "FRR") == 112


@pytest.mark.parametrize("per_share,expected", [(0, 90), (49, 90), (50, 100), (99, 100), (100, 112), (199, 112),
                                                (200, 124), (300, 124)])
def test_dividend_price_movement(per_share: int, expected: int) -> None:
    s = new()
    launch(s, 1, "CV", 100)
    DividendStep.move_price(s.game, s.game.corporations["CV"], per_share)
    assert price_of(s, "CV") == expected


def test_triple_dividend_moves_three_only_from_165() -> None:
    s = new()
    launch(s, 1, "CV", 100)
    set_price(s, "CV", 165)
    DividendStep.move_price(s.game, s.game.corporations["CV"], 495)
    assert price_of(s, "CV") == 212


def test_payout_half_and_withhold_with_treasury_shares() -> None:
    s = new()
    g = s.game
    launch(s, 1, "CV", 100)
    cv = g.corporations["CV"]
    cv.give(cv.shares[1], 2)

    class R:
        revenue = 200
        routes: list[Any] = []

    bank = g.bank_cash
    DividendStep().distribute(g, R(), cv, "payout", None)  # type: ignore[arg-type]
    # $20 a share: president 2 shares, player 2 one, treasury 7 (to the corporation)
    assert g.player(1).cash == 250 + 40 and g.player(2).cash == 450 + 20 and cv.cash == 200 + 140
    assert g.bank_cash == bank - 200 and price_of(s, "CV") == 90  # $20 is less than half of $100: down one
    R.revenue = 200
    DividendStep().distribute(g, R(), cv, "half", None)  # type: ignore[arg-type]
    assert g.player(1).cash == 290 + 20 and cv.cash == 340 + 200 - 30


def test_issue_and_buy_back_prices_and_limit() -> None:
    s = new()
    g = s.game
    launch(s, 1, "CV", 100)
    cv = g.corporations["CV"]
    cv.give(cv.shares[1], 2)
    cv.give(cv.shares[2], 3)
    # players hold 40%, market 0%: four shares may be issued, each for the price one space below
    assert issue_limit(g, cv) == 4 and issue_price(g, cv) == 90
    cv.give(cv.shares[3], POOL)
    assert issue_limit(g, cv) == 3


def test_train_card_faces_and_prices() -> None:
    s = new()
    g = s.game
    faces = TrainStep.faces(g, "2")
    assert faces == [("2", 75), ("2+1", 100)]
    assert TrainStep.faces(g, "7+3") == [("7+3", 1000)]
    launch(s, 1, "CV", 100)
    cv = g.corporations["CV"]
    train = g.depot.trains[0]
    with pytest.raises(IllegalAction):
        TrainStep.check_depot_purchase(g, cv, train, 75, "2+1")
    assert TrainStep.check_depot_purchase(g, cv, train, 100, "2+1") == "2+1"


def test_emergency_plan_issues_then_president_then_sales() -> None:
    s = new()
    g = s.game
    launch(s, 1, "CV", 60)
    cv = g.corporations["CV"]
    cv.give(cv.shares[1], 2)
    cv.give(cv.shares[2], 3)
    g.pay(cv, None, cv.cash - 10)
    plan = emergency_plan(g, cv, 75)
    # players hold 40%: up to 4 forced issues, each dropping a space and fetching the price below the new one
    assert plan is not None and plan.issues == 2 and plan.issue_proceeds == 40 + 30
    assert plan.president_cash == 0
    g.pay(g.player(1), None, g.player(1).cash)
    plan = emergency_plan(g, cv, 300)
    assert plan is None


def test_phase_three_obsoletes_phase_one_trains_and_removes_privates() -> None:
    s = new()
    g = s.game
    launch(s, 1, "CV", 100)
    cv = g.corporations["CV"]
    two = g.depot.trains[0]
    g.buy_train_from_depot(cv, two, 75)
    g.companies["P3"].owner = "CV"
    cv.companies.append("P3")
    g.companies["P1"].owner = 2
    g.player(2).companies.append("P1")
    g.phase_index = 2
    g.rules.phase_changed(g)
    assert two.obsolete and two in cv.trains
    assert g.companies["P1"].closed and g.companies["P3"].revenue == 0 and not g.companies["P3"].closed
    assert TrainStep.must_buy_train(g, cv)
    RunStep.remove_obsolete(g, cv)
    assert two not in cv.trains


def test_cert_limit_drops_when_a_corporation_closes() -> None:
    s = new()
    g = s.game
    launch(s, 1, "CV", 40)
    set_price(s, "CV", 40)
    g.rules.close(g, g.corporations["CV"])
    assert g.rules.cert_limit(g) == 16


def test_takeover_inherits_and_raises_the_train_limit() -> None:
    s = new(4, ["takeover_game"])
    g = s.game
    launch(s, 1, "CV", 100)
    launch(s, 2, "FRR", 50)
    cv, frr = g.corporations["CV"], g.corporations["FRR"]
    g.pay(None, cv, 1000)
    g.buy_train_from_depot(frr, g.depot.trains[0], 75)
    frr_cash = frr.cash
    cv_cash = cv.cash
    p2 = g.player(2).cash
    limit = g.train_limit(cv)
    complete_takeover(g, cv, frr)
    # FRR's 20% (the president's certificate) is bought back at $50 a 10%
    assert g.player(2).cash == p2 + 100
    assert frr.closed and cv.cash == cv_cash - 100 + frr_cash
    assert any(t.owner == "CV" for t in cv.trains) and g.train_limit(cv) == limit + 1
    assert g.rules.cert_limit(g) == 25


def test_options_are_all_accepted() -> None:
    """Every option the steps list at the start is accepted by the checked door."""
    s = new()
    for option in legal_actions(s.game)[:20]:
        trial = GameSession.new("1833NE", players(4), seed=7)
        trial.submit(option)
    assert K.MIN_START == 40


# -- track scenarios ------------------------------------------------------------------------------------
def track(s: GameSession, hex_id: str, edges: tuple[int, ...]) -> None:
    """Lay the first yellow tile whose exits are exactly `edges` (scenario set-up, no company pays)."""
    board = s.game.board
    for name, tile in sorted(board.catalogue.items()):
        copy = board.supply.free_copy(name)
        if tile.color != "yellow" or copy is None:
            continue
        for rot in range(6):
            if set(tile.rexits[rot]) != set(edges):
                continue
            try:
                board.check_lay("B&L", hex_id, f"{name}-{copy}", rot, {"yellow"}, must_connect=False)
            except IllegalAction:
                continue
            board.lay(hex_id, f"{name}-{copy}", rot)
            return
    raise AssertionError(f"no yellow tile joins edges {edges} of {hex_id}")


def boston_to_portland(s: GameSession) -> None:
    """Track from Boston's second city through Lowell to Portland (which is reached only from I12)."""
    s.game.board.remove_blocker(K.P2)
    for hex_id, edges in (("G20", (0, 3)), ("G18", (0, 3)), ("G16", (0, 3)), ("G14", (0, 4)), ("H13", (1, 4)),
                          ("I12", (0, 1))):
        track(s, hex_id, edges)
    s.game.board.place_home_token("B&L", K.BOSTON, 1)


BOSTON_LOWELL_PORTLAND = {"train": "2-0", "connections": [["G22", "G20"], ["G20", "G18", "G16", "G14", "H13", "I12",
                                                                          "I14"]],
                          "nodes": ["G22-1", "G20-0", "I14-0"]}


def run(s: GameSession, corp: str, routes: list[dict[str, Any]]) -> tuple[int, int]:
    """(stops paid by the board, bonuses and ferries the title adds) for a run."""
    g = s.game
    revenue = g.board.route_revenues(corp, routes, g.rules.train_kinds(g), g.phase.tiles, g.phase.name)

    class R:
        pass

    R.routes = routes  # type: ignore[attr-defined]
    return sum(revenue), RunStep().extra_revenue(g, R(), g.corporations[corp])  # type: ignore[arg-type]


def test_a_run_extended_past_the_train_collects_the_bonus_but_not_the_extra_stops() -> None:
    s = new()
    boston_to_portland(s)
    with pytest.raises(IllegalAction, match="too many for a 2-train"):
        run(s, "B&L", [BOSTON_LOWELL_PORTLAND])
    # the 2-train runs Boston ($30) - Lowell ($20); the extension to Portland pays only Boston-Portland ($50)
    assert run(s, "B&L", [dict(BOSTON_LOWELL_PORTLAND, extension=[0, 1])]) == (50, 50)
    # the train's own part must be legal by itself: Lowell - Portland has no B&L station
    with pytest.raises(IllegalAction, match="does not touch a B&L token"):
        run(s, "B&L", [dict(BOSTON_LOWELL_PORTLAND, extension=[1, 0])])


def test_an_extension_may_pass_a_full_city_and_must_collect_a_bonus(monkeypatch: pytest.MonkeyPatch) -> None:
    s = new()
    boston_to_portland(s)
    s.game.board.place_token("BW", s.game.board.city_id("G20", 0), 0)  # Lowell is full for B&L
    three = dict(BOSTON_LOWELL_PORTLAND, train="3/5-0")
    s.game.title_state.faces["3/5-0"] = "3/5"
    with pytest.raises(IllegalAction, match="cannot be passed through"):
        run(s, "B&L", [three])
    assert run(s, "B&L", [dict(BOSTON_LOWELL_PORTLAND, extension=[0, 1])]) == (50, 50)
    rules = s.game.board.rules  # shared by every game of this definition: restored after the test
    monkeypatch.setattr(rules, "extension_bonuses", tuple((a, b, (("I", 0),)) if K.PORTLAND in a | b else (a, b, v)
                                                          for a, b, v in rules.extension_bonuses))
    with pytest.raises(IllegalAction, match="collects no bonus"):
        run(s, "B&L", [dict(BOSTON_LOWELL_PORTLAND, extension=[0, 1])])


def test_other_rule_sets_refuse_extensions() -> None:
    s = new()
    g = s.game
    ctx = RouteContext(g.board, "B&L", ("yellow",), "I")
    route = Route("2-0", g.rules.train_kinds(g)["2"], [("G22", 0), ("G20", 0), ("I14", 0)], extension=(0, 1))
    for rules in (DefaultRouteRules(), RouteRules1825()):
        with pytest.raises(IllegalAction, match="cannot be extended"):
            rules.check_extension(ctx, route)


def give_private(s: GameSession, sym: str, corp: str) -> None:
    g = s.game
    g.companies[sym].owner = corp
    g.corporations[corp].companies.append(sym)
    g.rules.sync_virtual_stations(g)


def test_p4_builds_and_runs_from_a6_as_if_it_had_a_station() -> None:
    s = new()
    g = s.game
    launch(s, 1, "HR", 100)
    g.board.place_home_token("HR", "C24")
    assert not {h for h, _, _ in g.board.legal_lays("HR", {"yellow"})} & {"B9", "C8"}
    track(s, "C8", (2, 0))  # St. Albans, joined to the gray B7 that leads to A6
    route = {"train": "2-0", "connections": [["A6", "B7", "C8"]], "nodes": ["A6-0", "C8-0"]}
    with pytest.raises(IllegalAction, match="does not touch a HR token"):
        run(s, "HR", [route])
    give_private(s, K.P4, "HR")
    assert {"B9", "C10"} <= {h for h, _, _ in g.board.legal_lays("HR", {"yellow"})}
    # A6 $10 (phase I) + St. Albans $20; no bonus on this route
    assert run(s, "HR", [route]) == (30, 0)


def test_p6_builds_and_runs_from_a12_which_pays_only_via_montreal() -> None:
    s = new()
    g = s.game
    launch(s, 1, "HR", 100)
    g.board.place_home_token("HR", "C24")
    route = {"train": "2-0", "connections": [["A12", "B11"]], "nodes": ["A12-0", "B11-0"]}
    give_private(s, K.P6, "HR")
    assert "B9" in {h for h, _, _ in g.board.legal_lays("HR", {"yellow"})}
    # A12 $40 + Westport $20 on the board; the title takes A12's $40 back (Montreal is not on the route)
    assert run(s, "HR", [route]) == (60, -40)
    give_private(s, K.P6, "CV")
    g.corporations["HR"].companies.remove(K.P6)
    g.rules.sync_virtual_stations(g)
    with pytest.raises(IllegalAction, match="does not touch a HR token"):
        run(s, "HR", [route])


def p3_lays(s: GameSession, corp: str, hex_id: str) -> list[dict[str, Any]]:
    g = s.game
    return [o for o in BuildStep.lay_options(g, g.round, g.corporations[corp], None) if o["hex"] == hex_id]


def exits(s: GameSession, hex_id: str) -> set[int]:
    h = s.game.board.hex(hex_id)
    return set(h.tile.rexits[h.rotation])


def test_p3_lays_join_each_other_and_montreal_in_either_order() -> None:
    s = new()
    g = s.game
    launch(s, 1, "CV", 100)
    give_private(s, K.P3, "CV")
    g.board.remove_blocker(K.P3)
    cv = g.corporations["CV"]
    c6 = p3_lays(s, "CV", "C6")
    assert c6 and all(3 in g.board.catalogue[o["tile"].rpartition("-")[0]].rexits[o["rotation"]] for o in c6)
    p3.lay(g, cv, c6[0])
    # with C6 laid, every C4 option faces both Montreal (edge 2) and C6 (edge 0)
    c4 = p3_lays(s, "CV", "C4")
    assert c4 and all({0, 2} <= set(g.board.catalogue[o["tile"].rpartition("-")[0]].rexits[o["rotation"]])
                      for o in c4)
    p3.lay(g, cv, c4[0])
    assert {0, 2} <= exits(s, "C4") and 3 in exits(s, "C6")
    assert cv.cash == 200 and g.title_state.p3_left == 0 and not p3_lays(s, "CV", "C4")


def test_p3_tiles_come_from_the_data_and_fit_their_hex() -> None:
    """P3's hexes and tiles are the board data's (3, 4, 7, 8, 9, 58): town tiles fit St. Jean (C4), plain C6."""
    s = new()
    g = s.game
    launch(s, 1, "CV", 100)
    give_private(s, K.P3, "CV")
    g.board.remove_blocker(K.P3)
    assert {o["tile"].rpartition("-")[0] for o in p3_lays(s, "CV", "C6")} <= {"7", "8", "9"}
    seven = {"type": "lay_tile", "entity": "CV", "hex": "C4", "tile": "7-0", "rotation": 0, "ability": K.P3}
    with pytest.raises(IllegalAction):
        p3.lay(g, g.corporations["CV"], seven)
    with pytest.raises(IllegalAction, match="tile 57 is not allowed"):
        p3.lay(g, g.corporations["CV"], dict(seven, tile="57-0"))
    with pytest.raises(IllegalAction, match="go on C4 and C6, not D5"):
        p3.lay(g, g.corporations["CV"], dict(seven, hex="D5"))
    p3.lay(g, g.corporations["CV"], p3_lays(s, "CV", "C6")[0])
    assert {o["tile"].rpartition("-")[0] for o in p3_lays(s, "CV", "C4")} <= {"3", "4", "58"}
    assert p3_lays(s, "CV", "C4") and g.title_state.p3_left == 1


def test_p3_lay_must_join_a_tile_already_on_the_other_hex() -> None:
    s = new()
    g = s.game
    launch(s, 1, "CV", 100)
    give_private(s, K.P3, "CV")
    g.board.remove_blocker(K.P3)
    track(s, "C4", (2, 3))  # laid since the blockers went: Montreal - C2, not toward C6
    assert p3_lays(s, "CV", "C6") == [] and p3.lays_left(g, g.corporations["CV"])
    nine = f"9-{g.board.supply.free_copy('9')}"
    rot = next(r for r in range(6) if g.board.catalogue["9"].rexits[r] == {0, 3})
    with pytest.raises(IllegalAction, match="the tile on C4 does not connect to C6"):
        p3.lay(g, g.corporations["CV"], {"type": "lay_tile", "entity": "CV", "hex": "C6",
                                          "tile": nine, "rotation": rot, "ability": K.P3})


def test_takeover_paid_in_the_acquirers_own_shares() -> None:
    s = new(4, ["takeover_game"])
    g = s.game
    launch(s, 1, "CV", 100)
    launch(s, 2, "FRR", 50)
    cv, frr = g.corporations["CV"], g.corporations["FRR"]
    frr.give(frr.shares[1], 3)
    frr.give(frr.shares[2], POOL)
    # dues at $50 a 10%: player 2 $100, player 3 $50, the market $50
    assert takeover_price(g, frr) == 200 and share_payment(g, cv, frr) == {2: 1}
    assert cash_needed(g, cv, frr, "shares") == 100 and pay_kinds(g, cv, frr) == ["cash", "shares"]
    cv_cash, frr_cash, p2, p3, bank = cv.cash, frr.cash, g.player(2).cash, g.player(3).cash, g.bank_cash
    complete_takeover(g, cv, frr, "shares")
    # player 2 gets one CV share worth $100; player 3 ($50, less than a CV share) and the market are paid cash
    assert cv.percent_owned_by(2) == 10 and g.player(2).cash == p2
    assert g.player(3).cash == p3 + 50 and g.bank_cash == bank + 50
    assert cv.cash == cv_cash - 100 + frr_cash and cv.treasury_percent == 70 and cv.president == 1


def test_takeover_in_shares_respects_the_60_percent_limit() -> None:
    s = new(4, ["takeover_game"])
    g = s.game
    launch(s, 1, "CV", 40)
    launch(s, 2, "FRR", 150)
    cv, frr = g.corporations["CV"], g.corporations["FRR"]
    for share in cv.shares[1:5]:
        cv.give(share, 2)
    # player 2 holds 40% of CV: room for two more shares although his $300 due would buy seven
    assert share_payment(g, cv, frr) == {2: 2} and cash_needed(g, cv, frr, "shares") == 300 - 80

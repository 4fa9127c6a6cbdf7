"""1833NE scenario tests: each asserts the exact money, prices and holdings the rules digest implies
(/work/shared/rules/1833NE.md), plus a refusal for each limit. No recorded games exist for this title."""

from __future__ import annotations

from typing import Any

import pytest
from play_1833ne import players

from shared.engine import GameSession
from shared.engine.errors import IllegalAction
from shared.engine.model import POOL
from shared.engine.titles.g1833ne import constants as K
from shared.engine.titles.g1833ne.finance import emergency_plan, issue_limit, issue_price
from shared.engine.titles.g1833ne.operating import step_options
from shared.engine.titles.g1833ne.takeover import complete_takeover


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
    s.game.rules.move_price(s.game, s.game.corporations["CV"], per_share)
    assert price_of(s, "CV") == expected


def test_triple_dividend_moves_three_only_from_165() -> None:
    s = new()
    launch(s, 1, "CV", 100)
    set_price(s, "CV", 165)
    s.game.rules.move_price(s.game, s.game.corporations["CV"], 495)
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
    g.rules.distribute(g, R(), cv, "payout", None)  # type: ignore[arg-type]
    # $20 a share: president 2 shares, player 2 one, treasury 7 (to the corporation)
    assert g.player(1).cash == 250 + 40 and g.player(2).cash == 450 + 20 and cv.cash == 200 + 140
    assert g.bank_cash == bank - 200 and price_of(s, "CV") == 90  # $20 is less than half of $100: down one
    R.revenue = 200
    g.rules.distribute(g, R(), cv, "half", None)  # type: ignore[arg-type]
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
    faces = g.rules.faces(g, "2")
    assert faces == [("2", 75), ("2+1", 100)]
    assert g.rules.faces(g, "7+3") == [("7+3", 1000)]
    launch(s, 1, "CV", 100)
    cv = g.corporations["CV"]
    train = g.depot.trains[0]
    with pytest.raises(IllegalAction):
        g.rules.check_depot_purchase(g, cv, train, 75, "2+1")
    assert g.rules.check_depot_purchase(g, cv, train, 100, "2+1") == "2+1"


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
    assert g.rules.must_buy_train(g, cv)
    g.rules.remove_obsolete(g, cv)
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
    for option in step_options(s.game)[:20]:
        trial = GameSession.new("1833NE", players(4), seed=7)
        trial.submit(option)
    assert K.MIN_START == 40

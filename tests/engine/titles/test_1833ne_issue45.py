"""1833NE rules the independent audit of issue 45 found wrong, and the readings decided for what the seed leaves
open: scenario tests built from the rule (docs/1833NE.md, "The independent audit (issue 45)"), each played
through the session (money, prices, holdings, who acts and what he is offered)."""

from __future__ import annotations

from typing import Any

import pytest
from test_1833ne_audit import BOSTON_PORTLAND_I, EXTENDED_TO_PORTLAND, cell, new
from test_1833ne_rules import boston_to_portland, run, set_price

from shared.engine import GameSession
from shared.engine.errors import IllegalAction
from shared.engine.legal import legal_actions
from shared.engine.model import POOL
from shared.engine.titles.g1833ne import bonuses
from shared.engine.titles.g1833ne import constants as K
from shared.engine.titles.g1833ne.steps.trains import TrainStep


def offered(g: Any) -> set[str]:
    return {o["type"] for o in legal_actions(g)}


def cv_without_a_train(president_cash: int, cv_cash: int = 0, frr_share: bool = False) -> GameSession:
    """3 players. CV launched at $40 by player 1 (its 20% certificate only); player 3 holds 20% of CV; FRR
    ($100) is player 2's (player 1 holds 10% of it with `frr_share`). CV runs nothing in OR 1 (40 -> 30) and must
    buy a train with `cv_cash`, its president holding `president_cash`."""
    s = new(3)
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(s, 40)})
    s.submit({"type": "par", "entity": 2, "corporation": "FRR", "share_price": cell(s, 100)})
    s.submit({"type": "buy_shares", "entity": 3, "shares": ["CV_1"], "percent": 10})
    if frr_share:
        s.submit({"type": "buy_shares", "entity": 1, "shares": ["FRR_1"], "percent": 10})
    else:
        s.submit({"type": "pass", "entity": 1})
    s.submit({"type": "pass", "entity": 2})
    s.submit({"type": "buy_shares", "entity": 3, "shares": ["CV_2"], "percent": 10})
    for pid in (1, 2, 3):
        s.submit({"type": "pass", "entity": pid})
    g = s.game
    assert g.acting() == ["CV"]
    cv = g.corporations["CV"]
    g.pay(cv, None, cv.cash - cv_cash)
    g.pay(g.player(1), None, g.player(1).cash - president_cash)
    g.edited()
    s.submit({"type": "pass", "entity": "CV"})  # builds nothing; no train: no run, 40 -> 30
    assert g.share_price(cv) == 30 and g.acting() == ["CV"]
    return s


# -- 1. the forced issues come before the president's money and before his bankruptcy ----------------------------
def test_a_bankrupt_president_s_corporation_has_issued_first() -> None:
    s = cv_without_a_train(president_cash=15)
    g = s.game
    cv = g.corporations["CV"]
    # $0 + one forced issue (30 -> 20, fetching $10; a second would go under $20) + his $15 < $75: bankrupt
    assert offered(g) == {"bankrupt"}
    s.submit({"type": "bankrupt", "entity": "CV"})
    assert g.player(1).bankrupt
    assert g.share_price(cv) == 20  # the forced issue moved the price once
    assert cv.percent_owned_by(cv.sym) == 50  # 60% in the treasury before, one share issued


# -- 2. an obsolete train on sale does not block the emergency purchase, nor meet the duty ------------------------
def phase_five_with_trains_handed_back(s: GameSession) -> None:
    """Every card up to the 6/9s sold; a 3/5 and a 4/7 handed back to the bank in phase IV (the limit fell to
    2); then phase V: the 3/5 is removed, the 4/7 is obsolete; only 7+3s ($1,000) are new."""
    g = s.game
    for train in g.depot.trains:
        if train.name != "7+3":
            train.rusted = True  # sold and gone (scenario set-up)
    for tid in ("3/5-4", "4/7-5"):
        train = g.depot.by_id(tid)
        assert train is not None
        train.rusted = False
        g.depot.discarded.append(train)
    for phase in (3, 4):
        g.phase_index = phase
        g.rules.phase_changed(g)
    g.edited()
    assert g.phase.name == "V" and g.depot.by_id("4/7-5").obsolete and g.depot.by_id("3/5-4").rusted


def test_an_obsolete_train_on_sale_does_not_block_the_emergency_purchase() -> None:
    s = cv_without_a_train(president_cash=1100)
    phase_five_with_trains_handed_back(s)
    g = s.game
    cv = g.corporations["CV"]
    # the only train type on sale that meets the duty is the 7+3: one forced issue ($10), the president pays 990
    assert [(o["type"], o["train"], o["price"]) for o in legal_actions(g)] == [("buy_train", "7+3-0", 1000)]
    # the obsolete 4/7 is refused (the 3+3 face would be the cheapest), the removed 3/5 is not on sale
    with pytest.raises(IllegalAction, match="obsolete train does not meet the duty"):
        g.process({"type": "buy_train", "entity": "CV", "train": "4/7-5", "price": 230, "variant": "3+3"})
    with pytest.raises(IllegalAction, match="not for sale"):
        g.process({"type": "buy_train", "entity": "CV", "train": "3/5-4", "price": 140, "variant": "2+2"})
    g.process({"type": "buy_train", "entity": "CV", "train": "7+3-0", "price": 1000, "variant": "7+3"})
    assert [t.id for t in cv.trains] == ["7+3-0"] and g.player(1).cash == 1100 - 990
    assert not TrainStep.must_buy_train(g, cv)


def test_an_obsolete_train_is_not_bought_to_meet_the_duty_with_the_corporations_own_money() -> None:
    s = cv_without_a_train(president_cash=1100, cv_cash=300)
    phase_five_with_trains_handed_back(s)
    g = s.game
    # $300 would pay for the obsolete 3+3 ($230): it is neither offered nor sold; the 7+3 is (300 + 10 + 690)
    assert [(o["train"], o["price"]) for o in legal_actions(g) if o["type"] == "buy_train"] == [("7+3-0", 1000)]
    with pytest.raises(IllegalAction, match="obsolete train does not meet the duty"):
        g.process({"type": "buy_train", "entity": "CV", "train": "4/7-5", "price": 230, "variant": "3+3"})
    assert g.corporations["CV"].cash == 300 and not g.corporations["CV"].trains


# -- 3. a president's sales in one turn drop the price once ----------------------------------------------------
def cv_held_40_30() -> GameSession:
    """4 players; CV at $60: player 1 (president) 40%, player 2 30%; CV has operated; player 1's turn."""
    s = new(4)
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(s, 60)})
    for shares in (["CV_1"], ["CV_2"], ["CV_3"]):
        s.submit({"type": "buy_shares", "entity": 2, "shares": shares, "percent": 10})
        s.submit({"type": "pass", "entity": 3})
        s.submit({"type": "pass", "entity": 4})
        if shares != ["CV_3"]:
            s.submit({"type": "buy_shares", "entity": 1, "shares": [f"CV_{3 + int(shares[0][-1])}"],
                      "percent": 10})
            s.submit({"type": "pass", "entity": 1})
    g = s.game
    cv = g.corporations["CV"]
    cv.operated = True  # after its first run anybody may sell (scenario set-up)
    g.edited()
    assert g.acting() == [1] and cv.percent_owned_by(1) == 40 and cv.percent_owned_by(2) == 30
    return s


def test_a_presidents_sales_in_one_turn_drop_the_price_once() -> None:
    s = cv_held_40_30()
    g = s.game
    cv = g.corporations["CV"]
    cash = g.player(1).cash
    s.submit({"type": "sell_shares", "entity": 1, "shares": ["CV_4"], "percent": 10})
    assert g.share_price(cv) == 50 and g.player(1).cash == cash + 60
    s.submit({"type": "sell_shares", "entity": 1, "shares": ["CV_5"], "percent": 10})
    # the same as one sale of both: one space down (60 -> 50), both certificates at 60
    assert g.share_price(cv) == 50 and g.player(1).cash == cash + 120
    s.submit({"type": "pass", "entity": 1})
    assert g.acting() == [2]  # player 2 (30%) is president now; his sale in his own turn is a new one
    held = next(sh.id for sh in cv.shares if sh.owner == 2 and not sh.president)
    s.submit({"type": "sell_shares", "entity": 2, "shares": [held], "percent": 10})
    assert g.share_price(cv) == 40


# -- R1. a bankrupt player's remaining shares are sold unmoved, for the corporation that needed the train --------
def test_a_bankrupt_players_remaining_shares_pay_the_corporation_that_needed_the_train() -> None:
    s = cv_without_a_train(president_cash=15, frr_share=True)
    g = s.game
    cv, frr = g.corporations["CV"], g.corporations["FRR"]
    # FRR has not operated yet, so only its president may sell it: player 1's FRR share cannot be sold in the
    # emergency, and $0 + $10 (one forced issue) + $15 < $75: bankrupt
    assert offered(g) == {"bankrupt"}
    s.submit({"type": "bankrupt", "entity": "CV"})
    # his $15, then his CV president's certificate (20% at $20) and his FRR share ($100) sold unmoved, for CV
    assert cv.cash == 10 + 15 + 40 + 100
    assert g.share_price(cv) == 20 and g.share_price(frr) == 100
    assert frr.percent_owned_by(POOL) == 10 and cv.president == 3 and g.player(1).cash == 0
    # the new president buys the train, CV paying it alone
    cash = g.player(3).cash
    assert g.acting() == ["CV"]
    s.submit({"type": "buy_train", "entity": "CV", "train": "2-0", "price": 75, "variant": "2"})
    assert cv.cash == 165 - 75 and g.player(3).cash == cash and len(cv.trains) == 1


# -- R2. P5's owner chooses the ferry it doubles, once ------------------------------------------------------------
def test_p5s_owner_chooses_its_ferry_once() -> None:
    s = new(4)
    s.submit({"type": "par", "entity": 1, "corporation": "B&L", "share_price": cell(s, 100)})
    s.submit({"type": "buy_company", "entity": 2, "company": K.P5, "price": 70})
    boston_to_portland(s)
    for pid in (3, 4, 1, 2):
        s.submit({"type": "pass", "entity": pid})
    g = s.game
    bl = g.corporations["B&L"]
    assert g.acting() == ["B&L"]
    bonuses.buy_ferry(g, bl, {"description": "F1"})  # New Haven, bought first
    bonuses.buy_ferry(g, bl, {"description": "F5"})  # Portland, the newest: "New"
    g.edited()
    s.submit({"type": "buy_company", "entity": "B&L", "company": K.P5, "price": 70})
    # P5 doubles nothing until its owner chooses; each of its ferries is offered
    assert g.title_state.luxury is None
    assert run(s, "B&L", [EXTENDED_TO_PORTLAND]) == (50, BOSTON_PORTLAND_I + 30 + 20)
    assert sorted(o["choice"] for o in legal_actions(g) if o["type"] == "choose") == ["F1", "F5"]
    with pytest.raises(IllegalAction, match="F3"):
        g.process({"type": "choose", "entity": "B&L", "choice": "F3"})  # not one of its ferries
    s.submit({"type": "choose", "entity": "B&L", "choice": "F5"})
    assert g.title_state.luxury == "F5"
    assert run(s, "B&L", [EXTENDED_TO_PORTLAND]) == (50, BOSTON_PORTLAND_I + 2 * (30 + 20))
    # chosen once: never offered or accepted again
    assert not [o for o in legal_actions(g) if o["type"] == "choose"]
    with pytest.raises(IllegalAction, match="once"):
        g.process({"type": "choose", "entity": "B&L", "choice": "F1"})
    assert g.title_state.luxury == "F5"


# -- R3. in an emergency the president chooses which of his shares he sells ------------------------------------
def cv_short_with_shares_to_sell() -> GameSession:
    """3 players. Player 1 launches CV at $40 and buys FRR_1 ($100, player 2's) and B&L_1 ($60, player 3's);
    FRR and B&L count as having run. CV runs nothing in OR 1 (40 -> 30); it has $0, player 1 has $20."""
    s = new(3)
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(s, 40)})
    s.submit({"type": "par", "entity": 2, "corporation": "FRR", "share_price": cell(s, 100)})
    s.submit({"type": "par", "entity": 3, "corporation": "B&L", "share_price": cell(s, 60)})
    s.submit({"type": "buy_shares", "entity": 1, "shares": ["FRR_1"], "percent": 10})
    s.submit({"type": "pass", "entity": 2})
    s.submit({"type": "pass", "entity": 3})
    s.submit({"type": "buy_shares", "entity": 1, "shares": ["B&L_1"], "percent": 10})
    for pid in (2, 3, 1):
        s.submit({"type": "pass", "entity": pid})
    g = s.game
    assert g.acting() == ["CV"]
    for sym in ("FRR", "B&L"):
        g.corporations[sym].operated = True  # (scenario set-up) anybody may sell them
    cv = g.corporations["CV"]
    g.pay(cv, None, cv.cash)
    g.pay(g.player(1), None, g.player(1).cash - 20)
    g.edited()
    s.submit({"type": "pass", "entity": "CV"})
    assert g.share_price(cv) == 30 and g.acting() == ["CV"]
    return s


def test_in_an_emergency_the_president_chooses_what_he_sells() -> None:
    s = cv_short_with_shares_to_sell()
    g = s.game
    cv = g.corporations["CV"]
    # $0 + one forced issue ($10) + his $20 leave $45 of the $75: either share covers it, so he may sell either
    # (one of them: the second would go beyond the need); CV's president's certificate is never offered
    sales = [(o["entity"], tuple(o["shares"])) for o in legal_actions(g) if o["type"] == "sell_shares"]
    assert sorted(sales) == [(1, ("B&L_1",)), (1, ("FRR_1",))]
    assert offered(g) == {"sell_shares"}
    with pytest.raises(IllegalAction, match="sell"):
        g.process({"type": "buy_train", "entity": "CV", "train": "2-0", "price": 75, "variant": "2"})
    # he keeps the dearer FRR and sells B&L (the engine used to sell the dearest first)
    s.submit({"type": "sell_shares", "entity": 1, "shares": ["B&L_1"], "percent": 10})
    assert g.player(1).cash == 20 + 60 and g.share_price(g.corporations["B&L"]) == 60  # not its president
    assert g.share_price(cv) == 20 and cv.cash == 10  # the forced issue came first
    assert g.corporations["FRR"].percent_owned_by(1) == 10
    assert [(o["type"], o["price"]) for o in legal_actions(g)] == [("buy_train", 75)]
    s.submit({"type": "buy_train", "entity": "CV", "train": "2-0", "price": 75, "variant": "2"})
    assert cv.cash == 0 and g.player(1).cash == 80 - 65 and len(cv.trains) == 1


def test_an_emergency_sale_beyond_the_limits_or_the_need_is_refused() -> None:
    s = cv_short_with_shares_to_sell()
    g = s.game
    bl = g.corporations["B&L"]
    bl.give(bl.shares[2], 1)  # (scenario set-up) player 1 holds B&L_1 and B&L_2
    g.edited()
    sales = sorted(tuple(o["shares"]) for o in legal_actions(g) if o["type"] == "sell_shares")
    assert sales == [("B&L_1",), ("FRR_1",)]  # one B&L certificate ($60) covers the $45: never two
    with pytest.raises(IllegalAction, match="stops once the amount is reached"):
        g.process({"type": "sell_shares", "entity": 1, "shares": ["B&L_1", "B&L_2"], "percent": 20})
    with pytest.raises(IllegalAction, match="president's certificate is never sold"):
        g.process({"type": "sell_shares", "entity": 1, "shares": ["CV_0"], "percent": 20})
    with pytest.raises(IllegalAction, match="only CV's president"):
        g.process({"type": "sell_shares", "entity": 2, "shares": ["FRR_2"], "percent": 10})
    with pytest.raises(IllegalAction, match="emergency issues|forced ones"):
        g.process({"type": "sell_shares", "entity": "CV", "shares": ["CV_5"], "percent": 10})
    assert g.player(1).cash == 20 and g.share_price(g.corporations["CV"]) == 30  # nothing moved


def test_in_an_emergency_the_forced_issues_may_pay_the_dearer_face_but_the_presidents_money_may_not() -> None:
    s = cv_without_a_train(president_cash=500, cv_cash=70)
    g = s.game
    cv = g.corporations["CV"]
    set_price(s, "CV", 60)  # (scenario set-up)
    # $70 + one forced issue (60 -> 50, fetching $40) pay the 2+1 ($100) without the president: both faces
    offers = sorted((o["variant"], o["price"]) for o in legal_actions(g) if o["type"] == "buy_train")
    assert offers == [("2", 75), ("2+1", 100)]
    s.submit({"type": "buy_train", "entity": "CV", "train": "2-0", "price": 100, "variant": "2+1"})
    assert cv.cash == 10 and g.player(1).cash == 500 and g.share_price(cv) == 50
    # at $50 with $0, three forced issues fetch $30 + $20 + $10: the 2+1 would need the president's money
    s = cv_without_a_train(president_cash=500)
    set_price(s, "CV", 50)
    offers = sorted((o["variant"], o["price"]) for o in legal_actions(s.game) if o["type"] == "buy_train")
    assert offers == [("2", 75)]

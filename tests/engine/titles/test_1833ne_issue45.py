"""1833NE rules the independent audit of issue 45 found wrong, and the readings decided for what the seed leaves
open: scenario tests built from the rule (docs/1833NE.md, "The independent audit (issue 45)"), each played
through the session (money, prices, holdings, who acts and what he is offered)."""

from __future__ import annotations

from typing import Any

from test_1833ne_audit import cell, new

from shared.engine import GameSession
from shared.engine.legal import legal_actions


def offered(g: Any) -> set[str]:
    return {o["type"] for o in legal_actions(g)}


def cv_without_a_train(president_cash: int, cv_cash: int = 0) -> GameSession:
    """3 players. CV launched at $40 by player 1 (its 20% certificate only); player 3 holds 20% of CV; FRR
    ($100) is player 2's. CV runs nothing in OR 1 (40 -> 30) and must buy a train with `cv_cash`, its president
    holding `president_cash`."""
    s = new(3)
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(s, 40)})
    s.submit({"type": "par", "entity": 2, "corporation": "FRR", "share_price": cell(s, 100)})
    s.submit({"type": "buy_shares", "entity": 3, "shares": ["CV_1"], "percent": 10})
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

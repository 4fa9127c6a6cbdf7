"""1825: every move Railpost offers is one the rules allow, and a game always has a move or an end.

Scenarios for the rules of docs/rules-1825.md that the reverse check (Railpost's own random games replayed
strictly by the reference) showed missing: each starts from a real position of a generated game
(`position(name, i)`: the game right before action i of the record).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from positions_1825 import position

from shared.engine import GameSession, IllegalAction
from shared.engine.game import Game


def act(kind: str, entity: int, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "entity": entity, **fields}


# -- no buying back a private sold this round ------------------------------------------------------------
# Unit 1, 4 players, SR2 (turn 2), 1003 to act with £73 and C&W (value 130, sells for 100); 1001 has £152
# and S&M, every private is owned, so nobody is offered a private before the sale.
U1_4P = "gen1825_unit_1_4p_256123"
SR2 = 31


def test_a_private_sold_this_round_is_not_offered_back_to_its_seller() -> None:
    game = position(U1_4P, SR2)
    assert game.acting() == [1003] and "buy_company" not in game.action_types(1003)
    game.process(act("sell_company", 1003, company="C&W", price=100))
    assert game.player(1003).cash == 73 + 100
    assert game.companies["C&W"].owner == "bank"
    assert game.acting() == [1003]  # selling is not his turn's purchase: he may still buy
    assert "buy_company" not in game.action_types(1003)
    assert not [a for a in game.legal_actions(1003) if a["type"] == "buy_company"]
    with pytest.raises(IllegalAction) as caught:
        game.process(act("buy_company", 1003, company="C&W", price=130))
    assert caught.value.rule == "buy_back_company"
    assert "may not buy it back" in str(caught.value)
    assert game.player(1003).cash == 173 and game.companies["C&W"].owner == "bank"


def test_another_player_may_buy_the_sold_private() -> None:
    game = position(U1_4P, SR2)
    game.process(act("sell_company", 1003, company="C&W", price=100))
    game.process(act("pass", 1003))
    while game.acting() != [1001]:
        game.process(act("pass", game.acting()[0]))
    assert {"type": "buy_company", "entity": 1001, "entity_type": "player", "company": "C&W", "price": 130} \
        in game.legal_actions(1001)
    game.process(act("buy_company", 1001, company="C&W", price=130))
    assert game.player(1001).cash == 152 - 130
    assert game.companies["C&W"].owner == 1001
    # later in the same round the seller is still not offered it (nor any other private: none is left)
    while game.acting() and game.acting() != [1003] and game.round.kind == "Stock":
        game.process(act("pass", game.acting()[0]))
    if game.acting() == [1003]:
        assert "buy_company" not in game.action_types(1003)


# -- a game that cannot end ends after turn 100 ----------------------------------------------------------
def _pass_round(game: Game) -> None:
    """Everybody passes until the stock round is over (or the game)."""
    while game.acting() and game.round.kind == "Stock":
        game.process(act("pass", game.acting()[0]))


def test_the_round_that_ends_turn_100_ends_the_game_unfinished() -> None:
    game = position(U1_4P, SR2)
    game.turn = 100
    result = {str(p.id): p.cash for p in game.players}
    _pass_round(game)
    assert game.finished and game.game_end_reason == "dnf"
    assert game.acting() == [] and game.action_types(1001) == []
    with pytest.raises(IllegalAction) as caught:
        game.process(act("pass", 1001))
    assert caught.value.rule == "game_over"
    assert all(game.result()[pid] >= cash for pid, cash in result.items())  # scored like any ended game


def test_before_turn_100_the_game_goes_on() -> None:
    game = position(U1_4P, SR2)
    game.turn = 99
    _pass_round(game)
    assert not game.finished
    assert game.round.kind == "Operating" and game.acting()


# -- credit in receivership is repaid by this turn's run -------------------------------------------------
# Unit 1, 3 players, OR: LNWR is in receivership in its track step, with no train, its one station at T16;
# the bank's next train (a 3) leased would find no run (revenue 0). The treasury is set to the boundary.
U1_3P = "gen1825_unit1_3p_482113"
RECEIVERSHIP_TRACK = 228


def test_no_lease_on_credit_that_no_run_can_repay() -> None:
    game = position(U1_3P, RECEIVERSHIP_TRACK)
    lnwr = game.corporations["LNWR"]
    assert game.acting() == ["LNWR"] and game.rules.receivership(game, lnwr) and not lnwr.trains
    lnwr.cash = 0
    assert not [a for a in game.legal_actions("LNWR") if a["type"] == "special_buy"]
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "special_buy", "entity": "LNWR", "description": "3", "cost": 10})
    assert caught.value.rule == "credit" and "more than its best run" in str(caught.value)
    assert game.round.leased_train is None and game.round.receivership_loan == 0
    # what it may do still leads on: it passes its track step and its turn goes on to the run
    assert {"type": "pass", "entity": "LNWR", "entity_type": "corporation"} in game.legal_actions("LNWR")
    game.process(act("pass", "LNWR"))  # type: ignore[arg-type]
    assert game.acting() == ["LNWR"] and game.legal_actions("LNWR")


def test_a_lease_paid_from_the_treasury_needs_no_run() -> None:
    game = position(U1_3P, RECEIVERSHIP_TRACK)
    lnwr = game.corporations["LNWR"]
    lnwr.cash = 10
    assert {"type": "special_buy", "entity": "LNWR", "entity_type": "corporation", "description": "3",
            "cost": 10} in game.legal_actions("LNWR")
    game.process({"type": "special_buy", "entity": "LNWR", "description": "3", "cost": 10})
    assert lnwr.cash == 0 and game.round.receivership_loan == 0
    assert game.round.leased_train is not None and game.round.leased_train.name == "3"


def test_a_corporation_in_receivership_always_has_a_move() -> None:
    """With nothing in its treasury, every move LNWR is offered is accepted and leaves someone a move, to
    the end of its turn (before the rule, the lease on credit left it a run that could not repay it)."""
    game = position(U1_3P, RECEIVERSHIP_TRACK)
    game.corporations["LNWR"].cash = 0
    for _ in range(20):
        if game.acting() != ["LNWR"]:
            break
        offered = game.legal_actions("LNWR")
        assert offered, f"LNWR is offered nothing ({game.action_types('LNWR')})"
        move = next((a for a in offered if a["type"] != "pass"), offered[0])
        game.process({k: v for k, v in move.items() if k != "entity_type"})
    assert game.acting() != ["LNWR"] and game.acting()


# -- trains change hands between corporations in whole £10s ----------------------------------------------
# Unit 1, 2 players, OR: SECR (treasury 670) may buy GER's 2-train (2-0); both are run by the same player.
U1_2P = "gen1825_unit_1_2p_248716"


def test_a_train_between_corporations_is_priced_in_whole_tens() -> None:
    game = position(U1_2P, 33)
    secr = game.corporations["SECR"]
    assert game.acting() == ["SECR"] and game.depot.by_id("2-0").owner == "GER"
    secr.cash = 675  # an odd treasury: "all its cash" is no longer a price
    offers = [a["price"] for a in game.legal_actions("SECR") if a["type"] == "buy_train" and a["train"] == "2-0"]
    assert offers and all(price % 10 == 0 for price in offers) and max(offers) == 670, offers
    with pytest.raises(IllegalAction) as caught:
        game.process({"type": "buy_train", "entity": "SECR", "entity_type": "corporation", "train": "2-0",
                      "price": 675})
    assert caught.value.rule == "train_price_multiple" and "multiple of 10" in str(caught.value)
    assert secr.cash == 675 and game.depot.by_id("2-0").owner == "GER"
    game.process({"type": "buy_train", "entity": "SECR", "entity_type": "corporation", "train": "2-0",
                  "price": 670})
    assert secr.cash == 5 and game.depot.by_id("2-0").owner == "SECR"


# -- no run without a route --------------------------------------------------------------------------------
# Railpost's own random game (Units 1+2+3, 4 players, seed 21; the reference accepts all 198 moves): OR2, LNWR
# is in receivership (operated by 1002) with £1,000, no train, price 100, and its two stations T16 and Q11
# have no track between them or to any other stop; M&C, GNoS and HR after it have no route either.
RP_U123 = Path(__file__).resolve().parents[2] / "fixtures" / "1825" / "rp_1825_4p_21_unit_123.json"


def _rp_position(index: int) -> Game:
    record = json.loads(RP_U123.read_text())
    return GameSession.from_record(dict(record, actions=record["actions"][:index])).game


def test_a_corporation_whose_stations_stand_alone_does_not_run() -> None:
    game = _rp_position(196)
    lnwr = game.corporations["LNWR"]
    assert game.acting() == ["LNWR"] and game.rules.receivership(game, lnwr) and not lnwr.trains
    assert not game.rules.route_available(game, lnwr)
    game.process({"type": "lay_tile", "entity": "LNWR", "hex": "Q9", "tile": "7-0", "rotation": 4})
    game.process({"type": "lay_tile", "entity": "LNWR", "hex": "T14", "tile": "9-0", "rotation": 1})
    # no run and no lease are offered: the turn ends withheld (price one left), nothing is leased or bought,
    # and as nobody after LNWR has a route either, the next stock round starts with the priority holder
    assert game.round.kind == "Stock" and game.acting() == [1002]
    assert lnwr.cash == 1000 and not lnwr.trains
    assert game.market.cell(lnwr.share_cell).price == 90


def test_a_station_joined_to_another_stop_runs() -> None:
    game = position(U1_4P, 56)
    assert game.acting() == ["GER"] and "run_routes" in game.action_types("GER")
    assert game.rules.route_available(game, game.corporations["GER"])

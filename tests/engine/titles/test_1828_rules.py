"""Scenario tests for 1828.Games rules, each with the refusal that guards it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.engine import GameSession
from shared.engine.errors import IllegalAction
from shared.engine.session import final_active_flags
from shared.engine.titles.g1828.stock import in_unlimited_cell, merge_candidate

CONFORMANCE = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"
GEN = "generated/1828/gen1828_3p_318877"
PLAYERS = [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}, {"id": 3, "name": "C"}]


def recorded(name: str, upto: int) -> GameSession:
    """A session replayed from a recorded game up to (not including) action `upto`."""
    record = json.loads((CONFORMANCE / f"{name}.json").read_text())
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"]["optional_rules"])
    flags = final_active_flags(record["actions"])
    for i, action in enumerate(record["actions"][:upto]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
    return session


def test_setup_removes_seven_minus_players_founding_privates() -> None:
    session = GameSession.new("1828.Games", PLAYERS, 2007664020)
    removed = sorted(c.sym for c in session.game.companies.values() if c.closed)
    assert removed == ["GT", "IC", "MC", "NW"]  # the README's draw for the bankrupt game's seed
    assert session.game.corporations["C&P"].trains[0].rusts_on is None
    assert sum(1 for t in session.game.depot.trains if t.name == "6") == 3  # one 6 removed below 5 players


def test_auction_bid_rules() -> None:
    session = GameSession.new("1828.Games", PLAYERS, 1)
    with pytest.raises(IllegalAction) as err:
        session.submit({"type": "bid", "entity": 1, "company": "C&A", "price": 160})  # minimum is 165
    assert err.value.rule == "bid_price"
    with pytest.raises(IllegalAction) as err:
        session.submit({"type": "bid", "entity": 1, "company": "C&A", "price": 167})
    assert err.value.rule == "bid_increment"
    with pytest.raises(IllegalAction):
        session.submit({"type": "bid", "entity": 2, "company": "C&A", "price": 165})  # not B's turn
    session.submit({"type": "bid", "entity": 1, "company": "C&A", "price": 165})
    assert session.game.acting() == [2]


def test_founding_private_overbid_replaces_other_bids() -> None:
    session = GameSession.new("1828.Games", PLAYERS, 1)
    founding = next(c.sym for c in session.game.companies.values() if c.value == 250 and not c.closed)
    session.submit({"type": "bid", "entity": 1, "company": founding, "price": 255})
    session.submit({"type": "bid", "entity": 2, "company": founding, "price": 260})
    assert session.game.round.bids[founding] == [(2, 260)]


def test_sixty_percent_limit_outside_grey_cells() -> None:
    game = recorded(GEN, 60).game  # stock round 1, GT parred at 67 by player 1002
    gt = game.corporations["GT"]
    assert not in_unlimited_cell(game, gt)
    for share in gt.shares[2:5]:
        share.owner = 1002  # 1002 now holds 60% of GT
    game.player(1002).cash = 1000
    game.round.index = game.round.entities.index(1002)
    with pytest.raises(IllegalAction) as err:
        game.process({"type": "buy_shares", "entity": 1002, "shares": [gt.shares[6].id], "percent": 10})
    assert "at most 60%" in err.value.message


def test_grey_cell_lifts_limit_and_allows_two_buys_for_the_president() -> None:
    game = recorded(GEN, 60).game
    gt = game.corporations["GT"]
    grey = next(c for row in game.market.grid for c in row if c is not None and "unlimited" in c.types)
    gt.share_cell = (grey.row, grey.column)
    for share in gt.shares[2:5]:
        share.owner = 1002
    game.player(1002).cash = 1000
    game.round.index = game.round.entities.index(1002)
    game.process({"type": "buy_shares", "entity": 1002, "shares": [gt.shares[5].id], "percent": 10})
    game.process({"type": "buy_shares", "entity": 1002, "shares": [gt.shares[6].id], "percent": 10})
    assert gt.percent_owned_by(1002) == 80
    with pytest.raises(IllegalAction):  # a third share in the same turn is refused
        game.process({"type": "buy_shares", "entity": 1002, "shares": [gt.shares[7].id], "percent": 10})


def test_par_prices_open_with_the_phases() -> None:
    game = recorded(GEN, 60).game
    player = game.player(1003)
    player.cash = 1000
    assert sorted({c.price for c in game.rules.par_prices(game, game.corporations["NYC"], player)}) == [67, 71, 79]
    game.round.index = game.round.entities.index(1003)
    with pytest.raises(IllegalAction) as err:
        game.process({"type": "par", "entity": 1003, "corporation": "NYC", "share_price": "94,5,3"})
    assert err.value.rule == "par_price"
    game.rules.fire_event(game, "green_par")
    assert 94 in {c.price for c in game.rules.par_prices(game, game.corporations["NYC"], player)}


def test_market_may_hold_at_most_eighty_percent() -> None:
    game = recorded(GEN, 60).game
    assert game.rules.market_share_limit == 80


def test_merging_needs_enough_shares() -> None:
    game = recorded(GEN, 60).game
    round_ = game.round
    gt, ic = game.corporations["GT"], game.corporations["IC"]
    gt.floated = True
    # 1002 presides GT with 4 shares; 1003 holds IC's 3 -- nobody holds 5 of the two together
    assert not merge_candidate(game, round_, 1002, gt, ic)
    for share in ic.shares[2:4]:
        share.owner = 1002
    # 1002 now holds 4 GT + 2 IC = 6 shares: eligible
    assert merge_candidate(game, round_, 1002, gt, ic)
    gt.floated = ic.floated = False
    assert not merge_candidate(game, round_, 1002, gt, ic)  # one of the two must have floated


def test_founding_private_closes_at_its_corporations_first_train() -> None:
    session = recorded(GEN, 86)
    assert not session.game.companies["GT"].closed
    record = json.loads((CONFORMANCE / f"{GEN}.json").read_text())
    session.submit(record["actions"][86], keep_id=True, recorded=True)
    assert session.game.companies["GT"].closed

"""1840 scenario tests: the set-up draws and the refusals of the title's own rules, each checked on a
state reached by replaying the recorded 2-player game (so the position is a real one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from recorded_games import replayed  # tests/engine/titles: one replay-to-a-position helper

from shared.engine import GameSession
from shared.engine.errors import IllegalAction

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "1840" / "2player.json"


def record() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


def session_at(index: int) -> GameSession:
    """The recorded game after its first `index` actions."""
    return replayed(FIXTURE, index)


def refused(session: GameSession, action: dict[str, Any]) -> IllegalAction:
    before = session.digest()
    with pytest.raises(IllegalAction) as err:
        session.submit(action)
    assert session.digest() == before  # a refusal changes nothing
    return err.value


def test_setup_draws_lines_and_majors_with_the_seeded_generator() -> None:
    game = session_at(0).game
    assert sorted(game.title_state.lines_offered, key=int) == ["4", "5", "18"]
    assert sorted(game.title_state.majors) == ["GWStStB", "WT"]
    assert game.round.kind == "Auction"
    assert {p.cash for p in game.players} == {350}


def test_private_bids_start_at_face_value_and_are_capped_by_cash() -> None:
    s = session_at(0)
    assert refused(s, {"type": "bid", "entity": 2006, "company": "KK", "price": 15}).rule == "bid_price"
    assert refused(s, {"type": "bid", "entity": 2006, "company": "KK", "price": 400}).rule == "bid_price"
    s.submit({"type": "bid", "entity": 2006, "company": "KK", "price": 20})
    # an overbid needs +5
    assert refused(s, {"type": "bid", "entity": 621, "company": "KK", "price": 24}).rule == "bid_price"


def test_order_choice_then_founding_cash_and_mandatory_director() -> None:
    s = session_at(12)  # after the order choice: stock round 1
    game = s.game
    assert game.round.kind == "Stock"
    assert game.player_order == [621, 2006]
    assert game.player(621).cash == 255 + 350
    # nobody may pass before every Tram Company has a director
    assert "pass" not in game.round.actions_for(game, 621)
    refused(s, {"type": "pass", "entity": 621})
    # start prices are 70-100 only
    assert refused(s, {"type": "par", "entity": 621, "corporation": "WT", "share_price": "95,1,1"}).rule \
        == "par_price"
    s.submit({"type": "par", "entity": 621, "corporation": "GWStStB", "share_price": "70,4,2"})
    game = s.game  # a refused live action restores the state from its backup
    assert game.corporations["GWStStB"].cash == 700  # 10 x start price
    assert game.corporations["GWStStB"].percent_owned_by(621) == 50


def test_acquisition_bids_start_at_20_and_one_line_per_round() -> None:
    s = session_at(22)  # WT selected line 4 for auction
    assert refused(s, {"type": "bid", "entity": "WT", "corporation": "4", "price": 15}).rule == "bid_price"
    s.submit({"type": "bid", "entity": "WT", "corporation": "4", "price": 20})
    assert refused(s, {"type": "bid", "entity": "GWStStB", "corporation": "4", "price": 20}).rule == "bid_price"


def test_dividend_is_a_multiple_of_ten_within_the_revenue() -> None:
    s = session_at(50)  # company round 2: WT collects its lines' revenue (140)
    assert s.game.round.kind == "Company"
    assert refused(s, {"type": "dividend", "entity": "WT", "kind": "variable", "amount": 145}).rule \
        == "dividend_amount"
    assert refused(s, {"type": "dividend", "entity": "WT", "kind": "variable", "amount": 150}).rule \
        == "dividend_amount"
    s.submit({"type": "dividend", "entity": "WT", "kind": "variable", "amount": 140})


def test_tram_variants_follow_the_company_round() -> None:
    s = session_at(17)  # company round 1, WT to buy: only Y1 / O1 faces are on sale
    assert refused(s, {"type": "buy_train", "entity": "WT", "train": "O1-0", "price": 200,
                       "variant": "O2"}).rule == "train_unavailable"
    s.submit({"type": "buy_train", "entity": "WT", "train": "O1-0", "price": 300, "variant": "O1"})
    assert [t.name for t in s.game.corporations["WT"].trains] == ["O1"]


def test_line_lays_one_ordinary_tile_and_pays_for_orange_track() -> None:
    s = session_at(29)  # line 4 laid its ordinary tile on H28
    refused(s, {"type": "lay_tile", "entity": "4", "hex": "G29", "tile": "58-0", "rotation": 3})
    wt = s.game.corporations["WT"].cash
    s.submit({"type": "lay_tile", "entity": "4", "hex": "B20", "tile": "L2-0", "rotation": 2})
    assert s.game.corporations["WT"].cash == wt - 20


def test_route_revenue_is_computed_not_read() -> None:
    rec = record()
    s = session_at(32)
    action = dict(rec["actions"][32])
    action["routes"] = [dict(action["routes"][0], revenue=999)]
    s.submit(action)
    assert s.game.corporations["4"].cash == 50


def test_three_player_small_map_removes_v_prater_and_six_lines() -> None:
    s = GameSession.new("1840", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)], 5, ["three_player_small"])
    game = s.game
    assert "V" not in game.corporations and "PR" not in game.companies
    assert not {"9", "10", "13", "14", "16", "17"} & set(game.corporations)
    assert "A1" not in game.board.hexes and "B10" in game.board.hexes
    # three majors drawn; the others (never chosen) leave the game
    assert len(game.title_state.majors) == 3
    assert {c.sym for c in game.corporations.values() if c.kind == "major"} == set(game.title_state.majors)
    assert {p.cash for p in game.players} == {300}


def test_loans_cost_200_each_at_the_end() -> None:
    s = session_at(0)
    game = s.game
    player = game.players[0]
    worth = game.rules.player_value(game, player)
    game.rules.take_loans(game, player, player.cash + 150)  # short by 150: two loans of 100
    assert game.title_state.loans[player.id] == 200
    assert game.rules.player_value(game, player) == worth + 200 - 2 * 200


def test_a_station_takes_the_first_free_slot_whatever_slot_the_move_names() -> None:
    """rules-1840 *Which slot a station takes*: line 15 names slot 1 of K15's empty two-slot city; its
    station goes into slot 0, exactly as when it names slot 0, and slot 1 stays free for the next one."""
    recorded = record()["actions"][198]
    assert recorded["type"] == "place_token" and recorded["slot"] == 0
    move = {k: v for k, v in recorded.items() if k not in ("id", "created_at")}
    by_record, named_one = session_at(198), session_at(198)
    by_record.submit(dict(move))
    named_one.submit(dict(move, slot=1))
    h, ci = named_one.game.board.locate_city(recorded["city"])
    assert h.tokens[ci] == ["15", None]
    assert named_one.digest() == by_record.digest()


def test_a_major_without_the_opening_bid_may_name_a_line_but_then_only_take_it_back() -> None:
    """rules-1840 *Naming a line*: WT with less than 20 may name line 4 (18xx.games accepts it), is never
    offered it, and then has no move but undo: its opening bid is refused with that advice."""
    s = session_at(21)
    game = s.game
    assert game.round.kind == "Acquisition"
    game.corporations["WT"].cash = 15
    game.edited()
    assert not [a for a in s.legal_actions("WT") if a["type"] == "merge"]
    game.process({"type": "merge", "entity": "WT", "entity_type": "corporation", "corporation": "4"})
    assert game.round.auctioning == "4" and game.round.current_entity(game) == "WT"
    with pytest.raises(IllegalAction) as err:
        game.process({"type": "bid", "entity": "WT", "entity_type": "corporation", "corporation": "4",
                      "price": 20})
    assert err.value.rule == "bid_price" and "take the nomination back" in str(err.value)
    with pytest.raises(IllegalAction):
        game.process({"type": "pass", "entity": "WT", "entity_type": "corporation"})
    assert game.corporations["WT"].cash == 15 and game.round.auctioning == "4"


def test_a_stadtbahn_has_no_director_so_buying_its_shares_leaves_a_pass_order_standing() -> None:
    """rules-1840 *Stadtbahnen have no director*: 621 holds D_0 and D_1 (the first certificate of the
    Donaukanal-Linie is an ordinary share) and sets a pass order; 2006 then buys D_2. Nobody presides over
    D, so the purchase is no threat to a president and 621's order passes for him."""
    s = session_at(164)
    game = s.game
    assert game.corporations["D"].president is None
    assert game.corporations["D"].percent_owned_by(621) == 20
    s.submit({"type": "program_share_pass", "entity": 621, "entity_type": "player", "unconditional": False,
              "indefinite": True})
    move = {k: v for k, v in record()["actions"][164].items() if k not in ("id", "created_at")}
    assert move["entity"] == 2006 and move["shares"] == ["D_2"]
    stored = s.submit(move)
    assert stored.get("auto_actions") == [{"type": "pass", "entity": 621, "entity_type": "player"}]
    assert game.player(621).programs  # the order stands


def test_a_private_given_away_free_leaves_the_bidding_after_the_latest_auctions_opener() -> None:
    """rules-1840 *Private auction*: when everybody passes, Prater (the cheapest) drops 5; at 0 it goes free
    to the next player. The bidding then goes on after the player who opened the latest auction (P3 opened
    the one for SB), so P1 — who just took Prater — acts next, not P2."""
    p1, p2, p3 = 1001, 1002, 1003
    s = GameSession.new("1840", [{"id": p1, "name": "P1"}, {"id": p2, "name": "P2"}, {"id": p3, "name": "P3"}],
                        1605860, [])

    def act(pid: int, kind: str, **fields: Any) -> None:
        s.submit({"type": kind, "entity": pid, "entity_type": "player", **fields})

    for pid in (p1, p2, p3):  # everybody passes: Prater 10 -> 5
        act(pid, "pass")
    assert s.game.round.min_bid(s.game, "PR") == 5
    act(p1, "pass")
    act(p2, "bid", company="SSB", price=60)
    act(p3, "bid", company="SSB", price=65)
    act(p1, "pass")
    act(p2, "pass")  # P3 wins SSB for 65
    act(p3, "bid", company="SB", price=30)
    act(p1, "pass")
    act(p2, "pass")  # P3 wins SB for 30; P1 is next after the opener
    assert s.game.acting() == [p1]
    for pid in (p1, p2, p3):  # everybody passes again: Prater 5 -> 0, forced on the next player (P1)
        act(pid, "pass")
    game = s.game
    assert game.companies["PR"].owner == p1 and game.player(p1).cash == 300
    assert game.acting() == [p1]

"""Scenario tests for 1828.Games rules, each with the refusal that guards it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recorded_games import replayed  # tests/engine/titles: one replay-to-a-position helper

from shared.engine import GameSession
from shared.engine.core.stock import BuySellParShares
from shared.engine.errors import EngineError, IllegalAction
from shared.engine.titles.g1828 import coal
from shared.engine.titles.g1828.steps.merger import merge_candidate
from shared.engine.titles.g1828.steps.track import Track1828
from shared.engine.titles.g1828.stock import in_unlimited_cell

CONFORMANCE = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"
GEN = "generated/1828/gen1828_3p_318877"
PLAYERS = [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}, {"id": 3, "name": "C"}]


def recorded(name: str, upto: int) -> GameSession:
    """A session replayed from a recorded game up to (not including) action `upto`."""
    return replayed(CONFORMANCE / f"{name}.json", upto)


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
    step = next(s for s in game.round.steps if isinstance(s, BuySellParShares))
    assert sorted({c.price for c in step.par_prices(game, game.corporations["NYC"], player)}) == [67, 71, 79]
    game.round.index = game.round.entities.index(1003)
    with pytest.raises(IllegalAction) as err:
        game.process({"type": "par", "entity": 1003, "corporation": "NYC", "share_price": "94,5,3"})
    assert err.value.rule == "par_price"
    game.rules.fire_event(game, "green_par")
    assert 94 in {c.price for c in step.par_prices(game, game.corporations["NYC"], player)}


def test_market_may_hold_at_most_eighty_percent() -> None:
    game = recorded(GEN, 60).game
    assert game.rules.market_share_limit(game) == 80


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


# -- scenarios from the recorded games: each live action goes through the checked door ---------------------
BANKRUPT = "1828/1828Games_game_end_bankrupt"
MARKET = "1828/1828Games_game_end_stock_market"


def actions_of(name: str) -> list[dict]:
    return json.loads((CONFORMANCE / f"{name}.json").read_text())["actions"]


def live(action: dict, **changes: object) -> dict:
    """A recorded action resubmitted live: no id, no recorded auto actions."""
    out = {k: v for k, v in action.items() if k not in ("id", "created_at", "user", "auto_actions")}
    out.update(changes)
    return out


def refused(session: GameSession, action: dict) -> str:
    with pytest.raises(IllegalAction) as err:
        session.submit(action)
    return err.value.rule


def test_a_merger_needs_a_partner_and_runs_its_exchanges() -> None:
    acts = actions_of(MARKET)
    session = recorded(MARKET, 331)
    # B&O (8320's) has no partner for 3581
    assert refused(session, {"type": "choose", "entity": 3581, "choice": "B&O"}) == "merge"
    assert {"choice": "CPR"} in [{"choice": a["choice"]} for a in session.game.legal_actions()
                                  if a["type"] == "choose"]
    session.submit(live(acts[331]))  # 3581 starts a merger with CPR
    assert session.game.acting() == [3581]
    partners = [a["corporation"] for a in session.game.legal_actions("CPR")]
    assert "NW" in partners and "B&O" not in partners  # B&O has not operated yet, CPR has
    assert refused(session, {"type": "merge", "entity": "CPR", "corporation": "B&O"}) == "merge"
    session.submit(live(acts[332]))  # CPR merges with NW
    system = session.game.corporations["CPR-NW"]
    assert (system.cash, session.game.share_price(system)) == (133 + 248, 108)
    assert sorted(t.name for t in system.trains) == ["2", "2", "2", "3"]
    # 3581 holds 5 CPR and 6 NW shares: which one to keep back is asked
    assert refused(session, {"type": "choose", "entity": 3581, "choice": "B&O ($94)"}) == "choice"
    for action in acts[333:336]:
        session.submit(live(action))
    system = session.game.corporations["CPR-NW"]
    assert "CPR" not in session.game.corporations and "NW" not in session.game.corporations
    assert system.percent_owned_by(3581) == 50 and system.treasury_percent == 10  # one share donated
    # the merger was the turn's purchase: 3581 may still sell (or pass), but buys nothing more
    assert session.game.acting() == [3581]
    assert session.game.round.actions_for(session.game, 3581) == ["sell_shares", "pass"]


def test_a_founding_private_closes_when_its_system_gets_a_train() -> None:
    """CPR, without a train, merges with NW, which has four: the System has trains, so CPR's founding
    private closes at once, as if CPR had bought one (docs/rules-1828.md, "A founding private closes when
    its System gets a train"; 1828.Games:4:9975609 reverse index 363)."""
    acts = actions_of(MARKET)
    session = recorded(MARKET, 332)  # 3581 has named CPR to start a merger
    game = session.game
    private = game.companies["CPR"]
    private.closed = False  # the position: CPR's founding private still open, held by 11345
    game.player(11345).companies.append("CPR")
    game.edited()
    assert game.corporations["CPR"].trains == [] and game.corporations["NW"].trains
    session.submit(live(acts[332]))  # CPR merges with NW
    assert "CPR-NW" in game.corporations and game.corporations["CPR-NW"].trains
    assert private.closed and "CPR" not in game.player(11345).companies


def test_a_completed_merger_is_the_turns_purchase_and_may_end_the_turn() -> None:
    name = "generated/1828/gen1828_4p_2999273"
    acts = actions_of(name)
    session = recorded(name, 173)  # ERIE-NKP formed; 1001 has yet to answer for his single NKP share
    game = session.game
    assert game.acting() == [1001]
    session.submit(live(acts[173]))  # 1001 sells it ($79); the merger completes
    assert "ERIE-NKP" in game.corporations and "ERIE" not in game.corporations
    assert game.corporations["ERIE-NKP"].percent_owned_by(1003) == 20 and game.player(1003).cash == 97
    # 1003 holds only ERIE-NKP's president's certificate (nobody can take it over) and ERIE-NKP is in no
    # grey cell: nothing a purchase leaves open, so his turn is over and 1004 acts
    assert game.acting() == [1004]
    assert refused(session, {"type": "buy_shares", "entity": 1003, "shares": ["GT_2"], "percent": 10}) \
        == "not_your_turn"


def test_swap_train_moves_a_train_between_shells() -> None:
    acts = actions_of(MARKET)
    session = recorded(MARKET, 433)
    assert refused(session, {"type": "swap_train", "entity": "CPR-NW", "train": "6-0"}) == "swap_train"
    session.submit(live(acts[433]))
    from shared.engine.titles.g1828.systems import shells

    game = session.game
    assert [t.id for t in shells(game, game.corporations["CPR-NW"])["CPR"]] == ["2-2"]


def test_coalfields_need_a_coal_marker() -> None:
    acts = actions_of(MARKET)
    session = recorded(MARKET, 1199)
    session.submit({"type": "pass", "entity": "WAB"})  # no station this turn
    run = live(acts[1200])
    assert refused(session, run) == "coal_marker"
    assert refused(session, {"type": "special_buy", "entity": "WAB", "description": "Coal Marker", "cost": 100}) \
        == "special_buy"
    assert {"type": "special_buy", "entity": "WAB", "entity_type": "corporation", "description": "Coal Marker",
            "cost": 120} in session.game.legal_actions()
    session.submit(live(acts[1199]))
    assert refused(session, live(acts[1199])) == "special_buy"  # one marker each
    session.submit(run)
    assert session.game.round.revenue == 240  # computed, never read from the record


def test_emergency_sales_are_open_for_the_whole_buy_train_step() -> None:
    acts = actions_of(GEN)
    session = recorded(GEN, 304)
    other = next(s.id for s in session.game.corporations["GT"].shares if s.owner == 1002)
    assert refused(session, {"type": "sell_shares", "entity": 1002, "shares": [other], "percent": 10}) \
        == "not_your_turn"
    session.submit(live(acts[304]))  # MC's president sells a B&M share towards a train
    assert session.game.acting() == ["MC"]
    game = session.game
    more = next(s for s in game.corporations["C&O"].shares if s.owner == 1001 and not s.president)
    # MC ($41) and 1001 ($164) now hold more than the 3-train's $160: a further sale is not needed, and the
    # reference refuses it ("Cannot sell shares of C&O"; rules-1828 "Emergency sales")
    assert refused(session, {"type": "sell_shares", "entity": 1001, "shares": [more.id], "percent": 10}) \
        == "sell_shares"


def test_bankruptcy_only_when_the_train_cannot_be_paid_and_it_ends_the_game() -> None:
    acts = actions_of(GEN)
    session = recorded(GEN, 302)  # MC has $250 and a 3-train costs $160
    assert refused(session, {"type": "bankrupt", "entity": "MC"}) == "bankrupt"
    session = recorded(GEN, 670)
    assert "bankrupt" in session.game.round.actions_for(session.game, "B&M")
    session.submit(live(acts[670]))
    game = session.game
    assert game.finished and game.game_end_reason == "bankrupt"
    assert game.player(1001).bankrupt and game.player(1001).cash == 0


def hand_over(game, sym: str, holder, count: int) -> None:
    """Give `holder` `count` ordinary shares of `sym` from the market (a position built by hand)."""
    from shared.engine.model import POOL

    corp = game.corporations[sym]
    for share in [sh for sh in corp.shares if sh.owner == POOL and not sh.president][:count]:
        corp.give(share, holder)
    game.edited()


def test_a_bankrupt_president_keeps_his_corporations_presidency_and_sells_what_an_emergency_allows() -> None:
    """B&M ($70) needs a $350 train; its president 1001 ($107) holds B&M's certificate and a share, NYH_3
    and five other certificates nobody could take over; 1002 holds 20% of B&M. Bankrupt, 1001 sells one B&M
    share (not the certificate: he stays B&M's president) and NYH_3, keeps every certificate, and his cash
    goes to the bank (docs/rules-1828.md, "What a bankrupt president sells")."""
    from shared.engine.model import POOL

    session = recorded(GEN, 670)
    game = session.game
    hand_over(game, "B&M", 1001, 1)
    hand_over(game, "B&M", 1002, 2)
    bm, nyh = game.corporations["B&M"], game.corporations["NYH"]
    pool_bm, pool_nyh = bm.percent_owned_by(POOL), nyh.percent_owned_by(POOL)
    session.submit({"type": "bankrupt", "entity": "B&M", "entity_type": "corporation"})
    assert game.finished and game.player(1001).bankrupt and game.player(1001).cash == 0
    assert bm.president == 1001 and bm.percent_owned_by(1001) == 20 and bm.percent_owned_by(POOL) == pool_bm + 10
    assert nyh.percent_owned_by(1001) == 0 and nyh.percent_owned_by(POOL) == pool_nyh + 10
    assert all(game.corporations[c].president == 1001 for c in ("B&O", "IC", "MC", "MP", "NKP"))


def test_a_certificate_another_player_can_take_over_counts_against_bankruptcy() -> None:
    """1002 holds 20% of MC, so 1001 could sell MC's certificate ($80) in an emergency: with B&M's extra
    share ($57) as well, B&M and he could raise $390 of the $350 train, and bankruptcy is refused; without
    it ($333) he is bankrupt, and MC's certificate goes to 1002 with the sale (docs/rules-1828.md, "What a
    bankrupt president sells")."""
    session = recorded(GEN, 670)
    game = session.game
    hand_over(game, "MC", 1002, 2)
    hand_over(game, "B&M", 1001, 1)
    assert refused(session, {"type": "bankrupt", "entity": "B&M", "entity_type": "corporation"}) == "bankrupt"
    assert "bankrupt" not in game.round.actions_for(game, "B&M")
    session = recorded(GEN, 670)
    game = session.game
    hand_over(game, "MC", 1002, 2)
    assert "bankrupt" in game.round.actions_for(game, "B&M")
    session.submit({"type": "bankrupt", "entity": "B&M", "entity_type": "corporation"})
    assert game.finished and game.corporations["MC"].president == 1002
    assert game.corporations["MC"].percent_owned_by(1001) == 0


def test_cobourg_and_peterborough_private_station() -> None:
    session = recorded(GEN, 299)
    session.submit(live(actions_of(GEN)[299]))  # MC buys the C&P private: the minor leaves the game
    assert session.game.acting() == ["C&P"] and session.game.corporations["C&P"].closed
    assert refused(session, {"type": "place_token", "entity": "C&P", "city": "A7-0-0", "slot": 0}) == "token"
    session.submit({"type": "pass", "entity": "C&P"})
    assert session.game.board.hexes["C15"].tokens[0] == ["B"]  # passing leaves a blocking token


def test_a_corporation_without_a_station_token_buying_cp_leaves_peterborough_open() -> None:
    """rules-1828 "The C&P private bought by a corporation", case (c): no station token left, no decision
    and no blocking token; C15 is a free city for anyone (1828.Games:3:6629022 reverse index 640)."""
    session = recorded(GEN, 299)
    game = session.game
    mc = game.corporations["MC"]
    mc.tokens_placed = len(mc.token_prices)  # every MC station on the map
    cash = mc.cash
    session.submit(live(actions_of(GEN)[299]))  # MC buys the C&P private for $80
    assert game.corporations["C&P"].closed
    assert game.board.hexes["C15"].tokens[0] == [None]  # the minor's station lifted, no blocking token
    assert game.acting() == ["MC"]  # the turn goes straight on: nobody is asked about C15
    assert mc.cash == cash - 80 + 0  # C&P's treasury (empty here) comes with it
    assert refused(session, {"type": "pass", "entity": "C&P", "entity_type": "company"}) is not None


def test_a_corporation_that_placed_its_station_buying_cp_blocks_peterborough() -> None:
    """Case (b): a station token left, but the corporation's station of this round is placed: a blocking
    token goes on C15 at once and nobody is asked."""
    session = recorded(GEN, 299)
    game = session.game
    game.round.tokened = True
    session.submit(live(actions_of(GEN)[299]))
    assert game.board.hexes["C15"].tokens[0] == ["B"]
    assert game.acting() == ["MC"]


def test_ek_keeps_the_track_step_open_for_its_extra_tile() -> None:
    session = recorded(GEN, 299)  # MC, owning E&K, has laid its one tile
    assert session.game.round.actions_for(session.game, "MC")[:1] == ["lay_tile"]


def test_stock_market_end_ends_the_game_with_the_round() -> None:
    session = recorded(MARKET, 1423)
    game = session.game
    assert game.finished and game.game_end_reason == "stock_market"


def test_the_cp_minors_train_never_changes_hands() -> None:
    session = recorded(BANKRUPT, 47)  # CPR buys trains; the C&P minor runs its 2-train
    game = session.game
    assert game.acting() == ["CPR"] and game.corporations["C&P"].trains[0].id == "2-1"
    assert all(o.get("train") != "2-1" for o in game.legal_actions(kinds={"buy_train"}))
    before = (session.version, json.dumps(game.digest({}), sort_keys=True))
    for price in (1, 80, 710):
        with pytest.raises(EngineError):
            session.submit({"type": "buy_train", "entity": "CPR", "train": "2-1", "price": price})
    assert (session.version, json.dumps(session.game.digest({}), sort_keys=True)) == before


def test_selling_part_of_the_presidents_certificate_hands_back_the_oldest_market_share() -> None:
    """With the market empty, the seller of one share and half his certificate gets his own share back and
    the new president's two oldest shares stay in the market (docs/rules-1828.md, Stock round)."""
    session = recorded("generated/1828/gen1828_4p_2999273", 174)  # 1004's turn in a later stock round
    game = session.game
    assert game.acting() == [1004]
    gt = game.corporations["GT"]
    for share in gt.shares:  # the position: 1004 presides with one share, 1002 holds three, the market none
        if share.owner not in (gt.sym,):
            gt.give(share, gt.sym)
    gt.give(gt.shares[0], 1004)
    for index in (3, 1, 2):
        gt.give(gt.shares[index], 1002)
    gt.give(gt.shares[5], 1004)
    cash, price = game.player(1004).cash, game.share_price(gt)
    assert price is not None
    session.submit({"type": "sell_shares", "entity": 1004, "shares": ["GT_5", "GT_0"], "percent": 20})
    held = {s.id: s.owner for s in gt.shares if s.owner not in (gt.sym,)}
    assert held == {"GT_0": 1002, "GT_2": 1002, "GT_5": 1004, "GT_3": "pool", "GT_1": "pool"}
    assert game.player(1004).cash == cash + 2 * price


def give_company(game, sym: str, corp_sym: str) -> None:
    """Hand a private to a corporation (a position built by hand)."""
    company = game.companies[sym]
    old = game.corporations.get(company.owner) if isinstance(company.owner, str) else game.player(company.owner)
    old.companies.remove(sym)
    company.owner = corp_sym
    game.corporations[corp_sym].companies.append(sym)
    game.edited()


def free_ek_lay(game, corp_sym: str) -> dict:
    """One of E&K's offered extra lays for `corp_sym` on a hex with no terrain cost."""
    for option in game.legal_actions(kinds={"lay_tile"}):
        if option.get("entity") == "E&K" and game.board.check_lay(
                corp_sym, option["hex"], option["tile"], option["rotation"], game.phase.tiles).cost == 0:
            return {k: v for k, v in option.items() if k not in ("min", "max", "step")}
    raise AssertionError("no E&K lay offered")


def upgrades(game, corp_sym: str) -> list[dict]:
    return [o for o in game.legal_actions(kinds={"lay_tile"}) if o.get("entity") == corp_sym and game.board.check_lay(
        corp_sym, o["hex"], o["tile"], o["rotation"], game.phase.tiles).upgrade]


def test_eks_extra_tile_is_no_lay_of_the_system_but_no_upgrade_may_follow_it() -> None:
    """E&K's $20 yellow tile uses none of the corporation's lays: a System that laid one tile still has its
    second, now yellow only (docs/rules-1828.md, "E&K's extra tile")."""
    session = recorded("generated/1828/gen1828_4p_612537", 113)  # GT-CPR has laid one tile (B22)
    game = session.game
    give_company(game, "E&K", "GT-CPR")
    system = game.corporations["GT-CPR"]
    track = next(s for s in game.round.steps if isinstance(s, Track1828))
    assert track.next_lay(game, game.round)["upgrade"]  # its second lay may still be an upgrade
    cash = system.cash
    session.submit(free_ek_lay(game, "GT-CPR"))
    assert system.cash == cash - 20
    assert game.acting() == ["GT-CPR"] and "lay_tile" in game.round.actions_for(game, "GT-CPR")
    assert any(o.get("entity") == "GT-CPR" for o in game.legal_actions(kinds={"lay_tile"}))
    assert not track.next_lay(game, game.round)["upgrade"] and upgrades(game, "GT-CPR") == []


def test_eks_extra_tile_never_costs_the_price_of_the_second_lay_and_ends_bms_lays() -> None:
    """B&M, after its own tile, lays E&K's for $20 (not its $40 extra lay's price); no $40 lay follows."""
    session = recorded(GEN, 667)  # B&M has laid its own tile (F26)
    game = session.game
    give_company(game, "E&K", "B&M")
    bm = game.corporations["B&M"]
    cash = bm.cash
    session.submit(free_ek_lay(game, "B&M"))
    assert bm.cash == cash - 20
    assert "lay_tile" not in game.round.actions_for(game, "B&M")
    assert not any(o.get("entity") == "B&M" for o in game.legal_actions(kinds={"lay_tile"}))


def test_the_buy_train_step_ends_by_itself_when_no_train_is_within_reach() -> None:
    """A corporation that has a train and cannot pay for the cheapest depot train, with no other major's
    train to buy (the C&P's never changes hands), is not asked to pass: its turn goes on by itself
    (docs/rules-1828.md, "The buy-train step ends by itself")."""
    session = recorded(GEN, 175)  # MC, with one 2-train, in its buy-train step
    game = session.game
    mc = game.corporations["MC"]
    for corp in game.corporations.values():  # the position: no other major owns a train
        if corp.kind != "minor" and corp is not mc:
            corp.trains = []
    train = next(t for t in game.depot.trains if t.owner is None and not t.rusted)
    mc.cash = train.price + 1
    game.edited()
    session.submit({"type": "buy_train", "entity": "MC", "train": train.id, "price": train.price})
    assert mc.cash == 1 and game.acting() != ["MC"]


def test_after_dhs_tile_the_turn_waits_for_the_station_decision_even_after_a_station() -> None:
    """D&H's tile in Scranton comes with an optional station; the turn waits for the decision even when the
    corporation has already placed its station this turn (the C&P's), and then only a pass is open
    (docs/rules-1828.md, "D&H's tile in Scranton")."""
    session = recorded(GEN, 667)  # B&M in its track step, one yellow lay left
    game = session.game
    give_company(game, "D&H", "B&M")
    game.round.tokened = True  # the position: B&M already placed a station this turn
    game.edited()
    lay = next(o for o in game.legal_actions(kinds={"lay_tile"}) if o.get("entity") == "D&H")
    session.submit({k: v for k, v in lay.items() if k not in ("min", "max", "step")})
    assert game.acting() == ["D&H"]
    assert [o["type"] for o in game.legal_actions()] == ["pass"]
    session.submit({"type": "pass", "entity": "D&H", "entity_type": "company"})
    assert game.acting() == ["B&M"]


def test_after_dhs_tile_a_corporation_without_a_station_token_is_not_asked() -> None:
    """D&H's optional station needs a station token: a corporation with all of its stations on the map
    lays D&H's tile and its turn goes on at once; D&H has nothing to decide, its pass is refused
    (docs/rules-1828.md, "D&H's tile in Scranton")."""
    session = recorded(GEN, 667)  # B&M in its track step, one yellow lay left
    game = session.game
    give_company(game, "D&H", "B&M")
    bm = game.corporations["B&M"]
    bm.tokens_placed = len(bm.token_prices)  # the position: every station of B&M's is on the map
    game.edited()
    assert bm.next_token_price() is None
    cash = bm.cash
    lay = next(o for o in game.legal_actions(kinds={"lay_tile"}) if o.get("entity") == "D&H")
    session.submit({k: v for k, v in lay.items() if k not in ("min", "max", "step")})
    assert bm.cash == cash - 160 and game.board.hex("F20").tile.name == lay["tile"].rpartition("-")[0]
    assert game.acting() == ["B&M"]
    assert not any(o.get("entity") == "D&H" for o in game.legal_actions_of(game.controller("B&M")))
    assert refused(session, {"type": "pass", "entity": "D&H", "entity_type": "company"}) is not None


def test_dhs_tile_costs_120_and_the_price_of_the_lay_it_takes() -> None:
    """D&H's tile is the corporation's own lay: as B&M's first lay it costs $120, as its second (the $40
    extra lay) $160, and with $120 to $159 in the treasury that second lay is neither offered nor accepted
    (docs/rules-1828.md, "D&H's tile in Scranton"; 1828.Games:5:5844836 reverse index 375)."""
    first = recorded(GEN, 666)  # B&M's turn, no tile laid yet
    give_company(first.game, "D&H", "B&M")
    bm = first.game.corporations["B&M"]
    cash = bm.cash
    lay = next(o for o in first.game.legal_actions(kinds={"lay_tile"}) if o.get("entity") == "D&H")
    first.submit({k: v for k, v in lay.items() if k not in ("min", "max", "step")})
    assert bm.cash == cash - 120

    second = recorded(GEN, 667)  # B&M has laid F26; its $40 lay is left
    game = second.game
    give_company(game, "D&H", "B&M")
    bm = game.corporations["B&M"]
    bm.cash = 159
    game.edited()
    assert not any(o.get("entity") == "D&H" for o in game.legal_actions(kinds={"lay_tile"}))
    attempt = {"type": "lay_tile", "entity": "D&H", "entity_type": "company", "hex": "F20", "tile": lay["tile"],
               "rotation": lay["rotation"]}
    assert refused(second, attempt) == "cash"
    game = second.game  # a refusal restores the position as the log has it: the hand-built one again
    give_company(game, "D&H", "B&M")
    game.corporations["B&M"].cash = 160
    game.edited()
    second.submit(attempt)
    assert game.corporations["B&M"].cash == 0


def test_dhs_upgrade_in_scranton_is_the_turns_upgrade() -> None:
    """D&H's green tile over the 57 in Scranton is the corporation's lay and an upgrade: a System that
    makes it has its second lay left, yellow only (docs/rules-1828.md, "D&H's tile in Scranton";
    1828.Games:3:1611129 reverse index 724: B&M-NYH upgrades C13 after D&H's upgrade, the reference
    refuses, "Cannot lay an upgrade now")."""
    session = recorded("generated/1828/gen1828_4p_612537", 260)  # GT-CPR's track step, green tiles out
    game = session.game
    game.board.lay("F20", "57-0", 0)  # the position: a yellow city tile in Scranton, D&H owned by GT-CPR
    give_company(game, "D&H", "GT-CPR")
    game.board.remove_blocker("D&H")  # owned by a corporation, D&H blocks Scranton no more
    track = next(s for s in game.round.steps if isinstance(s, Track1828))
    assert upgrades(game, "GT-CPR")
    lay = next(o for o in game.legal_actions(kinds={"lay_tile"}) if o.get("entity") == "D&H")
    assert lay["tile"].rpartition("-")[0] in ("14", "15")
    session.submit({k: v for k, v in lay.items() if k not in ("min", "max", "step")})
    if game.acting() == ["D&H"]:
        session.submit({"type": "pass", "entity": "D&H", "entity_type": "company"})
    assert game.acting() == ["GT-CPR"] and track.next_lay(game, game.round) is not None
    assert not track.next_lay(game, game.round)["upgrade"] and upgrades(game, "GT-CPR") == []


def test_after_cps_station_is_declined_dhs_tile_is_not_offered_that_turn() -> None:
    """Declining C&P's station marks the turn; D&H's tile is then not offered in that turn (the reference
    would never ask for its station and would block the next turn), but still accepted, with its station
    decision (docs/conflicts-1828.md #22; 1828.Games:3:8750525:ensure_good_privates reverse index 513)."""
    session = recorded(GEN, 299)
    session.submit(live(actions_of(GEN)[299]))  # MC buys the C&P private
    assert not session.game.round.station_declined
    session.submit({"type": "pass", "entity": "C&P"})
    assert session.game.round.station_declined

    session = recorded(GEN, 666)  # B&M's turn, no tile laid yet
    game = session.game
    give_company(game, "D&H", "B&M")
    lay = next(o for o in game.legal_actions(kinds={"lay_tile"}) if o.get("entity") == "D&H")
    game.round.station_declined = True  # the position: B&M declined C&P's station this turn
    game.edited()
    assert not any(o.get("entity") == "D&H" for o in game.legal_actions(kinds={"lay_tile"}))
    session.submit({k: v for k, v in lay.items() if k not in ("min", "max", "step")})
    assert game.acting() == ["D&H"]


def test_the_virginia_coalfields_end_the_track_of_a_corporation_without_a_coal_marker() -> None:
    """Track leads into the coalfields (K11) and on to J12: C&O, without a coal marker, reaches the
    coalfields but nothing beyond them; once it holds a marker its network goes on through them
    (docs/rules-1828.md, "The Virginia Coalfields end the track")."""
    session = recorded(GEN, 667)
    game = session.game
    board = game.board
    board.lay("K13", "9-20", 1)  # the position: C&O's Kanawha station (K15) - K13 - the coalfields - J12
    board.lay("J12", "9-21", 0)
    game.edited()
    co = game.corporations["C&O"]
    assert "K11" in board.reach("C&O").edges and "J12" not in board.reach("C&O").edges
    assert "I13" not in board.reach("C&O").edges
    co.cash = 1000
    coal.buy(game, co, {"type": "special_buy", "entity": "C&O"})
    assert board.reach("C&O").edges.get("J12") == {0, 3} and "I13" in board.reach("C&O").edges


def test_after_an_emergency_sale_a_train_from_another_corporation_must_need_the_sale() -> None:
    """After its president sold a share (at $119) in the buy-train step, B&M-IC ($103, the president $313)
    may buy another corporation's train only for more than $416 - $119 and at most its face value: none
    fits, so NYC-PRR's 2-train at $80, open before the sale, is refused after it (docs/rules-1828.md,
    "After an emergency sale")."""
    name = "generated/1828/gen1828_3p_544675"
    buy = {"type": "buy_train", "entity": "B&M-IC", "train": "2-2", "price": 80, "shell": "IC"}
    before = recorded(name, 344).game  # the sale is action index 344
    assert before.corporations["B&M-IC"].cash == 103 and before.accepts(buy)
    session = recorded(name, 345)
    game = session.game
    assert game.acting() == ["B&M-IC"] and game.player(1003).cash == 313
    assert refused(session, buy) == "train_price"
    assert not any(game.depot.by_id(o["train"]).owner for o in game.legal_actions(kinds={"buy_train"}))


def test_a_system_arranging_its_trains_mends_a_crowded_shell_by_moving_not_discarding() -> None:
    """Once a System has moved a train between its shells, no train-limit discard is asked while it
    arranges them: a shell it over-fills is mended by moving a train back, and only then may it say it is
    done (docs/rules-1828.md, "Arranging trains between shells")."""
    from shared.engine.titles.g1828.systems import add_to_shell, shells

    session = recorded(MARKET, 433)  # CPR-NW arranges its trains: CPR's shell empty, NW's full (limit 4)
    game = session.game
    system = game.corporations["CPR-NW"]
    extra = next(t for t in game.depot.trains if t.owner is None and not t.rusted)
    extra.owner = system.sym  # the position: one more train, in the CPR shell
    system.trains.append(extra)
    add_to_shell(game, system, "CPR", extra.id)
    game.edited()
    session.submit({"type": "swap_train", "entity": "CPR-NW", "train": extra.id})  # NW now holds five
    assert len(shells(game, system)["NW"]) == 5
    assert game.acting() == ["CPR-NW"] and game.round.actions_for(game, "CPR-NW") == ["swap_train"]
    assert not game.legal_actions(kinds={"discard_train"})
    assert refused(session, {"type": "pass", "entity": "CPR-NW"})
    game = session.game  # a refusal gives the state back as it was (an equal copy in 1828, not the same object)
    assert len(shells(game, game.corporations["CPR-NW"])["NW"]) == 5
    session.submit({"type": "swap_train", "entity": "CPR-NW", "train": "2-2"})
    assert game.round.actions_for(game, "CPR-NW") == ["swap_train", "pass"]


def test_a_corporation_discarding_over_its_limit_is_not_offered_bankruptcy() -> None:
    """rules-1828 *Only the corporation that must buy a train can go bankrupt*: B&O-C&O's purchase leaves
    WAB over its train limit; WAB, which could not pay for a train either, only discards: bankruptcy is
    neither offered nor accepted (the clock soak, 4 players, seed 9, was offered it in such a position)."""
    import json
    from pathlib import Path

    from shared.engine import GameSession
    from shared.engine.errors import IllegalAction

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "generated" / "1828" / \
        "gen1828_4p_2999273.json"
    session = GameSession.from_record(json.loads(fixture.read_text()), limit=504)
    game = session.game
    assert game.acting() == ["WAB"] and game.round.corp(game).sym == "B&O-C&O"
    bankrupt = next(s for s in game.round.steps if type(s).__name__ == "Bankrupt")
    assert bankrupt.may_go_bankrupt(game, game.corporations["WAB"])  # poor enough, were it its turn
    assert {a["type"] for a in session.legal_actions()} == {"discard_train"}
    with pytest.raises(IllegalAction):
        session.submit({"type": "bankrupt", "entity": "WAB", "entity_type": "corporation"})


def test_the_president_sells_in_the_train_step_only_what_the_cheapest_train_needs() -> None:
    """rules-1828 "Emergency sales": PRR-CPR ($104, trains running, not obliged to buy) and its president
    1001 ($34) lack $112 for the cheapest depot train ($250): he may sell one share or two NYC-NW ($106 each:
    the second is needed, one alone is not enough), never more than that lack needs."""
    session = recorded("generated/1828/gen1828_egp_4p_263517", 230)
    game = session.game
    assert game.round.corp(game).sym == "PRR-CPR" and game.round.corp(game).trains
    offered = [o["shares"] for o in game.legal_actions_of(1001) if o["type"] == "sell_shares"]
    assert offered == [["MC-B&M_1"], ["NYC-NW_4"], ["NYC-NW_4", "NYC-NW_5"]]
    session.submit({"type": "sell_shares", "entity": 1001, "shares": ["NYC-NW_4"], "percent": 10})
    assert game.player(1001).cash == 140  # $6 short now: one more share, no two
    session.submit({"type": "sell_shares", "entity": 1001, "shares": ["NYC-NW_5"], "percent": 10})
    # $350 in hand for a $250 train: no sale is needed any more, none is offered or accepted
    assert not [o for o in game.legal_actions_of(1001) if o["type"] == "sell_shares"]
    assert refused(session, {"type": "sell_shares", "entity": 1001, "shares": ["MC-B&M_1"], "percent": 10}) \
        == "sell_shares"


def test_no_station_on_a_hex_reserved_for_a_home_not_yet_placed() -> None:
    """rules-1828 "Stations": a hex holding another corporation's home reservation not yet tied to one of
    its cities (E15, H22 before ERIE's or its neighbour's home) takes no other station (the reference:
    "remaining token slots are reserved on E15"); the token step does not wait for it."""
    session = recorded(GEN, 219)  # GT's token step: Dunkirk D8 (57-2-0) is its one place to go
    game = session.game
    assert [o["city"] for o in game.legal_actions("GT") if o["type"] == "place_token"] == ["57-2-0"]
    h = game.board.hexes["D8"]
    game.board.hexes["D8"] = h.clone().with_state(h.tile, h.rotation, h.copy, [list(s) for s in h.tokens],
                                                  [list(s) for s in h.reservations], ["ERIE"], list(h.blockers))
    game.serial += 1  # what the round remembered of the old state is for the old state
    assert not [o for o in game.legal_actions("GT") if o["type"] == "place_token"]
    assert refused(session, {"type": "place_token", "entity": "GT", "city": "57-2-0", "slot": 0}) in (
        "token_reserved", "wrong_action_now")
    assert "place_token" not in game.round.actions_for(game, "GT")


def test_bankruptcy_may_be_declared_at_any_point_of_the_corporations_turn() -> None:
    """rules-1828 "Bankruptcy": the operating corporation may declare it in its track step already, when it
    and its president cannot raise the cheapest depot train's price (banked bot game
    camp1828_ensure_good_privates_3p_9781132 index 1028: B&O-MP declares after its tile)."""
    session = recorded(BANKRUPT, 776)  # CPR's turn, before its track pass; it declares at 777
    game = session.game
    assert game.acting() == ["CPR"] and "bankrupt" in game.round.actions_for(game, "CPR")
    assert any(o["type"] == "bankrupt" for o in game.legal_actions("CPR"))
    session.submit({"type": "bankrupt", "entity": "CPR", "entity_type": "corporation"})
    assert game.finished and game.game_end_reason == "bankrupt"


def test_declared_before_the_train_step_bankruptcy_counts_and_sells_no_shares() -> None:
    """CPR ($207) needs a $900 train; its president 18614 has $500 and shares worth more than the $193
    lacking. In the buy-train step the shares count and bankruptcy is refused; in the track step, where no
    emergency sale is open, only the money counts: bankruptcy is accepted and he keeps every share, his
    cash going to the bank (docs/rules-1828.md, "What a bankrupt president sells"; 1828.Games:4:9596219:
    ensure_good_privates reverse index 425)."""
    from shared.engine.model import POOL

    acts = actions_of(BANKRUPT)
    in_train_step = recorded(BANKRUPT, 777)  # CPR has passed its track step
    in_train_step.game.player(18614).cash = 500
    in_train_step.game.edited()
    assert refused(in_train_step, {"type": "bankrupt", "entity": "CPR", "entity_type": "corporation"}) == "bankrupt"

    session = recorded(BANKRUPT, 776)  # CPR in its track step
    game = session.game
    assert acts[776]["type"] == "pass" and game.round.active_step(game).__class__.__name__ == "Track1828"
    game.player(18614).cash = 500
    game.edited()
    held = {sym: game.corporations[sym].percent_owned_by(18614) for sym in ("B&M", "CPR", "MP")}
    pool = {sym: game.corporations[sym].percent_owned_by(POOL) for sym in held}
    assert any(o["type"] == "bankrupt" for o in game.legal_actions("CPR"))
    session.submit({"type": "bankrupt", "entity": "CPR", "entity_type": "corporation"})
    assert game.finished and game.player(18614).bankrupt and game.player(18614).cash == 0
    assert {sym: game.corporations[sym].percent_owned_by(18614) for sym in held} == held
    assert {sym: game.corporations[sym].percent_owned_by(POOL) for sym in held} == pool


CAMPAIGN = Path(__file__).resolve().parents[2] / "fixtures" / "campaign" / "1828"


def test_the_position_an_undo_returns_to_is_looked_at_so_a_waiting_mergers_float_counts() -> None:
    """Bot game camp1828_ensure_good_privates_5p_6502014 (first 845 actions): ERIE (not floated) merges with
    PRR at index 840; at 842 1004 answers, at 843 1001 takes the answer back (a reload), at 844 1004 gives
    it again and the merger completes. The reloaded position, a merger waiting for 1004 with ERIE's
    treasury past its float, is shown before the next move: ERIE counts as floated from there on, so the
    System keeps the two treasuries ($860). The reference shows the same after its undo. An import of the
    record goes on from the position its table saw (the reload at its last undo, then every move as made),
    so it holds the same $860 (the reference's own load of the whole record, never looked at between its
    moves, recapitalises the System: $1,570; docs/rules-1828.md, *Being watched*)."""
    record = json.loads((CAMPAIGN / "camp1828_ensure_good_privates_5p_6502014_845.json").read_text())
    session = GameSession.from_record(record, limit=844, on_action=lambda *_: None)  # move by move
    assert record["actions"][843]["type"] == "undo"
    assert session.game.corporations["ERIE"].floated  # seen on the reloaded position
    assert session.game.corporations["ERIE"].cash == 0
    session.submit(dict(record["actions"][844]), keep_id=True, recorded=True)
    assert session.game.round.merger is None  # the merger completed with 1004's sale
    system = session.game.corporations["ERIE-PRR"]
    assert (system.floated, system.cash) == (True, 860)
    imported = GameSession.from_record(record)  # an import: the game as its table saw it
    assert imported.game.corporations["ERIE-PRR"].cash == 860
    assert imported.digest() == session.digest()


def test_a_buy_order_for_a_merged_corporation_stays_while_no_purchase_is_open() -> None:
    """Bot game camp1828_base_5p_7787909 (first 621 actions), played live: 1001's order buys C&O up to four
    shares (index 604, one bought at 608); C&O merges into C&O-NYC at 611. When 1001's turn comes (after
    1005's pass at 619) he has $3 and can only sell: the order, for a corporation with no certificates left
    anywhere, is looked at as any order (docs/standing-orders.md S5) and, no purchase being open, does
    nothing and stays (the reference clears it only at the round's end). Railpost cleared it at once."""
    record = json.loads((CAMPAIGN / "camp1828_base_5p_7787909_621.json").read_text())
    session = GameSession.from_record(record, limit=620, live=True)
    player = session.game.player(1001)
    assert session.game.acting() == [1001]
    assert "C&O" not in session.game.corporations  # merged into C&O-NYC
    assert "buy_shares" not in session.game.round.actions_for(session.game, 1001)
    assert [p["type"] for p in player.programs] == ["program_buy_shares"]
    assert not session.entries[-1].action.get("auto_actions")  # the pass that gave 1001 the turn fired nothing
    session.submit({"type": "sell_shares", "entity": 1001, "entity_type": "player", "shares": ["B&O_3"],
                    "percent": 10})
    assert [p["type"] for p in player.programs] == ["program_buy_shares"]


def test_a_merger_that_would_run_the_systems_shares_out_is_refused() -> None:
    """Bot game camp1828_ensure_good_privates_5p_6809478 (first 1462 actions): PRR merges with WAB; 1002,
    holding WAB's president's certificate and one PRR share (kept back as his odd share), must trade for PRR
    shares and may pick 1003 or 1005. Trading with 1005 gives 1002 two pairs; he takes the presidency from
    the treasury (a share more), and by the end the market's pairs have emptied the System's treasury while
    one discarded PRR share is still owed a System share. The reference refuses that choice ("A share bundle
    must contain at least one share"); Railpost completed the merger and owed the market nothing. Trading
    with 1003 leaves enough shares and is accepted."""
    record = json.loads((CAMPAIGN / "camp1828_ensure_good_privates_5p_6809478_1462.json").read_text())
    session = GameSession.from_record(record)
    game = session.game
    assert game.acting() == [1002] and game.round.merger is not None
    # neither answer completes the merger, so every answer the engine takes is offered: only the one it takes
    assert [a["choice"] for a in session.legal_actions(1002) if a["type"] == "choose"] == ["Player 3"]
    before = session.digest()
    with pytest.raises(IllegalAction) as refused:
        session.submit({"type": "choose", "entity": 1002, "entity_type": "player", "choice": "Player 5"})
    assert refused.value.rule == "merger_shares_exhausted"
    assert session.digest() == before  # nothing moved: still 1002's choice, the merger open
    assert session.game.round.merger is not None
    session.submit({"type": "choose", "entity": 1002, "entity_type": "player", "choice": "Player 3"})
    assert session.game.acting() == [1002]  # the exchanges go on: 1002 picks again for his second pair


def test_an_exchange_that_finds_the_system_treasury_empty_is_refused() -> None:
    """docs/rules-1828.md *The System's shares run out*: every exchange of a player or the market takes its
    System share from the treasury; a move after which the exchanges would find it empty is refused. Bot
    game camp1828_base_5p_6367086 (first 1197 actions): GT merges with NW and 1003, keeping a GT share back,
    is asked to trade it up or sell it. Either way the market's four pairs empty the treasury and its last
    NW share finds nothing: the reference refuses both answers ("A share bundle must contain at least one
    share", "undefined method to_bundle"); Railpost accepted the trade-up, the market going short."""
    record = json.loads((CAMPAIGN / "camp1828_base_5p_6367086_1197.json").read_text())
    session = GameSession.from_record(record)
    assert session.game.acting() == [1003] and session.game.round.merger is not None
    before = session.digest()
    for answer in ("Exchange ($-25)", "Sell ($42)"):
        with pytest.raises(IllegalAction) as refused:
            session.submit({"type": "choose", "entity": 1003, "entity_type": "player", "choice": answer})
        assert refused.value.rule == "merger_shares_exhausted"
        assert session.digest() == before  # nothing moved: the merger waits for an answer, or an undo
    assert not [a for a in session.legal_actions(1003) if a["type"] == "choose"]


def test_a_merger_whose_system_treasury_pays_only_part_of_the_discards_completes() -> None:
    """docs/rules-1828.md *The System's shares run out*: the market gets the System shares still in the
    treasury, as many as the discarded starting-corporation shares ask for, and the merger completes as long
    as at least one is left. Bot game camp1828_ensure_good_privates_5p_6899070 (first 904 actions): 1004
    names NYH, which takes B&M as its partner. 1004 (B&M 50%) and 1005 (NYH 40%) exchange their pairs,
    1003, 1001 and 1002 sell their singles (1003's is NYH's), 1004 sells his odd B&M share, and the market's
    50% NYH and 30% B&M exchange until one System share is left for two discarded NYH shares.
    The reference completes the merger with that one share in the market (NYH-B&M: 50% market, 10% treasury
    after 1004's gift, $147); Railpost refused the merge."""
    record = json.loads((CAMPAIGN / "camp1828_ensure_good_privates_5p_6899070_904.json").read_text())
    session = GameSession.from_record(record)
    session.submit({"type": "merge", "entity": "NYH", "entity_type": "corporation", "corporation": "B&M"})
    game = session.game
    assert "NYH" not in game.corporations and "B&M" not in game.corporations
    digest = session.digest()
    corp = digest["corporations"]["NYH-B&M"]
    assert (corp["market_percent"], corp["treasury_percent"], corp["cash"], corp["president"]) == (50, 10, 147, 1004)
    assert {p: digest["players"][p]["cash"] for p in digest["players"]} == {
        "1004": 59, "1002": 50, "1005": 65, "1003": 230, "1001": 56}
    assert game.acting() == [1004]  # the merger was his purchase: he may still pass or sell


def test_sales_that_hand_the_presidency_over_are_offered() -> None:
    """docs/rules-1828.md, Stock round: with another player holding more than the seller would keep, the
    president's certificate is offered with any number of his ordinary shares, whole or all but half of it;
    where the seller would stay the largest holder it is not (his ordinary shares are)."""
    session = recorded("generated/1828/gen1828_4p_2999273", 174)
    game = session.game
    gt = game.corporations["GT"]
    for share in gt.shares:  # 1004 presides with his certificate and one share, 1002 holds three
        if share.owner not in (gt.sym,):
            gt.give(share, gt.sym)
    gt.give(gt.shares[0], 1004)
    gt.give(gt.shares[5], 1004)
    for index in (3, 1, 2):
        gt.give(gt.shares[index], 1002)
    game.edited()

    def offered() -> set[tuple[tuple[str, ...], int]]:
        return {(tuple(o["shares"]), o["percent"]) for o in game.legal_actions_of(1004, orders=False)
                if o["type"] == "sell_shares" and o["shares"][0].startswith("GT_")}

    assert offered() == {(("GT_5",), 10), (("GT_0",), 10), (("GT_0",), 20), (("GT_5", "GT_0"), 20),
                         (("GT_5", "GT_0"), 30)}
    for shares, percent in offered():
        assert game.accepts({"type": "sell_shares", "entity": 1004, "shares": list(shares), "percent": percent})
    gt.give(gt.shares[3], gt.sym)  # 1002 now holds 20%: only a sale leaving 1004 under 20% passes it on
    game.edited()
    assert offered() == {(("GT_5",), 10), (("GT_0",), 20), (("GT_5", "GT_0"), 20), (("GT_5", "GT_0"), 30)}
    gt.give(gt.shares[1], gt.sym)  # 1002 holds 10%: nobody can take the presidency over
    game.edited()
    assert offered() == {(("GT_5",), 10)}


def test_a_sale_names_whole_shares_and_keeps_back_at_most_part_of_the_certificate() -> None:
    """docs/rules-1828.md, Stock round (conflicts-1828 #24): a sale's percent is a whole number of shares, and
    it may keep back only part of the president's certificate; the reference takes 15% or a sale naming a
    certificate it does not sell, Railpost refuses both and nothing changes."""
    session = recorded("1828/1828Games_game_end_bankrupt", 72)  # 11241: MP_0 (20%) and MP_1; 684 holds 30%
    before = json.dumps(session.game.digest({}), sort_keys=True)
    for percent in (15, 5, 25, 10):  # 10: keeps back the whole certificate, naming a share it does not sell
        with pytest.raises(EngineError) as err:
            session.submit({"type": "sell_shares", "entity": 11241, "shares": ["MP_1", "MP_0"], "percent": percent})
        assert err.value.rule == "shares_percent"
    assert json.dumps(session.game.digest({}), sort_keys=True) == before
    cash, price = session.game.player(11241).cash, session.game.share_price(session.game.corporations["MP"])
    assert price is not None
    session.submit({"type": "sell_shares", "entity": 11241, "shares": ["MP_1", "MP_0"], "percent": 20})
    assert session.game.corporations["MP"].president == 684  # 684 now holds more than the 10% kept
    assert session.game.player(11241).cash == cash + 2 * price


def test_after_the_discards_a_system_may_buy_again_into_the_shell_they_emptied() -> None:
    """Bot game camp1828_ensure_good_privates_3p_3335116 (first 738 actions): IC-MC buys the first 6-train into
    its IC shell; the Red phase lowers the limits, so MP-ERIE and IC-MC must discard. With no room left the
    purchase seemed to end IC-MC's train step, but the step is asked again after the discards: IC-MC,
    having discarded the 6 and a 3+D, buys MP-ERIE's 5-train for $178 into IC before MP-ERIE operates."""
    record = json.loads((CAMPAIGN / "camp1828_ensure_good_privates_3p_3335116_738.json").read_text())
    session = GameSession.from_record(record)
    assert session.game.acting() == ["MP-ERIE"]
    for move in ({"type": "discard_train", "entity": "MP-ERIE", "entity_type": "corporation", "train": "5-1"},
                 {"type": "discard_train", "entity": "IC-MC", "entity_type": "system", "train": "6-0"},
                 {"type": "discard_train", "entity": "IC-MC", "entity_type": "system", "train": "3+D-1"}):
        session.submit(move)
    game = session.game
    assert game.acting() == ["IC-MC"]  # its train step goes on; MP-ERIE waits
    assert {a["type"] for a in session.legal_actions("IC-MC")} >= {"buy_train", "pass"}
    cash = game.corporations["IC-MC"].cash
    session.submit({"type": "buy_train", "entity": "IC-MC", "entity_type": "system", "train": "5-0",
                    "price": 178, "shell": "IC"})
    game = session.game
    assert game.corporations["IC-MC"].cash == cash - 178
    assert "5-0" in [t.id for t in game.corporations["IC-MC"].trains]


def test_a_purchase_that_left_no_shell_room_ends_the_train_step_after_the_discards() -> None:
    """Bot game camp1828_ensure_good_privates_3p_5756497 (first 561 actions): GT-MC, the round's last
    corporation, buys the first 6-train into MC; before it took its place GT held three trains and MC two,
    at the Red limit of two, so no shell had room and the step ended with the purchase. After GT-MC's and
    B&O-PRR's discards the stock round begins (1003 acts), although a discard emptied room in a shell."""
    record = json.loads((CAMPAIGN / "camp1828_ensure_good_privates_3p_5756497_561.json").read_text())
    session = GameSession.from_record(record)
    assert session.game.acting() == [1003]
    assert type(session.game.round).__name__ != "OperatingRound1828"


def test_after_the_discards_a_corporation_short_of_the_banks_price_may_buy_another_majors_train() -> None:
    """docs/rules-1828.md, *After the discards*: NYH (people's game 23366) buys the 3+D that brings the new
    phase and keeps $340, less than any train the bank sells; another major has trains, so its train step
    stays open through NYC's discard and NYH buys NYC's 3-train for $280."""
    session = recorded("1828/23366", 305)
    game = session.game
    nyh = game.corporations["NYH"]
    assert [t.id for t in nyh.trains] == ["5-3", "3+D-0"] and nyh.cash == 340
    session.submit({"type": "discard_train", "entity": "NYC", "entity_type": "corporation", "train": "3-7"})
    assert game.acting() == ["NYH"]
    session.submit({"type": "buy_train", "entity": "NYH", "entity_type": "corporation", "train": "3-8", "price": 280})
    assert [t.id for t in nyh.trains] == ["5-3", "3+D-0", "3-8"] and nyh.cash == 60

"""1840 rules found by letting the reference replay Railpost's own random games (issues 21/22): red centre
tiles, off-board areas, the reassignment step, purchases during an extra lay and the end of a stock turn
(docs/rules-1840.md). Each test sets up a position of a recorded game."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from shared.engine.errors import IllegalAction

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_1840_tram_turn import session_at  # noqa: E402


def lay(game: Any, entity: str, hex_id: str, tile: str, rotation: int) -> None:
    game.process({"type": "lay_tile", "entity": entity, "hex": hex_id, "tile": tile, "rotation": rotation})


# -- red and purple extra lays ------------------------------------------------------------------------------
def red_lay_position() -> Any:
    """gen1840_4p_344173 after 471 actions: line 7's track reaches Karlskirche (E21) on its sides 0 and 4;
    E21's sides 1 and 2 are impassable. The extra red lay a Stadtbahn tile grants is made pending."""
    session = session_at("gen1840_4p_344173", 471)
    game = session.game
    assert game.round.current_entity(game) == "7"
    assert game.board.reach("7").edges["E21"] == {0, 4}
    game.round.pending.insert(0, "red")
    return session


def test_a_red_tile_keeps_its_track_off_the_impassable_sides() -> None:
    session = red_lay_position()
    game = session.game
    offered = [a for a in session.legal_actions("7") if a["type"] == "lay_tile"]
    # L20-L23 (exits 0, 3, 4, 5) fit E21 unturned only: any other turn points track across side 1 or 2
    assert {(a["hex"], a["rotation"]) for a in offered} == {("E21", 0)}
    assert {a["tile"].split("-")[0] for a in offered} == {"L20", "L21", "L22", "L23"}
    for rotation in (1, 2, 3):
        with pytest.raises(IllegalAction) as err:
            lay(game, "7", "E21", "L22-0", rotation)
        assert err.value.rule == "special_lay_rotation"
    major = game.rules.owner_major(game, game.corporations["7"])
    cash = major.cash
    lay(game, "7", "E21", "L22-0", 0)
    assert game.board.hex("E21").tile.name == "L22" and major.cash == cash  # the red lay costs nothing
    assert "red" not in game.round.pending


def test_a_red_tile_goes_only_on_a_red_hex_connected_to_the_line() -> None:
    game = red_lay_position().game
    assert "D20" not in game.board.reach("7").edges
    with pytest.raises(IllegalAction) as err:
        lay(game, "7", "D20", "L22-0", 4)  # the one turn D20's sides allow, but line 7 does not reach it
    assert err.value.rule == "special_lay_connect"


def test_a_red_hex_takes_its_tile_once() -> None:
    game = red_lay_position().game
    lay(game, "7", "E21", "L22-0", 0)
    game.round.pending.insert(0, "red")
    with pytest.raises(IllegalAction) as err:
        lay(game, "7", "E21", "L21-0", 0)
    assert err.value.rule == "special_lay"


def test_no_private_is_bought_while_an_extra_lay_is_pending() -> None:
    game = red_lay_position().game
    assert "buy_company" not in game.round.open_actions(game)
    assert sorted(game.round.open_actions(game)) == ["lay_tile", "pass"]


# -- off-board areas ----------------------------------------------------------------------------------------
def test_track_does_not_run_on_through_an_off_board_area() -> None:
    """gen1840_2p_382918 after 171 actions: line 6's track arrives at the off-board area I27 on its side 1;
    its other sides are not part of line 6's network."""
    game = session_at("gen1840_2p_382918", 171).game
    assert game.board.hex("I27").tile.nodes[0].kind == "offboard"
    assert game.board.reach("6").edges["I27"] == {1}


# -- the reassignment step ----------------------------------------------------------------------------------
def test_a_scrap_that_ends_the_purchases_leads_to_the_reassignment() -> None:
    """gen1840_3p_289409 after 104 actions, company round, trams stage: WT holds no tram, its line 10 runs
    Y1-0. With nothing on sale, scrapping Y1-0 ends the purchase step; WT still has its reassignment step
    (an empty one, no pass), then DT K&C's tram turn follows."""
    game = session_at("gen1840_3p_289409", 104).game
    assert game.round.current_entity(game) == "WT"
    for train in game.depot.trains:
        if train.owner is None:
            train.rusted = True
    game.process({"type": "scrap_train", "entity": "WT", "train": "Y1-0"})
    assert game.round.current_entity(game) == "WT"
    assert game.round.open_actions(game) == ["reassign_trains"]
    with pytest.raises(IllegalAction):
        game.process({"type": "pass", "entity": "WT"})
    game.process({"type": "reassign_trains", "entity": "WT", "assignments": []})
    assert game.round.current_entity(game) == "DT K&C"


def test_a_major_keeps_a_tram_only_when_each_line_runs_one() -> None:
    """gen1840_3p_289409 after 149 actions: WT, lines 10 and 3 without trams, buys one tram; it must go to
    a line, not stay with WT."""
    session = session_at("gen1840_3p_289409", 149)
    game = session.game
    wt = game.corporations["WT"]
    wt.cash = 1000
    offer = next(a for a in session.legal_actions("WT") if a["type"] == "buy_train")
    game.process({k: offer[k] for k in ("type", "entity", "train", "price", "variant") if k in offer})
    tram = wt.trains[-1].id
    while game.round.open_actions(game) != ["reassign_trains"]:
        game.process({"type": "pass", "entity": "WT"})
    offered = [a["assignments"] for a in session.legal_actions("WT") if a["type"] == "reassign_trains"]
    assert sorted(x[0]["corporation"] for x in offered) == ["10", "3"]
    with pytest.raises(IllegalAction) as err:
        game.process({"type": "reassign_trains", "entity": "WT", "assignments": []})
    assert err.value.rule == "reassign"
    game.process({"type": "reassign_trains", "entity": "WT", "assignments": [{"train": tram, "corporation": "3"}]})
    assert [t.id for t in game.corporations["3"].trains] == [tram] and not wt.trains


# -- the end of a stock turn --------------------------------------------------------------------------------
def stock_turn_with_nothing_to_do(cash: int) -> tuple[Any, Any]:
    """A stock round once lines are owned; the player whose turn it is has sold every company this round
    (so may buy none back) and holds nothing he could sell."""
    from shared.engine.core.stockround import StockRound

    session = session_at("gen1840_3p_289409", 119)
    game = session.game
    assert isinstance(game.round, StockRound) and any(game.title_state.owned_lines.values())
    pid = game.round.current_entity(game)
    player = game.player(pid)
    for corp in game.corporations.values():
        for share in corp.shares:
            if share.owner == pid and not share.president:
                share.owner = "pool"
        game.round.sold.setdefault(pid, {})[corp.sym] = "now"
    player.cash = cash
    return game, player


def test_a_stock_turn_with_nothing_to_do_waits_for_a_pass_while_130_is_in_hand() -> None:
    game, player = stock_turn_with_nothing_to_do(130)
    assert game.round.steps[0].actions(game, game.round, player.id) == ["pass"]


def test_a_stock_turn_with_nothing_to_do_ends_by_itself_below_130() -> None:
    game, player = stock_turn_with_nothing_to_do(129)
    assert game.round.steps[0].actions(game, game.round, player.id) == []


# -- Stadtbahn chains ---------------------------------------------------------------------------------------
def test_a_stadtbahn_tile_goes_on_an_end_of_its_chain() -> None:
    """gen1840_4p_344173 after 139 actions, line 1's first turn: V's chain B10 C9 D6 E7 F6 G5 has no tile
    yet; V's station on F6 half-way along does not open E7 — only B10 and G5 may take V's tiles."""
    from shared.engine.titles.g1840.line import check_extends_stadtbahn

    session = session_at("gen1840_4p_344173", 139)
    game = session.game
    assert game.board.hex("F6").tokens == [["V"]]
    offered = {a["hex"] for a in session.legal_actions("1") if a["type"] == "lay_tile"}
    assert {"B10", "G5"} <= offered and not offered & {"C9", "D6", "E7", "F6"}
    for hex_id in ("C9", "D6", "E7", "F6"):
        with pytest.raises(IllegalAction) as err:
            check_extends_stadtbahn(game, hex_id)
        assert err.value.rule == "stadtbahn_track"
    check_extends_stadtbahn(game, "G5")


# -- upgrades keep the kind of track ------------------------------------------------------------------------
def test_an_upgrade_keeps_narrow_track_narrow() -> None:
    """L2 (narrow 1-town-4 in rotation 1) upgrades to L9 only where L9's narrow track runs 1-4."""
    from shared.engine.board.upgrades import rotation_problem

    game = session_at("gen1840_4p_344173", 139).game
    old, new = game.board.catalogue["L2"], game.board.catalogue["L9"]
    everywhere = {e: "X" for e in range(6)}
    allowed = [r for r in range(6) if rotation_problem(old, 1, new, r, everywhere) is None]
    assert allowed == [0, 3]  # rotation 4 would lay L9's broad track over the old narrow 1-4
    assert rotation_problem(old, 1, new, 4, everywhere) == "the new tile does not keep all existing track"


# -- Tram Company payout ------------------------------------------------------------------------------------
def test_a_tram_companys_market_shares_earn_nothing() -> None:
    """1840/2player after 50 actions: WT pays out of line 4's box of 140. One of the players' 10% is put
    in the market first: it earns nothing, and WT keeps only what it withholds."""
    import json

    from shared.engine import GameSession
    from shared.engine.session import final_active_flags

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "1840" / "2player.json"
    rec = json.loads(fixture.read_text())
    session = GameSession.new(rec["title"], rec["players"], rec["settings"]["seed"],
                              rec["settings"].get("optional_rules") or [], rec["id"])
    flags = final_active_flags(rec["actions"])
    for i, action in enumerate(rec["actions"][:50]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
    game = session.game
    wt = game.corporations["WT"]
    share = next(sh for sh in wt.shares if sh.owner == 621)
    share.owner = "pool"  # 621 now holds 10%, the market 10% (and WT's treasury 20%)
    cash_wt, cash_2006, cash_621 = wt.cash, game.player(2006).cash, game.player(621).cash
    game.process({"type": "dividend", "entity": "WT", "kind": "variable", "amount": 100})
    assert game.player(2006).cash == cash_2006 + 60  # 60%
    assert game.player(621).cash == cash_621 + 10  # 10%
    assert wt.cash == cash_wt + 40  # the 40 withheld; nothing for the market's or the treasury's shares


# -- stations when a tile is upgraded -----------------------------------------------------------------------
def test_stations_close_up_when_their_city_is_upgraded() -> None:
    """gen1840_4p_344173 after 400 actions: B12 (tile 15) holds line 11's station. With it in slot 1 and
    slot 0 empty (as after a removed station), the upgrade to 611 moves it to slot 0; slot 1 is free."""
    from shared.engine.board.upgrades import rotation_problem

    game = session_at("gen1840_4p_344173", 400).game
    board = game.board
    h = board.hex("B12")
    assert h.tile.name == "15" and h.tokens == [["11", None]]
    h.tokens = [[None, "11"]]
    new = board.catalogue["611"]
    rotation = next(r for r in range(6) if rotation_problem(h.tile, h.rotation, new, r, h.neighbors) is None)
    board.lay("B12", "611-0", rotation)
    assert board.hex("B12").tokens == [["11", None]]
    board.check_token("12", board.city_id("B12", 0), 1, must_connect=False)  # slot 1 is the free one


# -- the last chance to buy a private ------------------------------------------------------------------------
def last_purchase_position(keep: list[str]) -> Any:
    """gen1840_4p_3333 after 163 actions: line 1 has run and has its last chance to buy a private for its
    major. Arranged: every private except `keep` is closed."""
    game = session_at("gen1840_4p_3333", 163).game
    line = game.round
    assert line.current_entity(game) == "1" and line.stage == "company"
    for company in game.companies.values():
        if company.sym not in keep and isinstance(company.owner, int):
            game.player(company.owner).companies.remove(company.sym)
            company.owner, company.closed = None, True
    return game


def test_buying_the_last_private_for_sale_ends_the_lines_turn() -> None:
    game = last_purchase_position(["KK", "SB"])
    major = game.rules.owner_major(game, game.corporations["1"])
    major.cash = 100
    game.process({"type": "buy_company", "entity": "1", "company": "KK", "price": 1})
    assert game.round.current_entity(game) == "1" and game.round.open_actions(game) == ["buy_company", "pass"]
    game.process({"type": "buy_company", "entity": "1", "company": "SB", "price": 1})
    assert game.round.current_entity(game) != "1"  # nothing left to buy: no pass asked
    assert {"KK", "SB"} <= set(major.companies)


def test_a_purchase_that_leaves_the_major_unable_to_pay_any_other_ends_the_turn() -> None:
    game = last_purchase_position(["KK", "SB"])
    major = game.rules.owner_major(game, game.corporations["1"])
    cheapest_left = game.companies["SB"].min_price
    major.cash = cheapest_left + 5
    game.process({"type": "buy_company", "entity": "1", "company": "KK", "price": 6})
    assert major.cash < cheapest_left and game.round.current_entity(game) != "1"


def test_selling_the_last_private_to_the_bank_ends_the_lines_last_chance() -> None:
    game = last_purchase_position(["KK"])
    owner = game.companies["KK"].owner
    game.process({"type": "choose_ability", "entity": "KK", "choice": {"type": "sell"}})
    assert game.companies["KK"].closed and owner is not None
    assert game.round.current_entity(game) != "1"


# -- a pass in the acquisition round's tram turns --------------------------------------------------------------
def test_a_pass_ends_the_purchase_step_of_the_major_that_acts() -> None:
    """gen1840_3p_289409 after 159 actions: the bidding is over and the majors' tram turns follow.
    Arranged: SJE (its single line runs its only tram: nothing to reassign) waits for its reassignment
    ahead of DT K&C (no line), which is in its purchase step and acts. DT K&C's pass ends its own purchase
    step; with nothing left for anyone to decide the round ends."""
    game = session_at("gen1840_3p_289409", 159).game
    acq = game.round
    assert acq.kind == "Acquisition" and acq.restocked
    acq.interrupt = [("SJE", "reassign"), ("DT K&C", "buy")]
    assert acq.current_entity(game) == "DT K&C"
    assert acq.open_actions(game) == ["scrap_train", "pass"]
    game.process({"type": "pass", "entity": "DT K&C"})
    assert acq.done
    assert [t.id for t in game.corporations["DT K&C"].trains] == ["O1-3", "Y1-1"]


# -- a Stadtbahn chain end filled by an extra lay --------------------------------------------------------------
def test_a_chain_hex_filled_by_an_extra_lay_leaves_that_end_of_the_stadtbahn_closed() -> None:
    """rules-1840 *Tile lays*: G's chain runs B16 B14 C13 D12 E13 F12 H12 (3-player small map). Line 7 built
    B16 with its Stadtbahn tile; line 11 then put L2 on B14 as the extra lay of its own Stadtbahn tile on
    G23. B14 was not built as a Stadtbahn lay, so G's chain is still open at B14 (now filled) and goes on
    from H12 only: C13 is refused and not offered (18xx.games refuses it too: Railpost's game 5143970)."""
    import json

    from shared.engine import GameSession

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "reverse" / "1840" / \
        "rp_1840_3p_5143970_three_player_small.json"
    session = GameSession.from_record(json.loads(fixture.read_text()))
    game = session.game
    assert game.acting() == ["7"] and game.board.hex("B14").tile.name == "L2"
    assert "B16" in game.title_state.stadtbahn_built and "B14" not in game.title_state.stadtbahn_built
    with pytest.raises(IllegalAction) as err:
        lay(game, "7", "C13", "L2-2", 3)
    assert err.value.rule == "stadtbahn_track" and "next: H12" in str(err.value)
    chain = {"C13", "D12", "E13", "F12", "H12"}
    assert {a["hex"] for a in session.legal_actions("7") if a["type"] == "lay_tile"} & chain == {"H12"}


# -- sold-out companies rise in operating order ----------------------------------------------------------------
def test_sold_out_companies_rise_in_operating_order_and_keep_it_on_the_new_cell() -> None:
    """rules-1840 *End of a stock round*: WKB reached 60 before SJE; both are sold out when the stock round
    ends and rise to 70 one after the other in operating order, so WKB is still ahead of SJE there and pays
    its dividend first (Railpost's game 1840:6:2184987: the reference had WKB before SJE)."""
    import json

    from shared.engine import GameSession
    from shared.engine.titles.g1840.company import operating_order

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "reverse" / "1840" / "rp_1840_6p_2184987.json"
    record = json.loads(fixture.read_text())
    before = GameSession.from_record(record, limit=644).game
    assert before.round.kind == "Stock"
    wkb, sje = before.corporations["WKB"], before.corporations["SJE"]
    assert wkb.share_cell == sje.share_cell == (4, 0)
    assert before.rules.arrival(before, wkb) < before.rules.arrival(before, sje)
    after = GameSession.from_record(record, limit=645).game
    assert after.round.kind == "Line"
    assert after.corporations["WKB"].share_cell == after.corporations["SJE"].share_cell == (3, 0)
    order = [c.sym for c in operating_order(after, after.rules.majors(after))]
    assert order.index("WKB") < order.index("SJE")


# -- stations lifted by the first track on a hex of several cities ---------------------------------------------
def test_the_line_whose_tile_lifts_another_lines_station_places_it_again_first() -> None:
    """rules-1840 *Stations lifted by the first track*: line 3's home station stands on E17 (two cities, no
    track). Line 7's extra lay puts 235 there: 3's station is lifted and line 7 must place it again, free, on
    either city of E17, before anything else (Railpost's game 1840:3:6345933; the reference agrees)."""
    import json

    from shared.engine import GameSession

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "reverse" / "1840" / \
        "rp_1840_3p_6345933_three_player_small.json"
    session = GameSession.from_record(json.loads(fixture.read_text()))
    game = session.game
    line3 = game.corporations["3"]
    assert game.acting() == ["7"] and game.board.hex("E17").tokens == [[None], [None]]
    assert line3.tokens_placed == 0
    offered = [a for a in session.legal_actions("7")]
    assert {(a["type"], a["city"]) for a in offered} == {("place_token", "235-0-0"), ("place_token", "235-0-1")}
    with pytest.raises(IllegalAction):
        lay(game, "7", "F16", "4-0", 1)
    cash = game.rules.owner_major(game, game.corporations["7"]).cash
    session.submit({"type": "place_token", "entity": "7", "entity_type": "corporation", "city": "235-0-1",
                    "slot": 0})
    assert game.board.hex("E17").tokens == [[None], ["3"]] and line3.tokens_placed == 1
    assert game.rules.owner_major(game, game.corporations["7"]).cash == cash  # free
    assert game.acting() == ["7"] and not game.round.pending


# -- an extra station for a line with none left ----------------------------------------------------------------
def test_an_extra_station_granted_to_a_line_with_none_left_is_lost() -> None:
    """rules-1840 *Tile lays* (extra station): line 6's Stadtbahn tile on G17 grants an extra station, but
    all six of its stations are on the map. It cannot place one, free or not; it may only pass (Railpost's
    game 1840:3:9162918 placed a seventh; 18xx.games cannot place it either)."""
    import json

    from shared.engine import GameSession

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "reverse" / "1840" / \
        "rp_1840_3p_9162918_three_player_small.json"
    session = GameSession.from_record(json.loads(fixture.read_text()))
    game = session.game
    line = game.corporations["6"]
    assert game.acting() == ["6"] and game.round.pending == ["token"]
    assert line.tokens_placed == len(line.token_prices)
    assert [a["type"] for a in session.legal_actions("6")] == ["pass"]
    with pytest.raises(IllegalAction) as err:
        game.process({"type": "place_token", "entity": "6", "city": "619-0-0", "slot": 1})
    assert err.value.rule == "token" and "lost" in str(err.value)
    session.submit({"type": "pass", "entity": "6", "entity_type": "corporation"})
    assert not game.round.pending and line.tokens_placed == len(line.token_prices)


# -- standing buy orders (found by the forward run of 2026-12-05, camp1840_three_player_small_3p_6451711) ----
@pytest.mark.parametrize("from_market", [True, False])
def test_a_buy_order_is_cleared_while_its_owner_must_start_a_tram_company(from_market: bool) -> None:
    """rules-1840 *Standing buy orders*: in SR1 player 1002 must start a Tram Company (his only move is a
    start); his order to buy Stadtbahn G is looked at all the same, finds nothing it may buy, and is
    cleared — the turn stays his, to start a company himself."""
    from shared.engine.programs import next_auto_actions

    session = session_at("gen1840_small_3p_986400", 51)
    game = session.game
    player = game.player(1002)
    assert game.acting() == [1002] and game.round.actions_for(game, 1002) == ["par"]
    player.programs = [{"type": "program_buy_shares", "entity": 1002, "entity_type": "player", "corporation": "G",
                        "until_condition": 2, "from_market": from_market, "auto_pass_after": False}]
    taken = next_auto_actions(game)
    assert [a["type"] for a in taken] == ["program_disable"]
    assert taken[0]["reason"].startswith("Cannot buy G from ")
    assert game.acting() == [1002]

"""Scenario tests for the 1828 rules written down in docs/rules-1828.md (one test per rule, each checking
money, prices, holdings or who acts next, and the refusal that guards the rule)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recorded_games import replayed  # tests/engine/titles: one replay-to-a-position helper

from shared.engine import GameSession
from shared.engine.errors import IllegalAction

CONFORMANCE = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"
GEN = "generated/1828/"
FOUNDING = ["CPR", "GT", "IC", "MC", "MP", "NKP", "NW", "OSH"]


def recorded(name: str, upto: int) -> GameSession:
    """A session replayed from a recorded game up to (not including) action `upto`."""
    return replayed(CONFORMANCE / f"{name}.json", upto)


def refused(session: GameSession, action: dict) -> str:
    before = json.dumps(session.game.digest({}), sort_keys=True)
    with pytest.raises(IllegalAction) as err:
        session.submit(action)
    assert json.dumps(session.game.digest({}), sort_keys=True) == before
    return err.value.rule


# -- set-up: the founding privates' draw -------------------------------------------------------------------
def _draw(state: int) -> tuple[int, int]:
    state = (1103515245 * state + 12345) % 2**31
    return state, state


def removed_by_draws(seed: int, players: int, ensure_good: bool) -> list[str]:
    """The README's procedure written out independently: sort the eight by one draw each, drop the first
    7 - players; with ensure_good_privates repeat (same generator) until one of GT, NW, OSH survives."""
    state = seed % 2**31
    while True:
        keys = []
        for i in range(len(FOUNDING)):
            state, key = _draw(state)
            keys.append((key, i))
        removed = [FOUNDING[i] for _, i in sorted(keys)][: 7 - players]
        if not ensure_good or not {"GT", "NW", "OSH"} <= set(removed):
            return sorted(removed)


def test_ensure_good_privates_repeats_the_draw_until_gt_nw_or_osh_survives() -> None:
    players = [{"id": i, "name": f"P{i}"} for i in range(1, 5)]
    seed = next(s for s in range(1, 100_000) if removed_by_draws(s, 4, False) == ["GT", "NW", "OSH"])
    plain = GameSession.new("1828.Games", players, seed)
    assert sorted(c.sym for c in plain.game.companies.values() if c.closed) == ["GT", "NW", "OSH"]
    good = GameSession.new("1828.Games", players, seed, ["ensure_good_privates"])
    removed = sorted(c.sym for c in good.game.companies.values() if c.closed)
    assert removed == removed_by_draws(seed, 4, True)
    assert not {"GT", "NW", "OSH"} <= set(removed)
    assert len(removed) == 3
    # the board is the same: only the draw differs
    assert good.game.board.hexes.keys() == plain.game.board.hexes.keys()


# -- mergers -------------------------------------------------------------------------------------------------
def test_an_unstarted_corporation_may_start_a_merger_but_cannot_form_a_system() -> None:
    session = recorded(GEN + "gen1828_3p_136186", 64)  # 1001 presides MC (5 shares, floated, not operated)
    game = session.game
    assert not game.corporations["NYH"].ipoed
    # NYH has no president and no price, yet MC is a partner it may name: the starting corporation need not
    # have been started, only the partner
    session.submit({"type": "choose", "entity": 1001, "choice": "NYH"})
    assert game.acting() == [1001]
    assert refused(session, {"type": "merge", "entity": "NYH", "corporation": "MC"}) == "merge"
    assert "NYH" in game.corporations and "NYH-MC" not in game.corporations


def test_a_system_never_merges_again_and_a_partner_must_have_been_started() -> None:
    session = recorded(GEN + "gen1828_3p_136186", 64)
    assert refused(session, {"type": "choose", "entity": 1001, "choice": "CPR-IC"}) == "merge"
    session.submit({"type": "choose", "entity": 1001, "choice": "MC"})
    assert refused(session, {"type": "merge", "entity": "MC", "corporation": "NYH"}) == "merge"


# -- operating: a run needs two stops joined by track ---------------------------------------------------------
def test_stations_with_no_track_between_them_run_nothing_and_the_price_drops() -> None:
    session = recorded(GEN + "gen1828_3p_544675", 116)
    game = session.game
    system = game.corporations["NYC-PRR"]
    assert game.acting() == ["NYC-PRR"] and system.trains
    price, cash = game.share_price(system), system.cash
    column = system.share_cell[1]
    session.submit({"type": "pass", "entity": "NYC-PRR"})  # no tile: two lone stations (E23, H16)
    assert "run_routes" not in {a["type"] for a in session.legal_actions("NYC-PRR")}
    assert system.share_cell[1] == column - 1 and game.share_price(system) < price  # withheld: one left
    assert system.cash == cash
    assert refused(session, {"type": "run_routes", "entity": "NYC-PRR", "routes": []}) != ""


# -- the C&P minor ---------------------------------------------------------------------------------------------
def test_the_cp_minor_runs_anywhere_on_its_network_over_the_tile_it_laid() -> None:
    record = json.loads((CONFORMANCE / f"{GEN}gen1828_5p_226194.json").read_text())
    session = recorded(GEN + "gen1828_5p_226194", 89)  # C&P has laid a tile in Ottawa (B20)
    game = session.game
    run = {k: v for k, v in record["actions"][89].items() if k not in ("id", "created_at")}
    # Ottawa-Kingston does not touch the C&P token in Peterborough, but lies on its network and uses B20
    other = dict(run, routes=[dict(run["routes"][0], connections=[["C15", "C17", "C19"]],
                                   hexes=["C15", "C19"], nodes=["C15-0", "C19-0"], revenue_str="C15-C19")])
    assert refused(session, other) == "route_laid_tile"  # a run away from the new tile
    game = session.game  # a refusal leaves the state as it was, rebuilt
    cash, owner_cash = game.corporations["C&P"].cash, game.player(1005).cash
    session.submit(run)  # $30: half to the minor, half to its owner
    assert (game.corporations["C&P"].cash, game.player(1005).cash) == (cash + 15, owner_cash + 15)


# -- more merger rules -------------------------------------------------------------------------------------------
def live_action(name: str, index: int) -> dict:
    record = json.loads((CONFORMANCE / f"{name}.json").read_text())
    return {k: v for k, v in record["actions"][index].items() if k not in ("id", "created_at", "auto_actions")}


def test_after_a_merger_a_grey_cell_president_may_still_buy_two_shares() -> None:
    """The merger was the turn's purchase; what a purchase leaves open stays open (docs/rules-1828.md)."""
    name = GEN + "gen1828_5p_286529"
    session = recorded(name, 973)  # 1004 has just merged NYC with NW
    game = session.game
    assert game.acting() == [1004]
    cash = game.player(1004).cash
    session.submit(live_action(name, 973))  # a market share of NYH-NKP (grey cell, 1004 presides)
    session.submit(live_action(name, 974))  # and, as president in a grey cell, a second one
    assert game.player(1004).cash == cash - 2 * game.share_price(game.corporations["NYH-NKP"])


def test_a_failed_merger_can_only_be_taken_back() -> None:
    name = GEN + "gen1828_4p_752101"
    session = recorded(name, 54)  # MC merged with GT; 1003 would keep only two System shares
    game = session.game
    assert game.acting() == [1003] and "MC" in game.corporations and "GT" in game.corporations
    assert game.corporations["MC"].treasury_percent == 100  # the exchanged certificates are back
    assert refused(session, {"type": "failed_merge", "entity": 1003, "corporations": ["MC", "GT"]}) \
        == "failed_merge"
    assert not any(o["type"] == "failed_merge" for o in session.legal_actions())


def test_part_of_a_presidents_certificate_goes_to_the_new_president() -> None:
    name = GEN + "gen1828_5p_226194"
    session = recorded(name, 359)  # NYC-MP buys trains; its president 1004 raises money
    game = session.game
    corp = game.corporations["NYH-C&O"]
    assert corp.president == 1004 and corp.percent_owned_by(1005) == 20 and corp.percent_owned_by("pool") == 0
    price = game.share_price(corp)
    cash = game.player(1004).cash
    session.submit(live_action(name, 359))  # 10% of the 20% certificate
    assert corp.president == 1005 and corp.shares[0].owner == 1005
    assert (corp.percent_owned_by(1004), corp.percent_owned_by("pool")) == (10, 10)
    assert game.player(1004).cash == cash + price


def test_a_system_over_its_limit_discards_any_train() -> None:
    name = GEN + "gen1828_4p_612537"
    session = recorded(name, 440)  # Brown: GT-CPR's CPR shell holds four trains, GT's one
    game = session.game
    offered = {o["train"] for o in session.legal_actions("GT-CPR") if o["type"] == "discard_train"}
    assert "3-3" in offered and "5-2" in offered  # GT's train too
    session.submit(live_action(name, 440))  # GT's 3-3
    assert game.acting() == ["GT-CPR"]  # CPR still holds four
    session.submit(live_action(name, 441))
    assert game.acting() == ["NYC-NKP"]  # the buyer goes on buying


# -- an off-board area ends the track -------------------------------------------------------------------------
def test_an_off_board_ends_the_network_so_nothing_beyond_it_takes_a_station() -> None:
    name = GEN + "gen1828_3p_544675"
    session = recorded(name, 653)  # B&M-IC (no trains, $386) is about to lay Cincinnati and H4
    game = session.game
    system = game.corporations["B&M-IC"]
    assert system.cash == 386 and not system.trains and game.share_price(system) == 167
    session.submit(live_action(name, 653))  # Cincinnati (H8) to brown
    session.submit(live_action(name, 654))  # H4: track from Louisville's side on to Chicago (G3)
    reach = game.board.reach("B&M-IC")
    assert any(hex_id == "G3" for hex_id, _ in reach.nodes)  # Chicago is reached (a stop to run to) ...
    assert not any(hex_id == "I3" for hex_id, _ in reach.nodes)  # ... but St Louis beyond it is not
    # St Louis has a free slot (WAB-MP's home holds one of two), yet no station can go there: nothing in reach
    # has a free slot, so the token step is skipped; with no train nothing runs, the price drops one column
    assert game.board.hex("I3").tokens == [["WAB-MP", None]]
    assert game.acting() == ["B&M-IC"]
    assert "place_token" not in {a["type"] for a in session.legal_actions("B&M-IC")}
    assert "buy_train" in {a["type"] for a in session.legal_actions("B&M-IC")}
    assert game.share_price(system) == 148 and system.cash == 386
    assert refused(session, {"type": "place_token", "entity": "B&M-IC", "city": "63-0-0", "slot": 1}) != ""


# -- end of the stock round -----------------------------------------------------------------------------------
def test_a_president_holding_80_percent_lifts_only_a_sold_out_corporation() -> None:
    name = GEN + "gen1828_5p_457227"
    session = recorded(name, 1374)  # the last pass of a stock round
    game = session.game
    erie, nw, wab = (game.corporations[s] for s in ("ERIE-GT", "NW-MP", "WAB-C&O"))
    assert erie.percent_owned_by(erie.president) == 80 and erie.percent_owned_by("pool") == 10
    assert "unlimited" in game.market.cell(erie.share_cell).types
    before = {c.sym: c.share_cell for c in (erie, nw, wab)}
    session.submit(live_action(name, 1374))
    assert game.acting() == ["NW-MP"]  # the operating round has begun
    # ERIE-GT is not sold out (10% in the market): neither its president's 80% nor its grey cell lifts it
    assert erie.share_cell == before["ERIE-GT"] and game.share_price(erie) == 71
    # the sold-out Systems (90% with players) rise one row each
    for corp in (nw, wab):
        assert corp.share_cell == (before[corp.sym][0] - 1, before[corp.sym][1])


# -- the president's gift ----------------------------------------------------------------------------------------
def test_the_presidents_gift_stays_in_the_system_treasury() -> None:
    name = GEN + "gen1828_5p_457227"
    session = recorded(name, 1313)  # 1004 (standing order: B&O-CPR from its treasury) is to act
    game = session.game
    system = game.corporations["B&O-CPR"]
    treasury = [s for s in system.shares if s.owner == "B&O-CPR"]
    assert [s.id for s in treasury] == ["B&O-CPR_1"] and game.acting() == [1004]
    cash = game.player(1004).cash
    offered = {tuple(o["shares"]) for o in session.legal_actions(1004) if o["type"] == "buy_shares"}
    assert ("B&O-CPR_1",) not in offered and ("B&O-CPR_2",) in offered  # the market's shares are for sale
    assert refused(session, {"type": "buy_shares", "entity": 1004, "shares": ["B&O-CPR_1"], "percent": 10})
    game = session.game  # a refusal leaves the state as it was, rebuilt
    system = game.corporations["B&O-CPR"]
    session.submit({"type": "buy_shares", "entity": 1004, "shares": ["B&O-CPR_2"], "percent": 10})
    assert game.player(1004).cash == cash - game.share_price(system) and system.treasury_percent == 10


def test_a_system_is_named_after_its_first_member_in_messages() -> None:
    """Standing-order reasons name a System after its first member ("ERIE is floated" for ERIE-B&M), as
    the reference writes them; a plain corporation keeps its symbol."""
    record = json.loads((CONFORMANCE / "1828" / "1828Games_game_end_bankrupt.json").read_text())
    game = GameSession.from_record(record).game
    assert game.rules.short_name(game, game.corporations["NYC-PRR"]) == "NYC"
    assert game.rules.short_name(game, game.corporations["GT-MC"]) == "GT"
    plain = next(c for c in game.corporations.values() if "-" not in c.sym)
    assert game.rules.short_name(game, plain) == plain.sym

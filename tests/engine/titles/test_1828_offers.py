"""Scenario tests for the 1828 rules that Railpost's own offers once broke (found by playing Railpost's
legal actions against the reference, docs/rules-1828.md): every move offered must be one the rules allow,
named the way the record names it."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

from shared.engine.errors import IllegalAction
from shared.engine.titles.g1828.systems import shells

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_1828_fidelity import CONFORMANCE, GEN, recorded, refused  # noqa: E402


def refused_by(game: Any, action: dict[str, Any]) -> str:
    """The rule a (hand-arranged) game refuses `action` by, asked on a copy."""
    with pytest.raises(IllegalAction) as err:
        pickle.loads(pickle.dumps(game)).process(action)
    return err.value.rule


def test_the_cp_minor_and_corporations_named_like_privates_act_as_themselves() -> None:
    # C&P is a private and the minor; NKP a founding private and its corporation: in the operating round
    # the minor and the corporation lay the tiles, not the privates
    session = recorded(GEN + "gen1828_5p_226194", 75)
    assert session.game.acting() == ["C&P"]
    offers = session.legal_actions()
    assert offers and {o["entity_type"] for o in offers} == {"minor"}
    session = recorded(GEN + "gen1828_5p_226194", 237)
    assert session.game.acting() == ["NKP"]
    offers = session.legal_actions()
    assert offers and {o["entity_type"] for o in offers} == {"corporation"}


def test_of_two_corporations_started_in_one_cell_the_first_started_operates_first() -> None:
    # the auction's founding privates start MC and then GT, both at $79 (9,5)
    session = recorded(GEN + "gen1828_5p_226194", 66)
    game = session.game
    mc, gt = game.corporations["MC"], game.corporations["GT"]
    assert mc.share_cell == gt.share_cell == (9, 5)
    assert [c.sym for c in game.rules.sorted_by_price(game, [gt, mc])] == ["MC", "GT"]


def test_a_declared_failed_merger_names_the_two_corporations() -> None:
    session = recorded(GEN + "gen1828_4p_752101", 55)  # 1003 may merge MC (his) with GT
    offers = [o for o in session.legal_actions() if o["type"] == "failed_merge"]
    assert {tuple(o["corporations"]) for o in offers} == {("MC", "GT"), ("GT", "MC")}
    assert refused(session, {"type": "failed_merge", "entity": 1003}) == "merge"
    assert refused(session, {"type": "failed_merge", "entity": 1003, "corporations": ["MC", "XX"]}) == "merge"
    session.submit({"type": "failed_merge", "entity": 1003, "corporations": ["MC", "GT"]})
    assert session.game.acting() == [1003]


def test_after_a_failed_merger_a_president_may_still_buy_two_shares_of_his_grey_cell_corporation() -> None:
    session = recorded(GEN + "gen1828_4p_752101", 55)
    game = session.game
    session.submit({"type": "failed_merge", "entity": 1003, "corporations": ["MC", "GT"]})
    game.player(1003).cash = 500
    gt_share = next(s for s in game.corporations["GT"].shares if s.owner == "GT" and not s.president)
    # the failed merger was the turn's purchase: a share of another corporation is refused
    refused_by(game, {"type": "buy_shares", "entity": 1003, "shares": [gt_share.id], "percent": 10})
    game.rules.set_cell(game, game.corporations["MC"], (9, 0))  # a grey ("unlimited") cell, $62
    game.edited()  # the state was changed outside `process`
    offered = [o["shares"][0] for o in session.legal_actions() if o["type"] == "buy_shares"]
    assert offered and all(share.startswith("MC_") for share in offered)
    cash = game.player(1003).cash
    game.process({"type": "buy_shares", "entity": 1003, "shares": [offered[0]], "percent": 10})
    assert game.acting() == [1003]
    second = [o["shares"][0] for o in session.legal_actions() if o["type"] == "buy_shares"]
    game.process({"type": "buy_shares", "entity": 1003, "shares": [second[0]], "percent": 10})
    assert game.corporations["MC"].percent_owned_by(1003) == 60
    assert game.player(1003).cash == cash - 2 * game.corporations["MC"].par_price
    assert not [o for o in session.legal_actions() if o["type"] == "buy_shares"]


def test_a_system_upgrades_at_most_once_a_turn() -> None:
    session = recorded(GEN + "gen1828_4p_612537", 261)  # GT-CPR has upgraded D6; one lay is left
    game = session.game
    assert game.acting() == ["GT-CPR"]
    lays = [o for o in session.legal_actions() if o["type"] == "lay_tile"]
    assert lays and all(game.board.hex(o["hex"]).tile.color == "white" for o in lays)
    assert refused(session, {"type": "lay_tile", "entity": "GT-CPR", "hex": "B22", "tile": "18-0",
                             "rotation": 2}) == "tile_lays"
    session.submit(dict(lays[0], entity="GT-CPR"))  # the second lay may still be a yellow tile


def test_a_systems_president_pays_only_for_a_train_for_a_shell_without_one() -> None:
    session = recorded(GEN + "gen1828_4p_612537", 403)  # NYC-NKP: NYC's shell has a train, NKP's none
    game = session.game
    system = game.corporations["NYC-NKP"]
    assert {k: len(v) for k, v in shells(game, system).items()} == {"NYC": 1, "NKP": 0}
    president = game.player(system.president)
    system.cash, president.cash = 50, 500
    buy = {"type": "buy_train", "entity": "NYC-NKP", "train": "3-8", "price": 160}
    assert refused_by(game, dict(buy, shell="NYC")) == "cash"
    game.process(dict(buy, shell="NKP"))
    assert system.cash == 0 and president.cash == 390
    assert [t.id for t in shells(game, system)["NKP"]] == ["3-8"]


def test_the_cp_run_over_its_new_tile_needs_no_list_of_stops_in_the_record() -> None:
    # the stops are read off the run's track: a record without "nodes" (or naming them in another order)
    # is the same run (bankrupt index 271: the tile in C13 leads to Peterborough, the run is C15-A15)
    record = json.loads((CONFORMANCE / "1828/1828Games_game_end_bankrupt.json").read_text())
    run = {k: v for k, v in record["actions"][271].items() if k not in ("id", "created_at")}
    bare = dict(run, routes=[{k: v for k, v in run["routes"][0].items() if k != "nodes"}])
    session = recorded("1828/1828Games_game_end_bankrupt", 271)
    cash = session.game.corporations["C&P"].cash
    session.submit(bare)
    assert session.game.corporations["C&P"].cash == cash + 25
    # a run away from the new tile is refused whether or not it lists its stops
    session = recorded(GEN + "gen1828_5p_226194", 89)  # C&P has laid a tile in Ottawa (B20)
    away = {"type": "run_routes", "entity": "C&P", "entity_type": "minor", "extra_revenue": 0, "subsidy": 0,
            "routes": [{"train": "2-1", "connections": [["C15", "C17", "C19"]], "hexes": ["C15", "C19"]}]}
    assert refused(session, away) == "route_laid_tile"


def test_the_dh_lay_in_scranton_is_made_in_the_track_step() -> None:
    session = recorded(GEN + "gen1828_4p_612537", 269)  # GT-CPR bought D&H after its trains, at the turn's end
    game = session.game
    assert game.acting() == ["GT-CPR"] and game.companies["D&H"].owner == "GT-CPR"
    assert not [o for o in session.legal_actions() if o.get("entity") == "D&H"]
    assert refused(session, {"type": "lay_tile", "entity": "D&H", "entity_type": "company", "hex": "F20",
                             "tile": "57-0", "rotation": 0}) == "company_ability"


def test_the_dh_lay_is_one_of_the_corporations_own_lays() -> None:
    session = recorded(GEN + "gen1828_3p_136186", 159)  # MP-MC (D&H) has made the first of its two lays
    game = session.game
    assert [o for o in session.legal_actions() if o.get("entity") == "D&H"]
    own = next(o for o in session.legal_actions() if o["type"] == "lay_tile" and o["entity"] == "MP-MC")
    game.process(own)  # its second and last lay
    assert not [o for o in session.legal_actions() if o.get("entity") == "D&H"]
    refused_by(game, {"type": "lay_tile", "entity": "D&H", "entity_type": "company", "hex": "F20",
                      "tile": "57-0", "rotation": 0})


def test_a_share_of_a_corporation_not_yet_started_cannot_be_sold_to_raise_money() -> None:
    from shared.engine.titles.g1828.steps.trains import BuyTrain1828

    session = recorded(GEN + "gen1828_5p_226194", 359)  # NYC-MP buys trains; 1004 presides it
    game = session.game
    bm = game.corporations["B&M"]
    assert not bm.ipoed
    share = next(s for s in bm.shares if not s.president)
    bm.give(share, 1004)  # as M&H's exchange would: a share without a price
    step = next(s for s in game.round.steps if isinstance(s, BuyTrain1828))
    with pytest.raises(IllegalAction) as err:
        step.emergency_sell(game, game.round, {"type": "sell_shares", "entity": 1004, "shares": [share.id],
                                               "percent": 10})
    assert err.value.rule == "sell_shares" and share.owner == 1004


def test_a_merger_that_cannot_complete_is_named_as_a_dead_end_not_offered() -> None:
    """docs/rules-1828.md, *The president's gift*: a merger whose System president would end with fewer than
    three System shares fails and can only be taken back. The engine takes the moves that start it, so
    legal-actions names them apart with the reason (`dead_ends`) and never offers them."""
    session = recorded(GEN + "gen1828_4p_752101", 51)  # 1003 presides MC; MC with GT would fail
    game = session.game
    start = {"type": "choose", "entity": 1003, "entity_type": "player", "choice": "MC"}
    assert start | {"type": "choose"} not in game.legal_actions_of(1003)
    dead = game.dead_ends_of(1003)
    assert [{k: v for k, v in d.items() if k != "reason"} for d in dead] == [start]
    assert "fewer than three System shares" in dead[0]["reason"] and "could only be taken back" in dead[0]["reason"]
    assert game.dead_ends_of(1001) == [] and game.dead_ends_of(1002) == []  # another player's are his own
    session.submit(start)  # the engine takes it: a player may make it
    assert not [o for o in session.game.legal_actions_of(1003) if o["type"] == "merge"]
    merges = session.game.dead_ends_of(1003)
    assert [(m["type"], m["entity"], m["corporation"]) for m in merges] == [("merge", "MC", "GT")]
    session.submit({k: v for k, v in merges[0].items() if k != "reason"})
    for _ in range(50):  # every question answered as the offers come: the merger still fails
        merger = session.game.round.merger
        if merger is None or merger.choice is None:
            break
        session.submit(session.game.legal_actions(merger.choice.chooser)[0])
    merger = session.game.round.merger
    assert merger is not None and merger.phase == "failed"
    system = session.game.corporations[merger.system]
    assert system.president is None or system.percent_owned_by(system.president) // 10 < 3
    assert session.game.legal_actions_of(1003, orders=False) == []  # only an undo goes on
    assert refused(session, {"type": "failed_merge", "entity": 1003, "corporations": ["MC", "GT"]}) == "failed_merge"

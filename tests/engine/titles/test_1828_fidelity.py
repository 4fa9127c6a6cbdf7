"""Scenario tests for the 1828 rules written down in docs/rules-1828.md (one test per rule, each checking
money, prices, holdings or who acts next, and the refusal that guards the rule)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.engine import GameSession
from shared.engine.errors import IllegalAction
from shared.engine.session import final_active_flags

CONFORMANCE = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"
GEN = "generated/1828/"
FOUNDING = ["CPR", "GT", "IC", "MC", "MP", "NKP", "NW", "OSH"]


def recorded(name: str, upto: int) -> GameSession:
    """A session replayed from a recorded game up to (not including) action `upto`."""
    record = json.loads((CONFORMANCE / f"{name}.json").read_text())
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"]["optional_rules"])
    flags = final_active_flags(record["actions"])
    for i, action in enumerate(record["actions"][:upto]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
    return session


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
    other = dict(run, routes=[dict(run["routes"][0], connections=[["C15", "C17", "B16", "A15"]],
                                   hexes=["C15", "A15"], nodes=["C15-0", "A15-0"], revenue_str="C15-A15")])
    assert refused(session, other) == "route_laid_tile"  # a run away from the new tile
    game = session.game  # a refusal leaves the state as it was, rebuilt
    cash, owner_cash = game.corporations["C&P"].cash, game.player(1005).cash
    session.submit(run)  # $30: half to the minor, half to its owner
    assert (game.corporations["C&P"].cash, game.player(1005).cash) == (cash + 15, owner_cash + 15)

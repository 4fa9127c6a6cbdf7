"""Standing orders, rule by rule (docs/standing-orders.md, S1-S9).

Scenarios are played on a fresh 1825 Unit 1 game for three players (Ann 800, Bob 755, Cy 700; LNWR starts at
100 with a 20% director's certificate and floats at 60%), each move submitted live as over the API, so the
engine derives the auto actions itself. A few rules are also checked at the positions of recorded games
where the reference showed them, comparing the derived auto actions with the recorded ones.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession, IllegalAction, MalformedAction

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.live_autos import live_check, load_trace, normalise  # noqa: E402  (the checker)

ANN, BOB, CY = 1, 2, 3
PLAYERS = [{"id": ANN, "name": "Ann"}, {"id": BOB, "name": "Bob"}, {"id": CY, "name": "Cy"}]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"


def new_game() -> GameSession:
    return GameSession.new("1825", PLAYERS, 1, ["unit_1"])


def by(pid: int) -> dict[str, Any]:
    return {"entity": pid, "entity_type": "player"}


def par_lnwr(pid: int = ANN) -> dict[str, Any]:
    return {"type": "par", **by(pid), "corporation": "LNWR", "share_price": "100,0,15"}


def pass_order(pid: int, *, unconditional: bool = False, indefinite: bool = False) -> dict[str, Any]:
    return {"type": "program_share_pass", **by(pid), "unconditional": unconditional, "indefinite": indefinite}


def buy_order(pid: int, until: Any, *, market: bool = False, then_pass: bool = False) -> dict[str, Any]:
    return {"type": "program_buy_shares", **by(pid), "corporation": "LNWR", "until_condition": until,
            "from_market": market, "auto_pass_after": then_pass}


def autos(stored: dict[str, Any]) -> list[dict[str, Any]]:
    return stored.get("auto_actions") or []


def state(session: GameSession) -> dict[str, Any]:
    game = session.game
    return {
        "acting": game.acting(),
        "cash": {p.id: p.cash for p in game.players},
        "orders": {p.id: [o["type"] for o in p.programs] for p in game.players},
        "lnwr": {s.id: s.owner for s in game.corporations["LNWR"].shares if isinstance(s.owner, int)},
    }


# -- S1 setting and clearing ----------------------------------------------------------------------------------
def test_s1_any_player_sets_and_clears_an_order_off_turn() -> None:
    session = new_game()
    stored = session.submit(pass_order(CY))  # Ann must act; Cy sets an order out of turn
    assert autos(stored) == [] and state(session)["orders"] == {ANN: [], BOB: [], CY: ["program_share_pass"]}
    session.submit(buy_order(CY, "float"))  # a new order replaces the old one
    assert state(session)["orders"][CY] == ["program_buy_shares"]
    session.submit({"type": "program_disable", **by(CY), "reason": "user", "original_type": "program_buy_shares"})
    assert state(session)["orders"][CY] == [] and state(session)["acting"] == [ANN]
    assert session.digest()["players"][str(CY)]["programs"] == []


@pytest.mark.parametrize(("action", "error", "rule"), [
    ({"type": "program_share_pass", "entity": "LNWR", "entity_type": "corporation"}, IllegalAction,
     "program_entity"),
    (dict(buy_order(BOB, 0)), MalformedAction, "program_until"),
    (dict(buy_order(BOB, "never")), MalformedAction, "program_until"),
    (dict(buy_order(BOB, 2), corporation="XYZ"), MalformedAction, "program_corporation"),
])
def test_s1_malformed_orders_are_refused_and_change_nothing(action: dict[str, Any], error: type, rule: str) -> None:
    session = new_game()
    before, version = json.dumps(session.digest(), sort_keys=True), session.version
    with pytest.raises(error) as caught:
        session.submit(action)
    assert caught.value.rule == rule
    assert session.version == version and json.dumps(session.digest(), sort_keys=True) == before


# -- S4 pass orders -----------------------------------------------------------------------------------------
def test_s4_pass_order_passes_as_soon_as_the_turn_comes() -> None:
    session = new_game()
    session.submit(par_lnwr())  # Ann 800 -> 600; one purchase a turn in the first stock round: Bob's turn
    stored = session.submit(pass_order(BOB))
    assert autos(stored) == [{"type": "pass", **by(BOB)}]
    assert state(session)["acting"] == [CY] and state(session)["cash"][BOB] == 755
    assert state(session)["orders"][BOB] == ["program_share_pass"]  # the order stays for later turns


def test_s4_s7_a_start_after_the_order_hands_the_turn_back() -> None:
    session = new_game()
    session.submit(pass_order(BOB))
    stored = session.submit(par_lnwr())
    assert autos(stored) == [{"type": "program_disable", **by(BOB), "reason": "Corporation LNWR parred"}]
    assert state(session)["acting"] == [BOB] and state(session)["orders"][BOB] == []


def test_s4_an_unconditional_pass_order_ignores_what_others_do() -> None:
    session = new_game()
    session.submit(pass_order(BOB, unconditional=True))
    stored = session.submit(par_lnwr())
    assert autos(stored) == [{"type": "pass", **by(BOB)}]
    assert state(session)["acting"] == [CY]


# -- S7 / S8 unsecure presidents, and moves made before the order -------------------------------------------
def test_s7_a_buy_into_an_unsecure_presidents_company_stops_the_order() -> None:
    session = new_game()
    session.submit(par_lnwr())  # Ann presides over LNWR with 20%: not secure
    session.submit(pass_order(ANN))
    session.submit({"type": "buy_shares", **by(BOB), "shares": ["LNWR_1"], "percent": 10})
    stored = session.submit({"type": "pass", **by(CY)})
    assert autos(stored) == [{"type": "program_disable", **by(ANN),
                              "reason": "Bob bought on corporation LNWR and is unsecure"}]
    assert state(session)["acting"] == [ANN]


def test_s8_moves_made_before_the_order_was_set_are_not_held_against_it() -> None:
    session = new_game()
    session.submit(par_lnwr())
    session.submit({"type": "buy_shares", **by(BOB), "shares": ["LNWR_1"], "percent": 10})
    session.submit(pass_order(ANN))  # Ann saw Bob's purchase when she set the order
    stored = session.submit({"type": "pass", **by(CY)})
    assert autos(stored) == [{"type": "pass", **by(ANN)}]
    assert state(session)["acting"] == [BOB]


def test_s7_buying_a_private_from_the_bank_is_not_watched() -> None:
    session = new_game()
    session.submit(pass_order(BOB))
    stored = session.submit({"type": "buy_company", **by(ANN), "company": "L&M", "price": 210})
    assert autos(stored) == [{"type": "pass", **by(BOB)}]
    assert state(session)["cash"] == {ANN: 590, BOB: 755, CY: 700} and state(session)["acting"] == [CY]


# -- S5 buy orders ------------------------------------------------------------------------------------------
def test_s5_buy_orders_buy_one_certificate_per_turn_until_their_condition() -> None:
    session = new_game()
    session.submit(buy_order(BOB, "float"))
    session.submit(buy_order(CY, 2, then_pass=True))
    stored = session.submit(par_lnwr())  # a start in the first stock round does not stop a buy order
    assert autos(stored) == [
        {"type": "buy_shares", **by(BOB), "shares": ["LNWR_1"], "percent": 10},
        {"type": "buy_shares", **by(CY), "shares": ["LNWR_2"], "percent": 10},
    ]
    assert state(session)["cash"] == {ANN: 600, BOB: 655, CY: 600} and state(session)["acting"] == [ANN]
    session.submit({"type": "buy_shares", **by(ANN), "shares": ["LNWR_3"], "percent": 10})
    # LNWR has now sold 60% and floated; Bob's order still buys this turn (it looks before buying next time)
    assert state(session)["lnwr"] == {"LNWR_0": ANN, "LNWR_1": BOB, "LNWR_2": CY, "LNWR_3": ANN,
                                      "LNWR_4": BOB, "LNWR_5": CY}
    assert state(session)["cash"] == {ANN: 500, BOB: 555, CY: 500}
    stored = session.submit({"type": "buy_shares", **by(ANN), "shares": ["LNWR_6"], "percent": 10})
    assert autos(stored) == [{"type": "program_disable", **by(BOB), "reason": "LNWR is floated"}]
    assert state(session)["acting"] == [BOB]  # Bob decides; Cy's order still waits for Cy's turn
    stored = session.submit({"type": "pass", **by(BOB)})
    assert autos(stored) == [
        {"type": "program_disable", **by(CY), "reason": "2 share(s) bought in LNWR, end condition met"},
        {"type": "program_share_pass", **by(CY), "unconditional": False, "indefinite": False},
        {"type": "pass", **by(CY)},
    ]
    assert state(session)["orders"][CY] == ["program_share_pass"] and state(session)["acting"] == [ANN]


def test_s5_an_order_on_an_empty_source_is_handed_back() -> None:
    session = new_game()
    session.submit(par_lnwr())
    stored = session.submit(buy_order(BOB, 3, market=True))  # nothing of LNWR in the market
    assert autos(stored) == [{"type": "program_disable", **by(BOB), "reason": "Cannot buy LNWR from market"}]
    assert state(session)["acting"] == [BOB] and state(session)["cash"][BOB] == 755


# -- S9 round change ----------------------------------------------------------------------------------------
def test_s9_only_indefinite_pass_orders_outlive_the_stock_round() -> None:
    session = new_game()
    session.submit(par_lnwr())
    session.submit(pass_order(BOB, indefinite=True))
    session.submit(pass_order(CY))
    stored = session.submit({"type": "pass", **by(ANN)})  # all passed: operating rounds, then stock round 2
    assert session.game.round.kind == "Stock" and session.game.turn == 2
    assert state(session)["orders"] == {ANN: [], BOB: ["program_share_pass"], CY: []}
    assert autos(stored) == [{"type": "pass", **by(BOB)}]  # Bob's order passes for him in the new round
    assert state(session)["acting"] == [CY]


# -- recorded positions: the derived auto actions equal the reference's -------------------------------------
def _record(path: str) -> dict[str, Any]:
    return json.loads((FIXTURES / path).read_text())


def _live_from(record: dict[str, Any], index: int) -> GameSession:
    """The recorded game replayed (recorded auto actions) up to `index`."""
    return GameSession.from_record(record, limit=index)


def _plain(actions: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Without timestamps; player names in reasons masked (the public records renamed their players)."""
    return normalise(actions)


@pytest.mark.parametrize(("path", "index", "rule"), [
    ("1825/1825_game_end_stock_market.json", 8, "S5.1 float reached by an auto purchase"),
    ("1825/1825_game_end_stock_market.json", 358, "S7 another player's sell_company"),
    ("1828/1828Games_game_end_bankrupt.json", 75, "S7 Shares were sold"),
    ("1828/1828Games_game_end_bankrupt.json", 168, "S5.1 count reached, then a pass order that passes"),
    ("generated/1840/gen1840_4p_344173.json", 205, "S5.1 condition already met when the stock round opens"),
])
def test_recorded_positions(path: str, index: int, rule: str) -> None:
    record = _record(path)
    session = _live_from(record, index)
    action = record["actions"][index]
    stored = session.submit({k: v for k, v in action.items() if k != "auto_actions"}, keep_id=True)
    assert _plain(autos(stored)) == _plain(action.get("auto_actions")), rule


def test_s8_auto_actions_of_the_cascade_that_set_the_order() -> None:
    """1828Games_game_end_bankrupt ids 90-94: an auto purchase in the cascade of the action that set the
    order counts against it (90); one made in that cascade is 'before' it from the next action on (94)."""
    record = _record("1828/1828Games_game_end_bankrupt.json")
    session = GameSession.from_record(record, live=True, limit=82)
    derived = [_plain(e.action.get("auto_actions")) for e in session.entries]  # one entry per recorded action
    for index in (77, 78, 81):
        action = record["actions"][index]
        assert derived[index] == _plain(action.get("auto_actions")), action["id"]


def test_s8_an_order_set_by_an_order_dates_from_its_place_in_the_cascade() -> None:
    """Ann's start of GWR ends her turn and makes Bob's buy order meet its condition: the pass order set in
    its place comes after the start, so it passes; a start made after it hands the turn back."""
    session = new_game()
    session.submit(par_lnwr())
    stored = session.submit(buy_order(BOB, 1, then_pass=True))  # buys LNWR_1 at once; one share: done
    assert autos(stored) == [{"type": "buy_shares", **by(BOB), "shares": ["LNWR_1"], "percent": 10}]
    session.submit({"type": "pass", **by(CY)})
    stored = session.submit({"type": "par", **by(ANN), "corporation": "GWR", "share_price": "90,0,14"})
    assert autos(stored) == [
        {"type": "program_disable", **by(BOB), "reason": "1 share(s) bought in LNWR, end condition met"},
        {"type": "program_share_pass", **by(BOB), "unconditional": False, "indefinite": False},
        {"type": "pass", **by(BOB)},
    ]
    assert state(session)["acting"] == [CY] and state(session)["cash"][BOB] == 655
    stored = session.submit({"type": "par", **by(CY), "corporation": "GER", "share_price": "76,0,12"})
    assert autos(stored) == []  # Ann must act; Bob's order waits
    stored = session.submit({"type": "pass", **by(ANN)})
    assert autos(stored) == [{"type": "program_disable", **by(BOB), "reason": "Corporation GER parred"}]
    assert state(session)["acting"] == [BOB]


@pytest.mark.parametrize("path", [
    "1825/1825_game_end_bank.json",
    "1825/1825_game_end_stock_market.json",
    "1828/1828Games_game_end_bankrupt.json",
    "1828/1828Games_game_end_stock_market.json",
    "1840/2player.json",
])
def test_public_games_live_derive_the_recorded_auto_actions(path: str) -> None:
    """Every action of each public game submitted live: the derived auto actions equal the recorded ones,
    action for action, and the digest equals the golden trace after every action."""
    fixture = FIXTURES / path
    record = json.loads(fixture.read_text())
    report = live_check(record, load_trace(fixture), len(record["actions"]))
    assert report["mismatch"] is None, report["mismatch"]
    assert report["autos_compared"] == report["recorded_autos"]

"""1825 refusals: every illegal move is refused with a typed error naming the rule, and nothing changes.

Positions come from the recorded game `1825_game_end_bank` (2 players, Unit 1 + R1): `position(i)` is
the game right before recorded action i, so each scenario is a real situation of play.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession, IllegalAction, MalformedAction
from shared.engine.errors import EngineError
from shared.engine.session import final_active_flags

RECORD = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "1825" / "1825_game_end_bank.json"
P1, P2 = 19143, 19192


@lru_cache(maxsize=1)
def _record() -> dict[str, Any]:
    return json.loads(RECORD.read_text())


@lru_cache(maxsize=64)
def _position_blob(index: int) -> bytes:
    record = _record()
    session = GameSession.new("1825", record["players"], record["settings"]["seed"], ["unit_1", "r1"])
    flags = final_active_flags(record["actions"])
    for i, action in enumerate(record["actions"][:index]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
    return session.snapshot()


def position(index: int) -> GameSession:
    return GameSession.restore(_position_blob(index))


def refused(session: GameSession, action: dict[str, Any], rule: str,
            error: type[EngineError] = IllegalAction, *, staged: bool = False) -> EngineError:
    """Submit live; assert the refusal's type and rule, and that nothing stored or folded changed.

    `staged` positions were arranged by editing the state directly (not by actions): a refusal folds the
    log again, so for them only the log is compared.
    """
    before = json.dumps(session.digest(), sort_keys=True)
    version = session.version
    with pytest.raises(error) as caught:
        session.submit(action)
    assert caught.value.rule == rule, f"expected rule {rule}, got {caught.value.rule}: {caught.value.message}"
    assert caught.value.message
    assert session.version == version
    if not staged:
        assert json.dumps(session.digest(), sort_keys=True) == before
    return caught.value


def act(entity: Any, action_type: str, **fields: Any) -> dict[str, Any]:
    return {"type": action_type, "entity": entity, **fields}


# -- any time ------------------------------------------------------------------------------------------------
def test_unknown_action_type_is_malformed() -> None:
    refused(position(2), act(P1, "teleport"), "action_type", MalformedAction)


def test_action_without_type_is_malformed() -> None:
    refused(position(2), {"entity": P1}, "action_shape", MalformedAction)


def test_unknown_entity_is_malformed() -> None:
    refused(position(2), act(4242, "pass"), "entity", MalformedAction)


def test_out_of_turn_action_names_who_must_act() -> None:
    err = refused(position(2), act(P2, "pass"), "not_your_turn")
    assert str(P1) in err.message


def test_action_of_another_round_is_refused() -> None:
    refused(position(2), act(P1, "lay_tile", hex="T14", tile="8-0", rotation=2), "wrong_action_now")


def test_undo_with_nothing_to_undo() -> None:
    session = GameSession.new("1825", _record()["players"], 0, ["unit_1", "r1"])
    refused(session, act(P1, "undo"), "undo_empty")


def test_redo_with_nothing_undone() -> None:
    refused(position(2), act(P1, "redo"), "redo_empty")


# -- stock round ---------------------------------------------------------------------------------------------
def test_first_stock_round_allows_no_selling() -> None:
    session = position(4)  # SR1: P1 holds the LNWR director's certificate
    refused(session, act(P1, "sell_shares", shares=["LNWR_0"], percent=20), "sell_first_round")


def test_buying_a_share_of_an_unstarted_corporation() -> None:
    refused(position(3), act(P2, "buy_shares", shares=["GWR_1"], percent=10), "buy_shares")


def test_the_directors_certificate_is_bought_only_by_starting() -> None:
    refused(position(21), act(P2, "buy_shares", shares=["LNWR_0"], percent=20), "buy_shares", IllegalAction)


def test_only_one_purchase_per_turn() -> None:
    session = position(23)  # SR2: P1 buys GWR_1 and may still sell, but not buy again
    session.submit(_record()["actions"][23])
    err = refused(session, act(P1, "buy_shares", shares=["GWR_2"], percent=10), "buy_shares")
    assert "one purchase per turn" in err.message


def test_par_twice_is_refused() -> None:
    refused(position(21), act(P2, "par", corporation="LNWR", share_price="100,0,15"), "par_started")


def test_par_at_a_price_the_corporation_does_not_have() -> None:
    refused(position(21), act(P2, "par", corporation="GWR", share_price="100,0,15"), "par_price")


def test_par_needs_cash_for_the_directors_certificate() -> None:
    session = position(77)  # SR4: P1 has 11 left
    assert session.game.player(P1).cash < 142
    refused(session, act(P1, "par", corporation="SECR", share_price="71,0,11"), "cash")


def test_par_at_an_unknown_market_cell_is_malformed() -> None:
    refused(position(21), act(P2, "par", corporation="GWR", share_price="91,0,14"), "market_cell", MalformedAction)


def test_buying_a_share_without_the_cash() -> None:
    session = position(15)
    session.game.player(P2).cash = 50
    refused(session, act(P2, "buy_shares", shares=["LNWR_5"], percent=10), "buy_shares", staged=True)


def test_unknown_share_id_is_malformed() -> None:
    refused(position(15), act(P2, "buy_shares", shares=["LNWR_99"], percent=10), "share_id", MalformedAction)


def test_buying_two_certificates_in_one_action() -> None:
    refused(position(15), act(P2, "buy_shares", shares=["LNWR_5", "LNWR_6"], percent=20), "one_share_per_turn")


def test_certificate_limit() -> None:
    session = position(15)
    game = session.game
    gwr = game.corporations["GWR"]
    for share in gwr.shares[1:]:
        gwr.give(share, P2)
    game.corporations["GER"].give(game.corporations["GER"].shares[1], P2)
    limit = game.rules.cert_limit(game)
    while game.num_certs(game.player(P2)) < limit:
        corp = next(c for c in game.corporations.values() if c.treasury_percent and not c.ipoed)
        corp.give(next(s for s in corp.shares if s.owner == corp.sym), P2)
    refused(session, act(P2, "buy_shares", shares=["LNWR_5"], percent=10), "buy_shares", staged=True)


def test_sell_a_share_you_do_not_hold() -> None:
    refused(position(15), act(P2, "sell_shares", shares=["LNWR_2"], percent=10), "sell_not_owned")


def test_no_selling_what_was_just_bought_this_turn() -> None:
    session = position(23)
    session.submit(_record()["actions"][23])  # P1 buys GWR_1
    refused(session, act(P1, "sell_shares", shares=["GWR_1"], percent=10), "sell_shares")


def test_no_buying_back_what_was_sold_this_round() -> None:
    session = position(441)  # P1 sold his GER earlier in this stock round; GER shares lie in the pool
    assert session.game.acting() == [P1]
    refused(session, act(P1, "buy_shares", shares=["GER_1"], percent=10), "buy_shares")


def test_private_company_price_is_its_face_value() -> None:
    refused(position(0), act(P1, "buy_company", company="C&W", price=100), "company_price")


def test_only_the_cheapest_unsold_private_is_offered() -> None:
    refused(position(0), act(P1, "buy_company", company="L&M", price=210), "buy_company")


# -- operating round -----------------------------------------------------------------------------------------
def test_tile_of_a_colour_the_phase_does_not_allow() -> None:
    refused(position(9), act("LNWR", "lay_tile", hex="T14", tile="14-0", rotation=0), "phase_color")


def test_tile_rotation_pointing_off_the_network() -> None:
    refused(position(9), act("LNWR", "lay_tile", hex="T14", tile="8-0", rotation=0), "not_connected")


def test_tile_not_reachable_from_any_station() -> None:
    session = position(9)
    rules = set()
    for rotation in range(6):
        try:
            session.submit(act("LNWR", "lay_tile", hex="X10", tile="8-0", rotation=rotation))
        except IllegalAction as err:
            rules.add(err.rule)
    assert "not_connected" in rules


def test_tile_copy_already_on_the_map() -> None:
    session = position(10)  # 8-0 was just laid on T14
    refused(session, act("LNWR", "lay_tile", hex="S17", tile="8-0", rotation=0), "tile_supply")


def test_unknown_tile_is_malformed() -> None:
    refused(position(9), act("LNWR", "lay_tile", hex="T14", tile="999-0", rotation=0), "tile_id", MalformedAction)


def test_rotation_out_of_range_is_malformed() -> None:
    refused(position(9), act("LNWR", "lay_tile", hex="T14", tile="8-0", rotation=7), "rotation", MalformedAction)


def test_hex_marked_for_another_corporation_is_refused_only_by_the_track_rules() -> None:
    """V18 is GWR's marked hex, which blocks nobody (rules-1825.md); LNWR's lay there fails only because
    it does not connect to LNWR's track."""
    refused(position(9), act("LNWR", "lay_tile", hex="V18", tile="8-0", rotation=2), "not_connected")


def test_second_yellow_tile_may_not_be_adjacent_to_the_first() -> None:
    session = position(10)  # LNWR just laid T14
    board = session.game.board
    near = set(board.hex("T14").neighbors.values())
    lays = [(h, t, r) for h, t, r in board.legal_lays("LNWR", {"yellow"}) if h in near]
    assert lays, "a connected yellow lay next to T14 exists"
    hex_id, tile, rotation = lays[0]
    copy = board.supply.free_copy(tile)
    refused(session, act("LNWR", "lay_tile", hex=hex_id, tile=f"{tile}-{copy}", rotation=rotation), "adjacent_lays")


def test_no_third_tile_in_one_turn() -> None:
    session = position(11)  # LNWR laid T14 and U17
    refused(session, act("LNWR", "lay_tile", hex="S17", tile="9-1", rotation=0), "tile_lays")


def test_station_in_an_unconnected_city() -> None:
    refused(position(96), act("LNWR", "place_token", city="Y13-0-0", slot=0), "not_connected")


def test_only_one_station_per_turn() -> None:
    session = position(97)  # LNWR placed its S13 station
    refused(session, act("LNWR", "place_token", city="R16-0-0", slot=0), "token")


def test_station_in_a_taken_slot() -> None:
    refused(position(96), act("LNWR", "place_token", city="V14-0-0", slot=0), "token_slot")


def test_running_a_train_the_corporation_does_not_own() -> None:
    action = dict(_record()["actions"][45])
    action["routes"] = [dict(action["routes"][0], train="3-0")]
    refused(position(45), {k: v for k, v in action.items() if k != "id"}, "route_train")


def test_running_one_train_twice() -> None:
    action = dict(_record()["actions"][45])
    action["routes"] = [action["routes"][0], dict(action["routes"][1], train=action["routes"][0]["train"])]
    refused(position(45), {k: v for k, v in action.items() if k != "id"}, "route_train")


def test_two_routes_may_not_share_track() -> None:
    action = dict(_record()["actions"][45])
    action["routes"] = [action["routes"][0], dict(action["routes"][0], train="2-0")]
    err = refused(position(45), {k: v for k, v in action.items() if k != "id"}, _route_rule(45, action))
    assert "track" in err.message.lower() or "twice" in err.message.lower() or "segment" in err.message.lower()


def _route_rule(index: int, action: dict[str, Any]) -> str:
    try:
        position(index).submit({k: v for k, v in action.items() if k != "id"})
    except EngineError as err:
        return err.rule
    raise AssertionError("the engine accepted two routes over the same track")


def test_recorded_revenue_is_recomputed_not_trusted() -> None:
    session = position(45)
    action = {k: v for k, v in _record()["actions"][45].items() if k != "id"}
    action["routes"] = [dict(r, revenue=999) for r in action["routes"]]
    session.submit(action)
    assert session.game.round.revenue == 110


def test_dividend_kind_must_be_payout_or_withhold() -> None:
    session = position(46)
    refused(session, act("LNWR", "dividend", kind="half"), "dividend_kind")


def test_train_price_must_be_the_depot_price() -> None:
    refused(position(12), act("LNWR", "buy_train", train="2-0", price=150), "train_price")


def test_only_the_next_train_of_the_depot_is_for_sale() -> None:
    refused(position(12), act("LNWR", "buy_train", train="3-0", price=300), "train_unavailable")


def test_unknown_train_is_malformed() -> None:
    refused(position(12), act("LNWR", "buy_train", train="9-9", price=300), "train_id", MalformedAction)


def test_train_limit() -> None:
    session = position(12)
    corp = session.game.corporations["LNWR"]
    for train in session.game.depot.upcoming()[:4]:
        train.owner = corp.sym
        corp.trains.append(train)
    refused(session, act("LNWR", "buy_train", train="2-4", price=180), "train_limit", staged=True)  # the rule itself: at the limit


def test_train_from_another_corporation_costs_at_least_the_minimum() -> None:
    session = position(131)  # LSWR buys GWR's 2-train for 60 in the record
    refused(session, act("LSWR", "buy_train", train="2-2", price=5), "train_price")


def test_lease_only_in_receivership() -> None:
    refused(position(12), act("LNWR", "special_buy", description="2", cost=10), "wrong_action_now")


def test_nothing_is_accepted_after_the_game_ended() -> None:
    session = GameSession.from_record(_record())
    refused(session, act(P1, "pass"), "game_over")


# -- legal_actions agrees with the checked door ----------------------------------------------------------------
@pytest.mark.parametrize("index", [0, 2, 15, 23, 45, 96, 131, 240, 300])
def test_every_offered_action_is_accepted(index: int) -> None:
    session = position(index)
    offered = session.legal_actions()
    assert offered, "the acting entity always has something to do"
    for action in offered:
        trial = position(index)
        trial.submit(action)


def test_upgrading_a_station_tile_needs_a_train() -> None:
    session = position(122)  # GWR upgrades X14 (6 -> 14) in the record
    corp = session.game.corporations["GWR"]
    corp.trains.clear()
    refused(session, {k: v for k, v in _record()["actions"][122].items() if k != "id"}, "upgrade_needs_train",
            staged=True)


def test_upgraded_station_tile_must_be_within_reach_of_a_train() -> None:
    from shared.engine.board.tiles import NODE_BASE
    from shared.engine.titles.g1825.reach import passed_stops
    from shared.engine.titles.g1825.steps.track import TrackAndToken1825

    session = position(122)
    distances = passed_stops(session.game.board, "GWR")
    assert distances[("V14", NODE_BASE)] == 0  # its home station
    assert distances[("X14", NODE_BASE)] == 1  # one stop away: a 2-train reaches it
    trains = session.game.corporations["GWR"].trains
    assert TrackAndToken1825.train_reach(trains)[0] == 3  # several 2-trains double-head as a 3-train
    assert TrackAndToken1825.train_reach(trains[:1])[0] == 2


# -- operating round: the director's sales in the train step (rules-1825.md) -------------------------------------
GENERATED = RECORD.parents[1] / "generated" / "1825"


@lru_cache(maxsize=4)
def _generated_blob(name: str, index: int) -> bytes:
    record = json.loads((GENERATED / f"{name}.json").read_text())
    return GameSession.from_record(record, limit=index).snapshot()


def test_only_the_director_of_the_operating_corporation_sells_in_its_train_step() -> None:
    session = GameSession.restore(_generated_blob("gen1825_unit_1_4p_256123", 29))  # LBSC buys trains
    refused(session, act(1002, "sell_shares", shares=["SECR_1"], percent=10), "not_your_turn")


def test_the_director_sells_no_more_than_the_cheapest_train_needs() -> None:
    """Unit 1, 3 players: GER's director 1001 has just sold LBSC (index 53); with his cash, GER's treasury and
    another sale the cheapest train would be paid for twice over, so the next sale is refused."""
    session = GameSession.restore(_generated_blob("gen1825_unit_1_3p_361300", 54))
    game = session.game
    player, corp = game.player(1001), game.corporations["GER"]
    cheapest = min(t.price for t in game.rules.depot_trains_for(game, corp))
    held = next(c for c in game.corporations.values() if c.sym != "GER" and any(
        s.owner == 1001 and not s.president for s in c.shares))
    share = next(s for s in held.shares if s.owner == 1001 and not s.president)
    value = (game.share_price(held) or 0) * share.percent // 10
    assert value + player.cash + corp.cash >= cheapest + value  # the premise: enough already
    refused(session, act(1001, "sell_shares", shares=[share.id], percent=share.percent), "sell_more_than_needed")

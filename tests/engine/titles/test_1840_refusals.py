"""1840's limits, each refused through `GameSession.submit` with its typed error and rule code, leaving the
digest and the stream version exactly as they were. Positions come from playing the worked example
(`test_1840_worked_example.Example`), so every refusal is tried in a real position."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession
from shared.engine.errors import EngineError, IllegalAction, MalformedAction

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_1840_worked_example import S1, S2, S3, Example, offered, share_of  # noqa: E402


def refused(session: GameSession, action: dict[str, Any], kind: type[EngineError] = IllegalAction) -> str:
    before, version = session.digest(), session.version
    with pytest.raises(kind) as err:
        session.submit(action)
    assert session.digest() == before and session.version == version  # a refusal changes nothing
    return err.value.rule


def at(stage: str) -> Example:
    ex = Example()
    for step in ["auction", "order", "stock_round_1", "end_stock_round_1", "company_round_1", "line_round_1a",
                 "line_round_1b", "company_round_2"]:
        if step == stage:
            return ex
        getattr(ex, step)()
    return ex


def test_auction_bids_start_at_face_value_and_rise_by_5() -> None:
    s = at("auction").s
    assert refused(s, {"type": "bid", "entity": S1, "company": "HB", "price": 35}) == "bid_price"
    s.submit({"type": "bid", "entity": S1, "company": "HB", "price": 45})
    assert refused(s, {"type": "bid", "entity": S2, "company": "HB", "price": 48}) == "bid_price"
    assert refused(s, {"type": "bid", "entity": S2, "company": "KK", "price": 50}) == "bid_company"


def test_one_tram_company_per_player_and_start_price_70_to_100() -> None:
    ex = at("stock_round_1")
    s = ex.s
    assert refused(s, {"type": "par", "entity": S1, "corporation": "WT", "share_price": "60,5,2"},
                   MalformedAction) == "market_cell"  # not a cell of the market
    assert refused(s, {"type": "par", "entity": S1, "corporation": "WT", "share_price": "65,4,1"}) == "par_price"
    s.submit(offered(s, "par", corporation="WT", share_price="80,3,2"))
    s.submit(offered(s, "par", entity=S3, corporation="WKB", share_price="70,4,2"))
    s.submit(offered(s, "par", entity=S2, corporation="GWStStB", share_price="70,4,2"))
    # the founding money may not buy ordinary shares before every Tram Company has its director
    wt_share = next(sh.id for sh in s.game.corporations["WT"].shares if sh.owner == "WT")
    assert refused(s, {"type": "buy_shares", "entity": 4, "shares": [wt_share], "percent": 10}) == "buy_shares"
    s.submit(offered(s, "par", entity=4, corporation="DT K&C", share_price="70,4,2"))
    # S1 already directs WT: no second director's certificate (one Tram Company per player is drawn, so
    # the only ones left to name are started already)
    assert not s.game.legal_actions(kinds={"par"})
    assert refused(s, {"type": "par", "entity": S1, "corporation": "DT K&C", "share_price": "80,3,2"}) \
        == "par_started"


def test_sixty_percent_limit() -> None:
    s2 = at("stock_round_1").s  # S1 starts WT at 70 and keeps money for a third share
    s2.submit(offered(s2, "par", corporation="WT", share_price="70,4,2"))
    s2.submit(offered(s2, "par", entity=S3, corporation="WKB", share_price="70,4,2"))
    s2.submit(offered(s2, "par", entity=S2, corporation="GWStStB", share_price="70,4,2"))
    s2.submit(offered(s2, "par", entity=4, corporation="DT K&C", share_price="70,4,2"))
    s2.submit(share_of(s2, "WT"))
    for p in (S3, S2, 4):
        s2.submit({"type": "pass", "entity": p})
    assert s2.game.corporations["WT"].percent_owned_by(S1) == 60
    assert all(o["shares"][0].rsplit("_", 1)[0] != "WT" for o in s2.game.legal_actions(kinds={"buy_shares"}))
    share = next(sh for sh in s2.game.corporations["WT"].shares if sh.owner == "WT")
    assert refused(s2, {"type": "buy_shares", "entity": S1, "shares": [share.id], "percent": 10}) == "buy_shares"


def test_line_auction_limits() -> None:
    ex = at("company_round_1")
    s = ex.s
    s.submit(offered(s, "buy_train", entity="WT", variant="Y1", price=100))
    while s.game.round.kind == "Company":
        major = s.game.corporations[s.game.acting()[0]]
        s.submit(offered(s, "pass") if major.trains else offered(s, "buy_train", variant="Y1"))
    assert refused(s, {"type": "merge", "entity": "WT", "corporation": "2"}) == "merge"  # not offered
    s.submit(offered(s, "merge", entity="WT", corporation="7"))
    assert refused(s, {"type": "bid", "entity": "WT", "corporation": "7", "price": 15}) == "bid_price"
    s.submit({"type": "bid", "entity": "WT", "corporation": "7", "price": 20})
    other = s.game.acting()[0]
    assert refused(s, {"type": "bid", "entity": other, "corporation": "7", "price": 24}) == "bid_price"
    assert refused(s, {"type": "bid", "entity": other, "corporation": "7", "price": 5000}) == "bid_price"
    assert refused(s, {"type": "bid", "entity": other, "corporation": "7", "price": "25"},
                   MalformedAction) == "price"


def test_dividend_limits_and_tram_variants() -> None:
    ex = at("company_round_2")
    s = ex.s
    for amount in (75, 100, -10):  # the box holds 90
        assert refused(s, {"type": "dividend", "entity": "WT", "kind": "variable", "amount": amount}) \
            == "dividend_amount"
    assert refused(s, {"type": "dividend", "entity": "WT", "kind": "payout"}) == "dividend_kind"
    ex.company_round_2()
    # company round 2 sells Y2 / O2 / R1 only
    assert refused(s, {"type": "buy_train", "entity": "WT", "train": "O1-0", "price": 300, "variant": "O1"}) \
        == "train_unavailable"
    o2 = offered(s, "buy_train", entity="WT", variant="O2")
    assert refused(s, o2 | {"price": 300}) == "train_price"


def test_line_round_limits() -> None:
    ex = at("line_round_1a")
    s = ex.s
    # the ordinary tile must connect; a second ordinary tile is refused; protected Stadtbahn stations stay
    assert refused(s, {"type": "lay_tile", "entity": "7", "hex": "F16", "tile": "3-0", "rotation": 3}) \
        == "not_connected"
    s.submit(offered(s, "lay_tile", entity="7", hex="F18", tile="5-0", rotation=0))
    assert refused(s, {"type": "lay_tile", "entity": "7", "hex": "F16", "tile": "3-0", "rotation": 3}) \
        == "tile_lays"
    protected = s.game.board.hexes["F24"]
    city = s.game.board.city_id("F24", 0)
    assert "W" in protected.tokens[0]
    slot = protected.tokens[0].index("W")
    assert refused(s, {"type": "remove_token", "entity": "7", "city": city, "slot": slot}) == "remove_token"
    assert refused(s, {"type": "remove_token", "entity": "7", "city": "F18-0", "slot": 0},
                   MalformedAction) == "city_id"
    # a station it may not place: another line's reserved start stop is out of reach
    assert refused(s, {"type": "place_token", "entity": "7", "city": s.game.board.city_id("E17", 0),
                       "slot": 0}) in ("not_connected", "token_slot")

"""The seed's worked 4-player example (rules digest, "Worked example"), played through `GameSession.submit`.

S1 follows the example: wins the Hofburg for 45, starts WT at 80, buys 10% WT and 10% of Stadtbahn D, sees WT
drop to 75 in company round 1, buys a yellow tram and wins line 7 for 45, runs it in line rounds 1a and 1b,
pays the revenue out in company round 2, buys an orange tram for 200 and a second line for 30. The other
three players only do what the rules force on them (start their Tram Company, buy a tram). Seed 1 draws WT
and offers line 7 (`extras.json` names this draw).

Where the board data decides otherwise than the illustration (its route values are called "indicative"),
the data wins (`docs/conflicts-1840.md`):
- a single tile on line 7's start stop F18 gives no route at all: the first run needs a second stop. A
  Stadtbahn tile must continue its Stadtbahn's track, so line 7 lays it on G23 (next to W's F24 station,
  20), whose icon grants an extra yellow lay: F16, and the run F16-F18 is exactly 30;
- in LR1b line 7 lays the OO tile on E17 and places its second station there (20): the run E17-F16-F18 is
  60 (not 50), so the revenue box holds 90, the payout in CR2 is 90 (S1 gets 54, not 48) and WT's treasury
  is 20 lower than the example's from LR1a on (the Stadtbahn tile).
Every number the rules determine (prices, payments, holdings, percentages, price moves, tram and line
costs, the stack shift) is asserted as in the example.
"""

from __future__ import annotations

from typing import Any

import pytest

from shared.engine import GameSession

S1, S2, S3, S4 = 1, 2, 3, 4


def act(session: GameSession, action: dict[str, Any]) -> None:
    session.submit(action)


def offered(session: GameSession, kind: str, **match: Any) -> dict[str, Any]:
    """The offered action of `kind` whose fields include `match` (the example only plays offered actions)."""
    for option in session.game.legal_actions(kinds={kind}):
        if all(option.get(k) == v for k, v in match.items()):
            return option
    raise AssertionError(f"no {kind} {match} offered; open: {session.game.action_types()}")


def share_of(session: GameSession, corp: str) -> dict[str, Any]:
    return next(o for o in session.game.legal_actions(kinds={"buy_shares"})
                if o["shares"][0].rsplit("_", 1)[0] == corp)


def cash(session: GameSession, entity: Any) -> int:
    game = session.game
    return game.player(entity).cash if isinstance(entity, int) else game.corporations[entity].cash


def price(session: GameSession, corp: str) -> int | None:
    return session.game.share_price(session.game.corporations[corp])


class Example:
    """The example's positions, one method per stage; each leaves the session where the next one starts."""

    def __init__(self) -> None:
        self.s = GameSession.new("1840", [{"id": i, "name": f"S{i}"} for i in (S1, S2, S3, S4)], 1, [])

    def auction(self) -> None:
        s = self.s
        act(s, {"type": "bid", "entity": S1, "company": "HB", "price": 45})
        while s.game.acting() != [S1] or s.game.round.auctioning is not None:
            act(s, {"type": "pass", "entity": s.game.acting()[0]})
        # the other players take the other landmarks at face value; S1 passes
        plan = [(S2, "PR"), (S3, "KK"), (S4, "SB"), (S2, "SD"), (S3, "SSB")]
        while s.game.round.kind == "Auction":
            who = s.game.acting()[0]
            if s.game.round.auctioning is None and who == plan[0][0]:
                sym = plan.pop(0)[1]
                act(s, {"type": "bid", "entity": who, "company": sym, "price": s.game.companies[sym].value})
            else:
                act(s, {"type": "pass", "entity": who})

    def order(self) -> None:
        s = self.s
        act(s, {"type": "choose", "entity": S3, "choice": 1})
        act(s, {"type": "choose", "entity": S2, "choice": 2})
        act(s, {"type": "choose", "entity": S1, "choice": 0})

    def stock_round_1(self) -> None:
        s = self.s
        act(s, offered(s, "par", corporation="WT", share_price="80,3,2"))
        act(s, offered(s, "par", entity=S3, corporation="WKB", share_price="70,4,2"))
        act(s, offered(s, "par", entity=S2, corporation="GWStStB", share_price="70,4,2"))
        act(s, offered(s, "par", entity=S4, corporation="DT K&C", share_price="70,4,2"))
        act(s, share_of(s, "WT"))
        for p in (S3, S2, S4):
            act(s, {"type": "pass", "entity": p})
        act(s, share_of(s, "D"))

    def end_stock_round_1(self) -> None:
        for p in (S3, S2, S4):  # S1, with 20, can do nothing more and is skipped
            act(self.s, {"type": "pass", "entity": p})

    def company_round_1(self) -> None:
        s = self.s
        act(s, offered(s, "buy_train", entity="WT", variant="Y1", price=100))
        while s.game.round.kind == "Company":  # the others must buy a tram; then they pass
            major = s.game.corporations[s.game.acting()[0]]
            act(s, offered(s, "pass") if major.trains else offered(s, "buy_train", variant="Y1"))
        act(s, offered(s, "merge", entity="WT", corporation="7"))
        act(s, offered(s, "bid", entity="WT", corporation="7", price=20) | {"price": 45})
        while s.game.round.kind == "Acquisition":
            act(s, offered(s, "pass"))

    def line_round_1a(self) -> None:
        s = self.s
        act(s, offered(s, "lay_tile", entity="7", hex="F18", tile="5-0", rotation=0))
        act(s, offered(s, "lay_tile", entity="7", hex="G23", tile="L1-0"))  # Stadtbahn tile, 20
        act(s, offered(s, "lay_tile", entity="7", hex="F16", tile="3-0", rotation=3))  # its extra yellow lay
        act(s, offered(s, "pass"))  # no station
        act(s, offered(s, "run_routes"))

    def line_round_1b(self) -> None:
        s = self.s
        act(s, offered(s, "lay_tile", entity="7", hex="E17", tile="235-0", rotation=0))
        act(s, offered(s, "place_token", entity="7", city="235-0-0"))  # the second station, 20
        act(s, offered(s, "pass"))
        act(s, offered(s, "run_routes"))

    def company_round_2(self) -> None:
        s = self.s
        act(s, offered(s, "dividend", entity="WT", amount=90))


@pytest.fixture(scope="module")
def example() -> Example:
    return Example()


def test_setup_gives_260_and_draws_wt_and_line_7(example: Example) -> None:
    game = example.s.game
    assert {p.cash for p in game.players} == {260}
    assert "WT" in game.title_state.majors and "7" in game.title_state.lines_offered
    assert game.corporations["7"].home == "F18"


def test_private_auction_hofburg_for_45_then_poorest_chooses_first(example: Example) -> None:
    s = example.s
    example.auction()
    assert s.game.player(S1).companies == ["HB"] and cash(s, S1) == 260 - 45 == 215
    assert (s.game.companies["HB"].value, s.game.companies["HB"].revenue) == (40, 20)
    # after the auction the player with the least money chooses the seating first
    assert s.game.round.kind == "Choices" and s.game.acting() == [S3] and cash(s, S3) == 180
    example.order()
    assert s.game.player_order[0] == S1


def test_stock_round_1_director_certificate_and_two_shares(example: Example) -> None:
    """The founding card is paid as 350 cash at the start of SR1 (data and recording: see the conflicts)."""
    s = example.s
    assert s.game.round.kind == "Stock" and cash(s, S1) == 215 + 350
    example.stock_round_1()
    game = s.game
    wt, d = game.corporations["WT"], game.corporations["D"]
    assert wt.president == S1 and wt.percent_owned_by(S1) == 60 and d.percent_owned_by(S1) == 10
    assert cash(s, S1) == 215 + 350 - 5 * 80 - 80 - 65 == 20
    assert wt.cash == 10 * 80 == 800  # shares bought afterwards pay the bank, not WT
    # the director's certificate counts as one certificate
    assert game.num_certs(game.player(S1)) == 3


def test_company_round_1_income_dividends_and_price_moves(example: Example) -> None:
    s = example.s
    example.end_stock_round_1()
    game = s.game
    assert game.round.kind == "Company"  # all passed in succession
    assert price(s, "WT") == 75  # paid nothing: one space down from 80
    assert price(s, "D") == 65  # D paid 70 (10-90: no move)
    assert cash(s, S1) == 20 + 20 + 7 == 47  # Hofburg 20, 10% of D's 70
    stadtbahn_d = next(a for a in s.actions[-1]["auto_actions"] if a["entity"] == "D")
    assert sum(r["revenue"] for r in stadtbahn_d["routes"]) == 70
    # the stack offers yellow 100 and orange 300
    assert {(o["variant"], o["price"]) for o in game.legal_actions(kinds={"buy_train"})} == {("Y1", 100), ("O1", 300)}
    example.company_round_1()
    game = s.game
    assert cash(s, "WT") == 800 - 100 - 45 == 655
    assert game.title_state.owned_lines["WT"] == ["7"]
    assert [t.name for t in game.corporations["7"].trains] == ["Y1"]  # the yellow tram goes on line 7
    assert cash(s, S1) == 47


def test_line_round_1a_home_station_start_tile_and_first_run(example: Example) -> None:
    s = example.s
    game = s.game
    assert game.round.kind == "Line" and game.acting() == ["7"]
    assert game.board.token_hexes("7") == ["F18"]  # the start station, free
    # the ordinary tile must connect to the line: in its first turn that means its start stop
    ordinary = {o["hex"] for o in game.legal_actions(kinds={"lay_tile"}) if o["hex"] in ("F18", "F16", "E17")}
    assert ordinary == {"F18"}
    example.line_round_1a()
    assert cash(s, "WT") == 655 - 20 == 635  # the Stadtbahn tile
    assert s.game.corporations["7"].cash == 30  # into the revenue box, not WT's treasury


def test_line_round_1b_second_run_fills_the_box(example: Example) -> None:
    s = example.s
    assert s.game.round.round_num == 2
    assert s.game.legal_actions(kinds={"place_token"}) == []  # no city within reach before the E17 tile
    example.line_round_1b()
    assert cash(s, "WT") == 635 - 20 == 615  # the second station
    assert s.game.corporations["7"].cash == 30 + 60 == 90


def test_company_round_2_payout_stack_shift_orange_tram_and_second_line(example: Example) -> None:
    s = example.s
    game = s.game
    assert game.round.kind == "Company" and game.acting() == ["WT"]
    assert cash(s, S1) == 47 + 20  # Hofburg
    # a payout is a multiple of 10 up to the box: 0..90
    assert [o["amount"] for o in game.legal_actions(kinds={"dividend"})] == list(range(0, 100, 10))
    example.company_round_2()
    game = s.game
    assert cash(s, S1) == 47 + 20 + 90 * 60 // 100 + 7 == 128  # 60% of the payout, D's 7 again
    assert game.corporations["7"].cash == 0 and cash(s, "WT") == 615  # paid out in full
    assert price(s, "WT") == 75  # 10-90 paid: no move
    # the stack has shifted: yellow 50, orange 200, the first red 500
    assert {(o["variant"], o["price"]) for o in game.legal_actions(kinds={"buy_train"})} == \
        {("Y2", 50), ("O2", 200), ("R1", 500)}
    act(s, offered(s, "buy_train", entity="WT", variant="O2", price=200))
    assert cash(s, "WT") == 615 - 200 == 415
    while s.game.round.kind == "Company":  # the reassignment step has no pass: an empty one keeps the trams
        if "reassign_trains" in s.game.action_types():
            act(s, {"type": "reassign_trains", "entity": s.game.acting()[0], "assignments": []})
        else:
            act(s, offered(s, "pass"))
    line = s.game.title_state.lines_offered[0]
    act(s, offered(s, "merge", entity="WT", corporation=line))
    act(s, offered(s, "bid", entity="WT", corporation=line, price=20) | {"price": 30})
    while s.game.acting() and s.game.acting()[0] != "WT" and s.game.round.kind == "Acquisition":
        act(s, offered(s, "pass"))
    game = s.game
    assert game.title_state.owned_lines["WT"] == ["7", line]
    assert cash(s, "WT") == 415 - 30 == 385
    assert cash(s, S1) == 128

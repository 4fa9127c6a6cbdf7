"""Issue 6's 1840 refusals not yet proven elsewhere, each on a position of the recorded 2-player game.

A refusal goes through `GameSession.submit`, names its rule code and leaves the digest and the stream
version as they were; a position arranged by hand is refused by the game itself (a session refusal folds the
log again and would lose the arrangement).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession
from shared.engine.core.stock import BuySellParShares
from shared.engine.errors import EngineError, IllegalAction, MalformedAction
from shared.engine.game import Game

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_1840_rules import record, session_at  # noqa: E402


def refused(session: GameSession, action: dict[str, Any], kind: type[EngineError] = IllegalAction) -> EngineError:
    before, version = session.digest(), session.version
    with pytest.raises(kind) as err:
        session.submit(action)
    assert session.digest() == before and session.version == version  # a refusal changes nothing
    return err.value


def refused_here(game: Game, action: dict[str, Any]) -> EngineError:
    before = game.digest({"id": 0, "type": "setup"})
    with pytest.raises(IllegalAction) as err:
        game.process(action)
    assert game.digest({"id": 0, "type": "setup"}) == before
    return err.value


# -- the founding card ---------------------------------------------------------------------------------------
def test_founding_card_can_only_pay_for_the_directors_certificate() -> None:
    """The recordings pay the card as 350 cash at the start of SR1 (docs/conflicts-1840.md). It cannot go on
    anything else: it arrives after the private auction; until every Tram Company has its director nobody may
    buy a share or pass, only start one; and the cheapest director's certificate (5 x 70) costs the whole 350."""
    before_card = {p.id: p.cash for p in session_at(11).game.players}  # the order choice, after the auction
    assert before_card == {621: 255, 2006: 295}
    s = session_at(12)
    game = s.game
    assert {p.id: p.cash for p in game.players} == {621: 255 + 350, 2006: 295 + 350}
    founding = int(game.rules.extras(game)["founding_cash"]["amount"])
    assert founding == 350
    step = next(s for s in game.round.steps if isinstance(s, BuySellParShares))
    assert min(c.price for c in step.par_prices(game, game.corporations["WT"], game.player(621))) * 5 == founding
    assert game.round.actions_for(game, 621) == ["par"]
    assert refused(s, {"type": "buy_shares", "entity": 621, "shares": ["D_1"], "percent": 10}).rule \
        == "buy_shares"
    assert refused(s, {"type": "pass", "entity": 621}).rule == "must_par"
    s.submit({"type": "par", "entity": 621, "corporation": "GWStStB", "share_price": "70,4,2"})
    assert s.game.round.actions_for(s.game, 2006) == ["par"]
    assert refused(s, {"type": "buy_shares", "entity": 2006, "shares": ["GWStStB_1"], "percent": 10}).rule \
        == "buy_shares"
    assert refused(s, {"type": "pass", "entity": 2006}).rule == "must_par"
    s.submit({"type": "par", "entity": 2006, "corporation": "WT", "share_price": "100,1,2"})
    after = {p.id: p.cash for p in s.game.players}
    assert after == {621: 255, 2006: 145}  # 605 - 350 and 645 - 500: not one Gulden of the card is left
    assert all(after[pid] <= before_card[pid] for pid in after)


def test_a_second_tram_company_for_one_player_is_refused() -> None:
    s = session_at(12)
    s.submit({"type": "par", "entity": 621, "corporation": "GWStStB", "share_price": "70,4,2"})
    game = s.game
    # a director is never offered a second start ...
    step = next(st for st in game.round.steps if hasattr(st, "parable"))
    assert step.parable(game, game.round, game.player(621)) == []
    # ... and turn order gives 621 no turn while WT is unstarted (2006 may not pass): arrange one
    game.round.index = game.round.entities.index(621)
    assert game.round.actions_for(game, 621) == []
    err = refused_here(game, {"type": "par", "entity": 621, "corporation": "WT", "share_price": "70,4,2"})
    assert err.rule == "wrong_action_now" and "nothing to do with par" in err.message
    assert game.corporations["WT"].president is None


# -- line acquisition ------------------------------------------------------------------------------------------
def test_a_tram_company_with_three_lines_may_not_bid_for_a_fourth() -> None:
    acts = record()["actions"]
    s = session_at(157)  # WT owns lines 4, 18 and 7; GWStStB (5, 2) chooses
    game = s.game
    assert game.title_state.owned_lines == {"GWStStB": ["5", "2"], "WT": ["4", "18", "7"]}
    assert refused(s, {"type": "merge", "entity": "WT", "corporation": "3"}).rule == "line_limit"
    s.submit(acts[157], keep_id=True, recorded=True)  # GWStStB puts line 15 up
    assert refused(s, {"type": "bid", "entity": "WT", "corporation": "15", "price": 20}).rule == "line_limit"
    assert refused(s, {"type": "bid", "entity": "WT", "corporation": "15", "price": 500}).rule == "line_limit"


def test_the_last_major_to_reach_three_lines_closes_the_unsold_lines() -> None:
    acts = record()["actions"]
    s = session_at(158)
    game = s.game
    assert game.title_state.lines_offered == ["15", "3", "1", "6"] and game.title_state.lines_reserve == []
    cash = game.corporations["GWStStB"].cash
    s.submit({k: v for k, v in acts[158].items() if k not in ("id", "created_at")})  # GWStStB wins 15 at 20
    game = s.game
    assert game.title_state.owned_lines["GWStStB"] == ["5", "2", "15"]
    assert game.corporations["GWStStB"].cash == cash - 20
    assert game.title_state.lines_offered == [] and game.title_state.lines_reserve == []
    assert all(game.corporations[sym].closed for sym in ("3", "1", "6"))
    assert not any(game.corporations[sym].closed for sym in ("4", "18", "7", "5", "2", "15"))


# -- reassigning trams -----------------------------------------------------------------------------------------
def test_illegal_reassignments_are_refused() -> None:
    acts = record()["actions"]
    s = session_at(54)  # company round: WT (line 4) reassigns O1-0 (on line 4) and O1-2 (its own)
    game = s.game
    assert game.round.actions_for(game, "WT") == ["reassign_trains"]  # no pass (rules-1840 *Tram turn*)
    assert [(t.id, t.owner) for t in game.corporations["4"].trains] == [("O1-0", "4")]

    def reassign(*pairs: tuple[str, str]) -> dict[str, Any]:
        return {"type": "reassign_trains", "entity": "WT",
                "assignments": [{"train": t, "corporation": c} for t, c in pairs]}

    assert refused(s, reassign(("O1-1", "4"))).rule == "reassign"  # GWStStB's tram
    assert refused(s, reassign(("O1-2", "5"))).rule == "reassign"  # GWStStB's line
    assert refused(s, reassign(("O1-2", "GWStStB"))).rule == "reassign"  # another Tram Company
    assert refused(s, reassign(("O1-0", "4"), ("O1-2", "4"))).rule == "reassign"  # one tram per line
    assert refused(s, reassign(("O1-2", "4"))).rule == "reassign"  # O1-0 stays there: two on line 4
    assert refused(s, {"type": "reassign_trains", "entity": "WT", "assignments": "O1-2"},
                   MalformedAction).rule == "assignments"
    assert refused(s, {"type": "reassign_trains", "entity": "GWStStB", "assignments": []}).rule \
        == "not_your_turn"
    s.submit({k: v for k, v in acts[54].items() if k not in ("id", "created_at")})
    game = s.game
    assert [t.id for t in game.corporations["4"].trains] == ["O1-0"]
    assert [t.id for t in game.corporations["WT"].trains] == ["O1-2"]

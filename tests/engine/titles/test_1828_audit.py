"""Issue 5's 1828 rules not yet proven elsewhere, each on a real position of a recorded game.

Live actions go through `GameSession.submit`; a refusal names its rule code and leaves the digest and the
stream version as they were. Where no recorded game reaches a situation (the C&P minor alive at the first
6-train, an unstarted corporation at Purple), the position is the nearest recorded one and the rule's event is
fired on it, which is what the train purchase does.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession
from shared.engine.core.shares import parse_bundle
from shared.engine.errors import IllegalAction
from shared.engine.game import Game
from shared.engine.model import POOL
from shared.engine.titles.g1828.operating import OperatingRound1828
from shared.engine.titles.g1828.state import state

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_1828_rules import BANKRUPT, GEN, MARKET, actions_of, live, recorded  # noqa: E402


def refused(session: GameSession, action: dict[str, Any]) -> IllegalAction:
    before, version = session.digest(), session.version
    with pytest.raises(IllegalAction) as err:
        session.submit(action)
    assert session.digest() == before and session.version == version  # a refusal changes nothing
    return err.value


def refused_here(game: Game, action: dict[str, Any]) -> IllegalAction:
    """A refusal on a position the test has arranged by hand (a session refusal would fold the log again and
    lose the arrangement): the game itself refuses and stays as it was."""
    before = game.digest({"id": 0, "type": "setup"})
    with pytest.raises(IllegalAction) as err:
        game.process(action)
    assert game.digest({"id": 0, "type": "setup"}) == before
    return err.value


# -- privates ------------------------------------------------------------------------------------------------
def test_camden_and_amboy_gives_its_buyer_a_prr_share() -> None:
    session = recorded(MARKET, 28)  # the last bid on C&A (11345, 185) stands; 3581 passes next
    game = session.game
    assert game.corporations["PRR"].shares[1].owner == "PRR" and game.player(11345).cash == 485
    session.submit(live(actions_of(MARKET)[28]))
    game = session.game
    assert game.companies["C&A"].owner == 11345
    assert game.corporations["PRR"].shares[1].owner == 11345  # PRR_1, 10%, free with the private
    assert game.player(11345).cash == 485 - 185
    assert not game.corporations["PRR"].ipoed  # an ordinary share: PRR is still to be started


def test_saint_clair_tunnel_earns_10_once_a_corporation_owns_it() -> None:
    session = recorded(MARKET, 242)
    stct = session.game.companies["StCT"]
    assert (stct.owner, stct.revenue) == (11345, 5)
    session.submit(live(actions_of(MARKET)[242]))  # NYH buys it for 40
    stct = session.game.companies["StCT"]
    assert (stct.owner, stct.revenue) == ("NYH", 10)


def test_mohawk_and_hudson_exchange_ignores_the_sixty_percent_limit() -> None:
    session = recorded(MARKET, 183)  # 8320, owning M&H and 40% of OSH, is to act in a stock round
    game = session.game
    osh = game.corporations["OSH"]
    for share in osh.shares[5:7]:
        share.owner = 8320  # 8320 now holds 60% of OSH
    game.player(8320).cash = 1000
    assert osh.percent_owned_by(8320) == 60
    # an ordinary purchase is refused at 60% ...
    assert "at most 60%" in refused_here(game, {"type": "buy_shares", "entity": 8320, "shares": ["OSH_3"],
                                              "percent": 10}).message
    # ... the exchange is not
    session.submit({"type": "buy_shares", "entity": "M&H", "entity_type": "company", "shares": ["OSH_4"],
                    "percent": 10})
    game = session.game
    assert game.corporations["OSH"].percent_owned_by(8320) == 70
    assert game.player(8320).cash == 1000  # free
    assert game.companies["M&H"].closed and "M&H" not in game.player(8320).companies
    assert game.board.hexes["D22"].blockers == []
    # one exchange per turn, and the private is gone: a second is refused
    assert refused_here(game, {"type": "buy_shares", "entity": "M&H", "entity_type": "company",
                               "shares": ["OSH_3"], "percent": 10}).rule == "exchange"


def test_a_private_blocks_its_hex_until_a_corporation_buys_it() -> None:
    acts = actions_of(MARKET)
    session = recorded(MARKET, 238)  # NYH's track step; StCT (11345's) blocks Sarnia, D10
    assert session.game.board.hexes["D10"].blockers == ["StCT"]
    lay = {"type": "lay_tile", "entity": "NYH", "hex": "D10", "tile": "3-0", "rotation": 0}
    assert refused(session, lay).rule == "hex_blocked"
    for action in acts[238:243]:
        session.submit(action, keep_id=True, recorded=True, trusted=True)
    assert session.game.companies["StCT"].owner == "NYH"
    game = session.game
    assert game.board.hexes["D10"].blockers == []  # bought by a corporation: no longer blocks
    game.board.check_lay("NYH", "D10", "3-0", 0, set(game.phase.tiles), must_connect=False)  # a legal lay


# -- phases ----------------------------------------------------------------------------------------------------
def test_red_closes_every_private_at_the_first_6_train() -> None:
    session = recorded(MARKET, 689)
    game = session.game
    assert sorted(c.sym for c in game.companies.values() if not c.closed) == \
        sorted(["SVN", "StCT", "C&StL", "D&H", "C&P", "E&K", "C&A"])
    assert game.board.hexes["D22"].blockers == []  # (M&H was exchanged)
    session.submit(live(actions_of(MARKET)[689]))  # PRR buys the first 6
    game = session.game
    assert game.phase.name == "Red"
    assert [c.sym for c in game.companies.values() if not c.closed] == []
    assert "close_companies" in [e["type"] if isinstance(e, dict) else e
                                 for e in next(t for t in game.depot.trains if t.id == "6-0").events]


def test_red_closes_the_cp_minor_leaving_a_blocking_token() -> None:
    # no recorded game keeps the minor to the first 6: fire the 6's event on a position where it runs
    session = recorded(BANKRUPT, 300)
    game = session.game
    minor = game.corporations["C&P"]
    assert not minor.closed and minor.trains and game.board.hexes["C15"].tokens[0] == ["C&P"]
    game.rules.fire_event(game, "close_companies")
    assert minor.closed and minor.cash == 0 and not minor.trains
    assert game.board.hexes["C15"].tokens[0] == ["B"]
    assert all(c.closed for c in game.companies.values())
    assert "C&P" not in OperatingRound1828([], 1).operating_order(game)


def test_purple_withdraws_unstarted_corporations_leaving_blocking_tokens() -> None:
    # the recorded game reaching Purple has started every corporation: use its Red position (8 unstarted)
    session = recorded(MARKET, 690)
    game = session.game
    unstarted = sorted(c.sym for c in game.corporations.values() if c.kind == "major" and not c.ipoed)
    assert unstarted == ["C&O", "ERIE", "GT", "IC", "MC", "NKP", "NYC", "WAB"]
    homes = {sym: game.corporations[sym].home for sym in unstarted}
    game.rules.stock_round(game)  # Red: nobody leaves
    assert all(sym in game.corporations for sym in unstarted)
    game.phase_index = next(i for i, p in enumerate(game.defn.phases) if p.name == "Purple")
    game.rules.stock_round(game)
    assert not set(unstarted) & set(game.corporations)
    for sym, home in homes.items():
        tokens = [t for city in game.board.hexes[home].tokens for t in city]
        assert "B" in tokens and sym not in tokens, (sym, home, tokens)


def test_a_withdrawn_corporations_share_stays_in_its_holders_hands() -> None:
    # A founding private's share of a corporation nobody starts (camp1828_base_3p_5301595: 1001's PRR 10%
    # from the auction) is kept when the corporation withdraws at Purple: it is still his, worth nothing.
    session = recorded(MARKET, 690)
    game = session.game
    holder = game.players[0]
    nyc = game.corporations["NYC"]
    assert not nyc.ipoed
    nyc.shares[1].owner = holder.id  # as a private hands it out in the auction
    value = game.rules.player_value(game, holder)
    game.phase_index = next(i for i, p in enumerate(game.defn.phases) if p.name == "Purple")
    game.rules.stock_round(game)
    assert "NYC" not in game.corporations
    digest = game.digest({"id": 0, "type": "pass"})
    assert digest["players"][str(holder.id)]["shares"]["NYC"] == 10
    assert "NYC" not in digest["corporations"]
    assert all("NYC" not in p["shares"] for pid, p in digest["players"].items() if pid != str(holder.id))
    assert game.rules.player_value(game, holder) == value  # no price: it adds nothing


# -- the market ------------------------------------------------------------------------------------------------
def test_the_pool_may_hold_eighty_percent_and_no_more() -> None:
    acts = actions_of(MARKET)
    session = recorded(MARKET, 727)  # stock round: 11345, holding PRR_1 and PRR_8, sells both
    game = session.game
    prr = game.corporations["PRR"]
    for share in prr.shares[2:8]:
        share.owner = POOL  # the market holds 60%; 8320 keeps only the director's certificate
    price = game.share_price(prr)
    cash = game.player(11345).cash
    session.submit(live(acts[727]))
    game = session.game
    prr = game.corporations["PRR"]
    assert prr.percent_owned_by(POOL) == 80  # exactly the limit: allowed
    assert game.player(11345).cash == cash + 2 * price
    # beyond 80% the market refuses; in 1828 only the director's certificate could take it there
    step = next(s for s in game.round.steps if hasattr(s, "can_sell"))
    bundle = parse_bundle(game.corporations, ["PRR_0"], 20)
    assert "at most 80%" in step.can_sell(game, game.round, game.player(8320), prr, bundle)


# -- game end --------------------------------------------------------------------------------------------------
def test_bankruptcy_ends_the_game_at_once() -> None:
    session = recorded(BANKRUPT, 778)
    game = session.game
    assert game.finished and game.game_end_reason == "bankrupt"
    assert any(p.bankrupt for p in game.players)
    assert recorded(GEN, 671).game.game_end_reason == "bankrupt"


def test_a_500_price_ends_the_game_with_the_current_round() -> None:
    acts = actions_of(MARKET)
    session = recorded(MARKET, 1346)  # OR 8.1 of 4 (Purple's last set): NYH-MP is to pay its dividend
    game = session.game
    assert game.end_trigger == ("final_phase", "one_more_full_or_set")
    assert (game.turn, game.round.round_num, game.operating_rounds) == (8, 1, 4)
    session.submit(live(acts[1346]))  # the payout lifts NYH-MP to the top cell
    game = session.game
    assert game.share_price(game.corporations["NYH-MP"]) == 500
    assert game.end_trigger == ("stock_market", "current_round")  # sooner than the final phase's end
    assert not game.finished
    for action in acts[1347:]:
        session.submit(action, keep_id=True, recorded=True, trusted=True)
    game = session.game
    assert game.finished and game.game_end_reason == "stock_market"
    assert (game.turn, game.round.round_num) == (8, 1)  # OR 8.1 completed, 8.2-8.4 never played


def test_purple_gives_one_more_full_set_of_operating_rounds() -> None:
    session = recorded(MARKET, 1143)
    session.submit(live(actions_of(MARKET)[1143]))  # the first D in OR 7.x
    game = session.game
    assert game.phase.name == "Purple" and game.phase.operating_rounds == 4
    assert game.end_trigger == ("final_phase", "one_more_full_or_set")
    assert state(game).final_turn == game.turn + 1 == 8
    rules, round_ = game.rules, game.round
    assert not rules.ends_after_round(game, round_)  # this set of ORs is not the last
    game.turn = 8
    round_.round_num = game.operating_rounds - 1
    assert not rules.ends_after_round(game, round_)  # the last set, not its last OR
    round_.round_num = game.operating_rounds
    assert rules.ends_after_round(game, round_)  # the last OR of the next full set

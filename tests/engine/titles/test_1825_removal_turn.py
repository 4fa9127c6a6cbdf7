"""docs/rules-1825.md "The turn after a removal at the payout": a corporation in receivership that ran its
leased train and is removed at £0 by the payout that follows leaves that payout spent for the next
corporation to operate; the next corporation's run then earns nothing (no dividend, nothing withheld, no
price move) and its train step is settled at the start of its turn. A removal after a run with the
corporation's own trains only hands nothing on.

Positions from Railpost's own game `1825:2:778005:unit_3` (Unit 3, two players), which the reference
replays with identical states up to action 541."""

from __future__ import annotations

from positions_1825 import position, record

from shared.engine.game import Game

GAME = "rp_1825_2p_778005_unit_3"


def play(game: Game, index: int, until: int, name: str = GAME) -> None:
    """The recorded moves `index` up to `until` (excluded), as their players sent them."""
    for action in record(name)["actions"][index:until]:
        game.process({k: v for k, v in action.items() if k != "id"})


def test_a_removal_after_a_leased_run_spends_the_next_corporations_payout() -> None:
    game = position(GAME, 514)  # NBR, in receivership at £5, has leased a 7 and runs it next
    nbr, cr = game.corporations["NBR"], game.corporations["CR"]
    assert game.acting() == ["NBR"] and game.share_price(nbr) == 5 and nbr.president is None
    play(game, 514, 515)  # NBR runs the leased 7 for £200, withholds, reaches £0: removed
    assert nbr.closed and game.acting() == ["CR"]
    assert cr.cash == 170 and game.share_price(cr) == 16 and cr.president is None
    play(game, 515, 518)  # CR lays 44 on I5, leases a 7 (£10), runs its own trains for £230
    assert game.acting() == ["M&C"], "CR's turn ends with its run: its payout was spent"
    assert cr.cash == 160, "the £230 run is neither paid out nor withheld"
    assert game.share_price(cr) == 16, "and the price does not move"


def test_a_removal_after_a_run_with_own_trains_hands_nothing_on() -> None:
    game = position(GAME, 480)  # GSWR, in receivership at £5, leased a 5 but runs its own 2 train
    play(game, 480, 481)
    mc = game.corporations["M&C"]
    assert game.corporations["GSWR"].closed and game.acting() == ["M&C"]
    cash, price = mc.cash, game.share_price(mc)
    assert price == 34
    play(game, 481, 485)  # M&C leases a 5 (£10), lays tile 8 on I7 (£100), passes, runs its 3T for £40
    assert game.acting() != ["M&C"]
    assert game.share_price(mc) == 24, "M&C withholds as usual: one step left"
    assert mc.cash == cash - 10 - 100 + 40


# Railpost's own game `1825:2:778023:unit_3,u3p`, replayed by the reference with identical states to 531.
AFTER = "rp_1825_2p_778023_unit_3_u3p"


def test_the_run_left_unpaid_goes_to_the_next_payout_of_the_round() -> None:
    """NBR, in receivership, runs its leased 5 and is removed at £0 (498); CR's £190 run (501) is neither paid
    nor withheld; GNoS, next, has no run of its own and its automatic payout withholds CR's £190."""
    game = position(AFTER, 501)
    gnos, cr = game.corporations["GNoS"], game.corporations["CR"]
    assert game.corporations["NBR"].closed and game.acting() == ["GNoS"]
    assert cr.cash == position(AFTER, 500).corporations["CR"].cash - 0, "CR's run was not paid out or kept"
    before = gnos.cash
    assert game.share_price(gnos) == 24
    play(game, 501, 503, AFTER)  # GNoS leases a 5 and passes its track; it has no route to run
    assert gnos.cash == before - 10 + 190, "GNoS withholds the £190 CR's run left unpaid"
    assert game.share_price(gnos) == 16


def test_a_corporation_in_receivership_goes_on_buying_trains() -> None:
    """GNoS, in receivership with £710 and room for a third train, picks a 3T for £370 from the two trains it
    could buy; one train it can pay for is left (the 3 CR discarded, £300), and it buys that one at once."""
    game = position(AFTER, 527)
    gnos = game.corporations["GNoS"]
    assert game.acting() == ["GNoS"] and gnos.president is None
    assert sorted(t.name for t in gnos.trains) == ["5"] and gnos.cash == 710
    assert [t.name for t in game.depot.discarded] == ["3"]
    game.process({"type": "buy_train", "entity": "GNoS", "train": "3T-1", "price": 370, "variant": "3T"})
    assert sorted(t.name for t in gnos.trains) == ["3", "3T", "5"]
    assert gnos.cash == 710 - 370 - 300 and game.depot.discarded == []
    assert game.acting() == ["CR"], "the next operating round begins with CR"

"""docs/rules-1825.md "The turn after a removal at the payout": a corporation in receivership that ran its
leased train and is removed at £0 by the payout that follows leaves that payout spent for the next
corporation to operate; the next corporation's run then earns nothing (no dividend, nothing withheld, no
price move) and its train step is settled at the start of its turn. A removal after a run with the
corporation's own trains only hands nothing on.

Positions from Railpost's own game `1825:2:778005:unit_3` (Unit 3, two players), which the reference
replays with identical states up to action 541."""

from __future__ import annotations

from positions_1825 import position

GAME = "rp_1825_2p_778005_unit_3"


def play(game, index: int, until: int) -> None:  # type: ignore[no-untyped-def]
    from positions_1825 import record
    for action in record(GAME)["actions"][index:until]:
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

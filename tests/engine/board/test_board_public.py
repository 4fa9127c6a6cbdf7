"""The board's public trial/reach API that titles build on: a trial lay shows the tile to what runs inside
it and leaves nothing behind; a city id locates its hex and city."""

from __future__ import annotations

from golden import FIXTURES_1825, walk


def test_trial_lay_is_seen_inside_and_undone_after():
    tally = walk(FIXTURES_1825[0], stop_before=10)  # LNWR's first lay: T14 8-0 rotation 2
    board = tally.board
    before_tile = board.hex("T14").tile.name
    before_reach = board.reach("LNWR")
    before_state = board.dynamic_state()
    new = board.catalogue["8"]
    with board.trial_lay("T14", new, 2):
        assert board.hex("T14").tile.name == "8"
        inside = board.reach("LNWR")
        assert inside is not before_reach  # computed afresh with the tile laid
    assert board.hex("T14").tile.name == before_tile
    assert board.reach("LNWR") is before_reach  # the cache from before, not the trial's
    assert board.dynamic_state() == before_state


def test_locate_city_and_forget_reach():
    tally = walk(FIXTURES_1825[0], stop_before=97)  # LNWR tokens S13-0-1
    board = tally.board
    h, index = board.locate_city("S13-0-1")
    assert h.id == board.city_hex("S13-0-1")
    assert board.city_id(h.id, index) == "S13-0-1"
    cached = board.reach("LNWR")
    board.forget_reach()
    assert board.reach("LNWR") is not cached

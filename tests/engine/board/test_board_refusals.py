"""Each rule refuses a broken action with a clear message and a stable rule code."""

from __future__ import annotations

import pytest
from golden import FIXTURES_1825, walk

from shared.engine.errors import IllegalAction, MalformedAction

BANK = FIXTURES_1825[0]


def at(action_id: int):
    tally = walk(BANK, stop_before=action_id)
    return tally.board, tally.colors, tally.kinds, tally.phase


def refused(rule: str, call, *args, **kwargs) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        call(*args, **kwargs)
    assert info.value.rule == rule, info.value.message
    return info.value


def test_lay_refusals_at_start():
    board, colors, _, _ = at(10)  # LNWR's first lay: T14 8-0 rotation 2
    board.check_lay("LNWR", "T14", "8-0", 2, colors)
    refused("hex_blocked", board.check_lay, "LNWR", "V18", "8-1", 2, colors)
    refused("not_connected", board.check_lay, "LNWR", "R6", "8-0", 0, colors)
    refused("phase_color", board.check_lay, "LNWR", "T14", "14-0", 0, colors)
    refused("tile_supply", board.check_lay, "LNWR", "T14", "8-99", 2, colors)
    refused("tile_supply", board.check_lay, "LNWR", "T14", "200-0", 2, colors)
    bad = [r for r in range(6) if r != 2]
    errors = []
    for rot in bad:
        try:
            board.check_lay("LNWR", "T14", "8-0", rot, colors)
        except IllegalAction as err:
            errors.append(err.rule)
    assert "rotation" in errors or "not_connected" in errors
    with pytest.raises(MalformedAction):
        board.check_lay("LNWR", "T14", "8", 2, colors)
    with pytest.raises(MalformedAction):
        board.check_lay("LNWR", "ZZ99", "8-0", 2, colors)


def test_upgrade_must_keep_track():
    board, colors, _, _ = at(200)  # LNWR upgrades R14 (8) to 24 rotation 4
    board.check_lay("LNWR", "R14", "24-0", 4, colors)
    messages = []
    for rot in range(6):
        try:
            board.check_lay("LNWR", "R14", "24-0", rot, colors)
        except IllegalAction as err:
            messages.append(err.message)
    assert any("keep all existing track" in m for m in messages)


def test_label_mismatch():
    board, colors, _, _ = at(321)  # LNWR upgrades Birmingham S13 to 34 in phase 3
    assert "brown" in colors
    err = refused("upgrade_label", board.check_lay, "LNWR", "S13", "65-0", 0, colors)
    assert "S13" in err.message


def test_token_refusals():
    board, _, _, _ = at(97)  # LNWR tokens S13-0-1
    board.check_token("LNWR", "S13-0-1", 0)
    refused("token_slot", board.check_token, "GWR", "T16-0-0", 0)
    refused("not_connected", board.check_token, "GWR", "S13-0-0", 0)
    with pytest.raises(MalformedAction):
        board.check_token("LNWR", "nonsense", 0)


def test_route_refusals():
    board, colors, kinds, phase = at(46)
    route_a = {"train": "2-1", "connections": [["T16", "T14", "S13"]], "nodes": ["T16-0", "S13-2"]}
    route_b = {"train": "2-0", "connections": [["T16", "U17", "V18", "V20"]], "nodes": ["T16-0", "V20-1"]}
    assert board.route_revenues("LNWR", [route_a, route_b], kinds, colors, phase) == [50, 60]
    refused("route_overlap", board.route_revenues, "LNWR", [route_a, {**route_a, "train": "2-0"}], kinds, colors, phase)
    refused("route_train", board.route_revenues, "LNWR", [route_a, route_a], kinds, colors, phase)

    board, colors, kinds, phase = at(140)  # GWR: 3-0 runs V10-V14-X14
    long = {"train": "2-5", "connections": [["V10", "V12", "V14"], ["V14", "W15", "X14"]],
            "nodes": ["V10-0", "V14-0", "X14-0"]}
    refused("route_too_long", board.route_revenues, "GWR", [long], kinds, colors, phase)
    assert board.route_revenues("GWR", [{**long, "train": "3-0"}], kinds, colors, phase) == [70]

    board, colors, kinds, phase = at(202)  # LNWR, tokens in T16, S13, S15
    foreign = {"train": "3-2", "connections": [["V20", "W19"]], "nodes": ["V20-0", "W19-0"]}
    refused("route_no_token", board.route_revenues, "LNWR", [foreign], kinds, colors, phase)

    board, colors, kinds, phase = at(294)  # GER: 3-1 runs U23-T24-R24 through the town T24
    town_end = {"train": "3-1", "connections": [["U23", "T24"]], "nodes": ["U23-0", "T24-0"]}
    refused("route_town_end", board.route_revenues, "GER", [town_end], kinds, colors, phase)

    board, colors, kinds, phase = at(206)
    nowhere = {"train": "3-0", "connections": [["V14", "W13", "X12"]], "nodes": ["V14-0", "X12-0"]}
    with pytest.raises((IllegalAction, MalformedAction)):
        board.route_revenues("GWR", [nowhere], kinds, colors, phase)

"""Recorded 1825 games: every surviving lay, token and run is accepted and revenues match exactly."""

from __future__ import annotations

import time

import pytest
from conftest import load_json
from golden import FIXTURES_1825, setup_for, walk


def playable():
    for fixture in FIXTURES_1825:
        record = load_json(fixture)
        if setup_for("1825", record["settings"].get("optional_rules") or []) is not None:
            yield fixture


@pytest.mark.parametrize("fixture", list(playable()), ids=lambda p: p.stem)
def test_recorded_game_board_actions(fixture):
    started = time.process_time()  # CPU, not wall: another test process on the same cores must not fail it
    tally = walk(fixture)
    elapsed = time.process_time() - started
    assert tally.failures == []
    assert tally.lays_ok == tally.lays > 0
    assert tally.tokens_ok == tally.tokens > 0
    assert tally.runs_ok == tally.runs > 0
    assert tally.routes_ok == tally.routes
    assert tally.digests_ok == tally.survivors
    assert elapsed < 5  # loose bound for slow CI; the board work itself is a few ms per 100 actions
    print(f"{fixture.stem}: lays {tally.lays_ok}/{tally.lays}, tokens {tally.tokens_ok}/{tally.tokens}, "
          f"runs {tally.runs_ok}/{tally.runs}, routes {tally.routes_ok}/{tally.routes}, "
          f"digests {tally.digests_ok}/{tally.survivors}, {elapsed:.3f} s CPU")


def test_autorouter_at_least_recorded():
    checked = []

    def hook(board, action, kinds, colors, phase):
        if action["id"] % 3:
            return
        entity = action["entity"]
        trains = {r["train"]: kinds[r["train"].rsplit("-", 1)[0]] for r in action["routes"]}
        best = board.best_routes(entity, trains, colors, phase)
        got = sum(r["revenue"] for r in best)
        assert got >= sum(r["revenue"] for r in action["routes"]), action["id"]
        assert board.route_revenues(entity, best, kinds, colors, phase) == [r["revenue"] for r in best]
        checked.append(action["id"])

    walk(FIXTURES_1825[0], board_hook=hook)
    assert len(checked) >= 10

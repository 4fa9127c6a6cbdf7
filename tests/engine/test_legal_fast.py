"""Legal-actions made cheaper offers the same moves (issue 47, "what a player waits for").

Three shortcuts, each checked against the slow way it replaces:
- `compute_reach` shares one sealed walk among the pieces of a hex with the same sides; a reference copy of
  the walk as it was (one sealed walk per piece, `reference_reach`) gives the same reach for every entity
  at sampled positions and for trial lays.
- The track restriction asks `reaches_any_path` on a trial lay instead of the whole reach: the same answer
  for every lay of the acting corporation at sampled positions.
- Most trial lays are decided on the board before the lay (`graph.lay_reached`: a clean line into the hex
  says yes, the walk with nothing barred staying where it was says no): every lay any corporation tried at
  sampled positions, decided so, answers as the whole reference reach of the trial board does.
- `Game.trial` keeps the state's pickle between actions: at sampled positions of recorded games every seat's
  answer (`seat_actions`) is the same with a fresh pickle for every copy and the whole reach for every lay.
`python -m bench.check_legal` compares every position of every recorded game between two trees.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from services.play.legal import seat_actions
from shared.engine import GameSession
from shared.engine.board import board as board_module
from shared.engine.board import graph
from shared.engine.board import lays as lays_module
from shared.engine.board.grid import Reach
from shared.engine.game import Game
from shared.engine.session import final_active_flags

CONFORMANCE = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"


def reference_reach(board: Any, entity: str) -> Reach:
    """`compute_reach` as it was before issue 47: every asked piece walked sealed on its own."""
    barred: set[Any] = set()
    while True:
        reach, firsts, exits, shifts = graph._walk(board, entity, barred)
        ways_in: dict[str, int] = {}
        for hex_id, _, via in exits:
            if via == -1 and hex_id in shifts:
                ways_in[hex_id] = ways_in.get(hex_id, 0) + 1
        asked = {hex_id for hex_id, n in ways_in.items() if n > 1}
        if not asked:
            return reach
        bad = []
        for w, arrival in firsts.items():
            if w[0] not in asked:
                continue
            crossed = (exits[arrival] >> shifts[w[0]]) & 0x3F
            if crossed and crossed & graph._side_bits(board, w) \
                    and w not in graph._walk(board, entity, barred, (w[0], graph._sides(board, w)), w)[1]:
                bad.append(w)
        if not bad:
            return reach
        barred.update(bad)


def _session(name: str) -> tuple[GameSession, list[dict[str, Any]], list[bool]]:
    record = json.loads((CONFORMANCE / f"{name}.json").read_text())
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"].get("optional_rules") or [], record["id"])
    return session, record["actions"], final_active_flags(record["actions"])


def _positions(name: str, wanted: set[int]) -> list[tuple[int, GameSession]]:
    """Copies of the session after each action index in `wanted`."""
    session, actions, flags = _session(name)
    out = []
    for i, action in enumerate(actions[:max(wanted) + 1]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
        if i in wanted:
            out.append((i, pickle.loads(pickle.dumps(session))))
    return out


def _same_reach(a: Reach, b: Reach) -> bool:
    return (a.edges, a.nodes, a.paths, a.token_nodes) == (b.edges, b.nodes, b.paths, b.token_nodes)


# 1825's stock market game: LNWR's and GNR's lays at 1064 and 1113 were the slowest answers (hundreds of
# trial lays); the others spread over the game
REACH_POSITIONS = {300, 600, 842, 961, 1064, 1113}


@pytest.fixture(scope="module")
def positions_1825() -> list[tuple[int, GameSession]]:
    return _positions("1825/1825_game_end_stock_market", REACH_POSITIONS)


def test_reach_is_the_reference_reach(positions_1825: list[tuple[int, GameSession]]) -> None:
    checked = 0
    for _, session in positions_1825:
        game = session.game
        for sym in game.corporations:
            if game.board.station_cities(sym):
                assert _same_reach(graph.compute_reach(game.board, sym), reference_reach(game.board, sym)), sym
                checked += 1
    assert checked > 20


def test_trial_lay_answers_as_the_whole_reach(positions_1825: list[tuple[int, GameSession]]) -> None:
    """Every lay the acting corporation could try: `reaches_any_path` on the trial board answers as the
    whole reference reach does, yes and no both seen."""
    answers = {True: 0, False: 0}
    for index, session in positions_1825:
        if index not in (842, 1064):  # (a whole reference reach per lay: two positions are enough)
            continue
        game = session.game
        entity = game.acting()[0]
        if entity not in game.corporations or not game.board.station_cities(entity):
            continue
        board = game.board
        for hex_id in sorted(board.reach(entity).edges):
            h = board.hexes[hex_id]
            if not h.tile.rpaths[h.rotation]:
                continue
            for name in sorted(board.upgrade_targets(h)):
                new = board.catalogue[name]
                for rotation in range(0, 6, 2):
                    with board.trial_lay(hex_id, new, rotation):
                        indices = set(range(len(new.rpaths[rotation])))
                        fast = graph.reaches_any_path(board, entity, hex_id, indices)
                        slow = reference_reach(board, entity).paths
                        assert fast == any((hex_id, i) in slow for i in indices), (hex_id, name, rotation)
                        answers[fast] += 1
                        # and part of the tile only: the restriction asks about the new track alone
                        fast = graph.reaches_any_path(board, entity, hex_id, {0})
                        assert fast == ((hex_id, 0) in slow), (hex_id, name, rotation)
                        answers[fast] += 1
    assert answers[True] > 20 and answers[False] > 20, answers


def test_lays_decided_before_the_trial_as_the_whole_reach(positions_1825: list[tuple[int, GameSession]]) -> None:
    """Every lay whose track restriction any corporation's tile offers ask at the sampled positions (each
    corporation with a station, as if it were laying): when `lay_reached` decides it on the board before
    the lay, the whole reference reach of the trial board answers the same; yes, no and undecided seen."""
    from shared.engine.board.upgrades import path_covers

    answers = {True: 0, False: 0, None: 0}
    for _, session in positions_1825:
        game = session.game
        board = game.board
        for sym in game.corporations:
            if not board.station_cities(sym):
                continue
            asked: list[tuple[Any, Any, int]] = []
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(board_module.Board, "_check_restriction",
                              lambda self, entity, h, new, rotation, into=asked: into.append((h, new, rotation)))
                board.legal_lay_results(sym, set(game.phase.tiles))
            reach = graph.compute_reach(board, sym)
            for h, new, rotation in asked:
                old_paths = h.tile.rpaths[h.rotation]
                added = {pi for pi, np in enumerate(new.rpaths[rotation])
                         if not any(path_covers(p, np, h.tile, new) for p in old_paths)}
                fast = graph.lay_reached(board, reach, sym, h.id, new, rotation, added)
                answers[fast] += 1
                if fast is None:
                    continue
                with board.trial_lay(h.id, new, rotation):
                    slow = reference_reach(board, sym).paths
                    board._reach = {}
                assert fast == any((h.id, i) in slow for i in added), (sym, h.id, new.name, rotation)
    assert answers[True] > 100 and answers[False] > 100 and answers[None] > 0, answers


# recorded positions whose answers try many moves on copies (tile lays with a price, emergency sales,
# mergers, route suggestions) or many trial lays
OFFER_POSITIONS = {
    "1825/1825_game_end_stock_market": {1064, 1113},
    "1828/1828Games_game_end_stock_market": {1177, 1187},
    "1828/1828Games_game_end_bankrupt": {463, 768, 772},
    "1840/2player": {210, 379},
}


def _slow_answers(session: GameSession, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every acting seat's answer the slow way: a fresh pickle for every copy, a trial and the whole reach
    for every lay."""
    with monkeypatch.context() as patch:
        patch.setattr(Game, "_pickle", lambda self: pickle.dumps(self, pickle.HIGHEST_PROTOCOL))
        patch.setattr(lays_module, "lay_reached", lambda *args: None)
        patch.setattr(lays_module, "reaches_any_path",
                      lambda board, entity, hex_id, indices: any(
                          (hex_id, i) in reference_reach(board, entity).paths for i in indices))
        return [(pid, seat_actions(session, pid)) for pid in session.acting_players()]


@pytest.mark.parametrize("name", sorted(OFFER_POSITIONS))
def test_offers_are_the_slow_way_s(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for index, session in _positions(name, OFFER_POSITIONS[name]):
        slow_copy = pickle.loads(pickle.dumps(session))
        fast = [(pid, seat_actions(session, pid)) for pid in session.acting_players()]
        again = [(pid, seat_actions(session, pid)) for pid in session.acting_players()]  # the kept pickle
        slow = _slow_answers(slow_copy, monkeypatch)
        assert fast == slow, (name, index)
        assert again == fast, (name, index)
        assert any(answer for _, answer in fast), (name, index)


def test_a_kept_pickle_is_never_one_of_a_changed_state() -> None:
    """A copy asked for after an action, or after an edit by hand, is of the state as it is then."""
    session, actions, flags = _session("1828/1828Games_game_end_bankrupt")
    for i, action in enumerate(actions[:40]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
    game = session.game
    before = game.trial()
    assert game.trial().bank_cash == before.bank_cash
    game.bank_cash += 1
    game.edited()
    assert game.trial().bank_cash == before.bank_cash + 1
    session.submit(actions[40], trusted=not flags[40], keep_id=True, recorded=True)
    assert pickle.dumps(session.game.trial().__getstate__()["corporations"]) \
        == pickle.dumps(session.game.__getstate__()["corporations"])

"""The converse of `test_legal_coverage` (issue 23): every entry legal-actions offers a player, posted as it
is on a copy of the game (range hints dropped, as the session drops them), is accepted.

Positions: a deterministic sample of the conformance games (one recorded game per title and a generated
game with standing orders), before every POSITION_EVERY-th recorded move, for the player who acts then. The
standing orders are many and alike (one per corporation and kind): of those one of each type is posted, the
rest of the offer in full.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import legal_coverage  # noqa: E402

from shared.engine import GameSession  # noqa: E402
from shared.engine.records import RANGE_HINTS  # noqa: E402
from shared.engine.session import final_active_flags  # noqa: E402

GAMES = ["1825/1825_game_end_bank", "1828/1828Games_game_end_stock_market", "1840/2player",
         "generated/1828/gen1828_4p_612537"]
POSITIONS = 4  # per game, spread evenly over the record


def positions(name: str) -> list[tuple[GameSession, int]]:
    """Sessions at the sampled positions, each a copy (replayed once, copied at each position)."""
    record = json.loads((legal_coverage.CONFORMANCE / f"{name}.json").read_text(encoding="utf-8"))
    settings = record.get("settings") or {}
    session = GameSession.new(record["title"], record["players"], settings.get("seed") or 0,
                              settings.get("optional_rules") or [], record.get("id", 0))
    survivors = final_active_flags(record["actions"])
    count = len(record["actions"])
    wanted = {count * (k + 1) // (POSITIONS + 1) for k in range(POSITIONS)}
    out = []
    for index, action in enumerate(record["actions"]):
        if index in wanted and not session.finished:
            out.append((session.game.trial(), index))
        session.submit(action, trusted=not survivors[index], keep_id=True, recorded=True)
    return out


def posted(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in RANGE_HINTS}


@pytest.mark.parametrize("name", GAMES)
def test_every_offered_entry_is_accepted(name: str) -> None:
    refused = []
    checked = 0
    for game, index in positions(name):
        players = game.acting_players()
        assert players, f"{name} index {index}: nobody acts"
        seen_orders: set[str] = set()
        for entry in game.legal_actions_of(players[0]):
            if entry["type"].startswith("program_"):
                if entry["type"] in seen_orders:
                    continue
                seen_orders.add(entry["type"])
            checked += 1
            if not game.accepts(posted(entry)):
                refused.append((index, entry))
    assert checked
    assert not refused, f"{name}: offered but refused: {refused[:5]}"


@pytest.mark.parametrize("name", GAMES)
def test_dead_ends_are_asked_of_every_player_at_every_position(name: str) -> None:
    """`dead_ends_of` answers for every player before every third move (an operating round's privates and
    minors acting included), and what it names is never offered."""
    record = json.loads((legal_coverage.CONFORMANCE / f"{name}.json").read_text(encoding="utf-8"))
    settings = record.get("settings") or {}
    session = GameSession.new(record["title"], record["players"], settings.get("seed") or 0,
                              settings.get("optional_rules") or [], record.get("id", 0))
    survivors = final_active_flags(record["actions"])
    for index, action in enumerate(record["actions"]):
        if session.finished:
            break
        players = [p.id for p in session.game.players] if index % 3 == 0 else []
        for player in players:  # a seated player asks at any moment
            dead = session.game.dead_ends_of(player)
            if dead:
                offers = [posted(o) for o in session.game.legal_actions_of(player, orders=False)]
                assert not [d for d in dead if {k: v for k, v in d.items() if k != "reason"} in offers], index
        session.submit(action, trusted=not survivors[index], keep_id=True, recorded=True)


def test_every_dead_end_named_is_accepted_and_never_offered() -> None:
    """The dead ends legal-actions names beside its offers (moves after which only an undo goes on) are moves
    the engine takes, and none of them is among the offers: asked before every move of a game whose players
    started failing mergers (gen1828_4p_612537: 20 such moves, each taken back)."""
    name = "generated/1828/gen1828_4p_612537"
    record = json.loads((legal_coverage.CONFORMANCE / f"{name}.json").read_text(encoding="utf-8"))
    settings = record.get("settings") or {}
    session = GameSession.new(record["title"], record["players"], settings.get("seed") or 0,
                              settings.get("optional_rules") or [], record.get("id", 0))
    survivors = final_active_flags(record["actions"])
    named = 0
    for index, action in enumerate(record["actions"]):
        player = session.game.controller(action.get("entity"))
        if action["type"] in ("choose", "merge") and isinstance(player, int):
            offers = [posted(o) for o in session.game.legal_actions_of(player, orders=False)]
            for dead in session.game.dead_ends_of(player):
                move = {k: v for k, v in dead.items() if k != "reason"}
                named += 1
                assert dead["reason"], (index, dead)
                assert move not in offers, (index, move)
                assert session.game.accepts(move), (index, move)
        session.submit(action, trusted=not survivors[index], keep_id=True, recorded=True)
    assert named >= 20

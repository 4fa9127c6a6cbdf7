"""1840's flow rounds (docs/architecture.md, *Flow rounds*) answer like any round: `options` expands exactly
the types `actions_for` opens, for the entity that acts now, and nothing for anyone else; every type a flow
round opens is one it offers and handles."""

from __future__ import annotations

import json
from pathlib import Path

from shared.engine import GameSession
from shared.engine.session import final_active_flags
from shared.engine.titles.g1840.flow import FlowRound
from shared.engine.titles.g1840.rounds import (
    AcquisitionRound,
    AuctionRound,
    ChoicesRound,
    CompanyRound,
    LineRound,
)

RECORD = Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "1840" / "2player.json"


def test_every_flow_round_offers_and_handles_the_same_types() -> None:
    for cls in (AuctionRound, ChoicesRound, CompanyRound, AcquisitionRound, LineRound):
        assert set(cls.offers) == set(cls.handlers), cls.__name__
        assert all(callable(getattr(cls, name)) for name in [*cls.offers.values(), *cls.handlers.values()])


def test_options_agree_with_actions_for_at_every_position_of_a_recorded_game() -> None:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    settings = record.get("settings") or {}
    session = GameSession.new(record["title"], record["players"], settings.get("seed") or 0,
                              settings.get("optional_rules") or [], record.get("id", 0))
    survivors = final_active_flags(record["actions"])
    kinds_seen: set[str] = set()
    for index, action in enumerate(record["actions"]):
        game = session.game
        round_ = game.round
        if isinstance(round_, FlowRound) and not game.finished:
            current = round_.current_entity(game)
            opened = round_.actions_for(game, current)
            offered = round_.options(game, current)
            assert {o["type"] for o in offered} <= set(opened), (index, opened, offered)
            assert offered or not opened or opened == ["place_token"], (index, opened)
            kinds_seen |= {o["type"] for o in offered}
            for other in game.players:
                if other.id != current:
                    assert round_.actions_for(game, other.id) == [] and round_.options(game, other.id) == []
        session.submit(action, trusted=not survivors[index], keep_id=True, recorded=True)
    assert {"bid", "choose", "dividend", "buy_train", "lay_tile", "run_routes", "merge"} <= kinds_seen

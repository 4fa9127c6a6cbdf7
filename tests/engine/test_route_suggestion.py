"""The run legal-actions offers (issue 47): on a large network it is found by the bounded search of
`board/suggest.py`, checked like any run and as good as the full search's at the people's 1828 game's
costliest position; on a small network it is the full search's run exactly; and when the bounded search finds
nothing, the full search still decides what is offered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession
from shared.engine.board import autorouter, suggest
from shared.engine.session import final_active_flags

CONFORMANCE = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"


def _after(name: str, index: int) -> GameSession:
    record = json.loads((CONFORMANCE / f"{name}.json").read_text())
    session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                              record["settings"].get("optional_rules") or [], record["id"])
    flags = final_active_flags(record["actions"])
    for i, action in enumerate(record["actions"][:index + 1]):
        session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
    return session


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[int]:
    calls = [0]
    real = module.evaluate

    def counted(*args: Any, **kwargs: Any) -> None:
        calls[0] += 1
        real(*args, **kwargs)

    monkeypatch.setattr(module, "evaluate", counted)
    return calls


def _full_search(session: GameSession, entity: str) -> list[dict[str, Any]]:
    game = session.game
    kinds = game.rules.train_kinds(game)
    trains = {t.id: kinds[t.name] for t in game.round.route_trains(game, game.corporations[entity])}
    return game.board.best_routes(entity, trains, game.rules.revenue_colors(game), game.phase.name)


def _run_offers(session: GameSession) -> list[dict[str, Any]]:
    return [a for a in session.legal_actions() if a["type"] == "run_routes"]


@pytest.fixture(scope="module")
def late_1828() -> GameSession:
    return _after("1828/23366", 979)  # PRR-MP's run with an 8E and a D over most of the map


@pytest.fixture(scope="module")
def late_1828_full(late_1828: GameSession) -> list[dict[str, Any]]:
    return _full_search(late_1828, "PRR-MP")  # a second of work: once


def test_a_large_network_gets_a_bounded_search_as_good_as_the_full_one(late_1828: GameSession,
                                                                        late_1828_full: list[dict[str, Any]],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    quick = _counting(monkeypatch, suggest)
    full = _counting(monkeypatch, autorouter)
    offers = _run_offers(late_1828)
    assert [o["entity"] for o in offers] == ["PRR-MP"]
    assert full[0] == 0, "the full search ran for the offer"
    assert 0 < quick[0] <= 2 * suggest.EVALUATIONS  # two kinds of train, each a bounded number of runs
    suggested = sum(r["revenue"] for r in offers[0]["routes"])
    assert suggested >= sum(r["revenue"] for r in late_1828_full) > 0
    taken = GameSession.restore(late_1828.snapshot())
    taken.submit(offers[0])  # what is offered is accepted as it stands
    assert taken.game.round.revenue == suggested


def test_the_full_search_decides_when_the_bounded_one_finds_nothing(late_1828: GameSession,
                                                                    late_1828_full: list[dict[str, Any]],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(suggest, "quick_routes", lambda *args, **kwargs: [])
    offers = _run_offers(late_1828)
    assert [o["routes"] for o in offers] == [late_1828_full]


def test_a_small_network_keeps_the_full_searchs_run(monkeypatch: pytest.MonkeyPatch) -> None:
    session = _after("1825/1825_game_end_bank", 42)  # LNWR runs two trains early on

    def refuse(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        raise AssertionError("the bounded search ran on a small network")

    monkeypatch.setattr(suggest, "quick_routes", refuse)
    offers = _run_offers(session)
    assert len(offers) == 1
    entity = offers[0]["entity"]
    assert offers[0]["routes"] == _full_search(session, entity) and offers[0]["routes"]

"""The page's drawing caches change nothing drawn: the map and the tile tray of the people's games at several
positions, drawn with the caches cold, warm from other games and warm from themselves, are byte for byte
what the uncached drawing (every hex drawn afresh, every text placed by trying each spot against each
obstacle) gives, and so is the whole page (its market and tables too) a browser gets. And the caches are
used: a warm map draws no hex again."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.config import Config
from services.gateway import create_app
from services.gateway.web import svg
from shared.engine import GameSession
from shared.engine.view import map_view
from shared.engine.view.board import tile_tray
from shared.eventstore import migrate

CONFORMANCE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "conformance"
PEOPLES = {"1825": "1825/141331.json", "1828": "1828/23366.json", "1840": "1840/218809.json"}
SHARES = (0.0, 0.3, 0.6, 0.9, 1.0)


def plain_free_spot(candidates: list[tuple[float, float]], obstacles: list[tuple[float, float, float]],
                    half_width: float = 0.0) -> tuple[float, float]:
    """The placement as it was before it stopped early: every candidate measured against every obstacle."""
    def at(px: float, py: float) -> float:
        return min((((px - x) ** 2 + (py - y) ** 2) ** 0.5 - r for x, y, r in obstacles), default=9.0)

    def clearance(p: tuple[float, float]) -> float:
        return min(at(p[0] - half_width, p[1]), at(p[0], p[1]), at(p[0] + half_width, p[1]), svg.ENOUGH_ROOM)
    return max(candidates, key=clearance)


def draw(position: dict[str, Any]) -> list[str]:
    view = position["view"]
    return [svg.render_map(view, position["title"])] + [t["svg"] for t in svg.render_tray(position["tray"], view)]


@pytest.fixture(scope="module")
def positions() -> list[dict[str, Any]]:
    """Each people's game's map and tray (plain data) at SHARES of its actions, taken during one replay."""
    out = []
    for title, name in PEOPLES.items():
        record = json.loads((CONFORMANCE / name).read_text())
        n = len(record["actions"])
        wanted = {max(1, int(n * share)) for share in SHARES}

        def take(i: int, _action: dict[str, Any], session: GameSession, title: str = title,
                 wanted: set[int] = wanted) -> None:
            if i + 1 in wanted:
                out.append({"title": title, "at": i + 1, "view": copy.deepcopy(map_view(session.game)),
                            "tray": copy.deepcopy(tile_tray(session.game))})
        GameSession.from_record(record, on_action=take)
    assert len(out) == len(PEOPLES) * len(SHARES)
    return out


@pytest.fixture
def empty_caches() -> Iterator[None]:
    svg.HEXES.clear()
    svg.PLACED.clear()
    yield
    svg.HEXES.clear()
    svg.PLACED.clear()


@pytest.fixture(scope="module")
def uncached(positions: list[dict[str, Any]]) -> list[list[str]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(svg, "HEXES", svg.Drawings(0))
        mp.setattr(svg, "PLACED", svg.Drawings(0))
        mp.setattr(svg, "_free_spot", plain_free_spot)
        return [draw(p) for p in positions]


def test_cold_and_warm_drawings_are_the_uncached_ones(positions: list[dict[str, Any]], uncached: list[list[str]],
                                                      empty_caches: None) -> None:
    for position, expected in zip(positions, uncached, strict=True):  # each cold
        svg.HEXES.clear()
        svg.PLACED.clear()
        assert draw(position) == expected, (position["title"], position["at"])
    svg.HEXES.clear()
    svg.PLACED.clear()
    for position, expected in zip(positions, uncached, strict=True):  # warm from the positions before it
        assert draw(position) == expected, (position["title"], position["at"])
    assert len(svg.PLACED) > 0 and len(svg.HEXES) > 0
    for position, expected in zip(reversed(positions), reversed(uncached), strict=True):  # warm from itself
        assert draw(position) == expected, (position["title"], position["at"])


def test_a_warm_map_draws_no_hex_again(positions: list[dict[str, Any]], empty_caches: None,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    real = svg._draw_hex

    def counting(hex_: dict[str, Any], view: dict[str, Any]) -> str:
        drawn.append(hex_["id"])
        return real(hex_, view)
    monkeypatch.setattr(svg, "_draw_hex", counting)
    position = positions[-1]
    first = draw(position)
    assert len(drawn) == len(position["view"]["hexes"]) + len(position["tray"])
    drawn.clear()
    assert draw(position) == first and drawn == []
    moved = copy.deepcopy(position["view"])  # a token more on one city: that hex alone is drawn again
    hex_ = next(h for h in moved["hexes"] for n in h["nodes"] if n["kind"] == "city" and None in n["tokens"])
    city = next(n for n in hex_["nodes"] if n["kind"] == "city" and None in n["tokens"])
    city["tokens"][city["tokens"].index(None)] = next(iter(moved["entities"]))
    svg.render_map(moved, position["title"])
    assert drawn == [hex_["id"]]


def test_values_equal_to_python_but_printed_differently_are_not_confused(empty_caches: None) -> None:
    view = {"corners": [[0.866, 0.5], [0.0, 1.0], [-0.866, 0.5], [-0.866, -0.5], [0.0, -1.0], [0.866, -0.5]],
            "edges": {str(e): [0.0, 0.866] for e in range(6)}, "entities": {}}
    town = {"node": 0, "kind": "town", "index": 0, "x": 0.0, "y": 0.0, "revenue": 10}
    hex_ = {"id": "A1", "cx": 0.0, "cy": 0.0, "color": "yellow", "tile": None, "nodes": [town], "paths": []}
    signed = copy.deepcopy(hex_)
    signed["nodes"][0].update(x=-0.0, revenue=10.0)
    first, second = svg.render_hex(hex_, view), svg.render_hex(signed, view)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(svg, "HEXES", svg.Drawings(0))
        mp.setattr(svg, "PLACED", svg.Drawings(0))
        assert (first, second) == (svg.render_hex(hex_, view), svg.render_hex(signed, view))
    assert 'cx="-0.0"' in second and ">10.0<" in second and 'cx="-0.0"' not in first


def test_the_cache_keeps_the_most_recently_used() -> None:
    cache = svg.Drawings(2)
    calls: list[str] = []

    def drawing(key: str) -> str:
        return cache.get(key, lambda: calls.append(key) or key.upper())
    assert [drawing(k) for k in ("a", "b", "a", "c", "a", "b")] == ["A", "B", "A", "C", "A", "B"]
    assert calls == ["a", "b", "c", "b"] and len(cache) == 2  # "b" was the least recently used when "c" came


def test_the_whole_page_is_the_uncached_one(tmp_path: Path, empty_caches: None) -> None:
    url = f"sqlite:///{tmp_path / 'page.sqlite3'}"
    migrate(url)
    client = create_app(Config(database_url=url, admin_token="draw-admin", log_level="WARNING")).test_client()
    record = json.loads((CONFORMANCE / PEOPLES["1828"]).read_text())
    record.update(actions=record["actions"][:400], status="active")
    record.pop("result", None)
    record.pop("game_end_reason", None)
    made = client.post("/games/import", json=record, headers={"Authorization": "Bearer draw-admin"})
    assert made.status_code in (200, 201), made.json
    path = f"/games/{made.json['game']['id']}/page"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(svg, "HEXES", svg.Drawings(0))
        mp.setattr(svg, "PLACED", svg.Drawings(0))
        mp.setattr(svg, "_free_spot", plain_free_spot)
        expected = client.get(path).get_data(as_text=True)
    assert 'class="market"' in expected and expected.count('<g class="hex"') > 100
    cold = client.get(path).get_data(as_text=True)
    assert len(svg.HEXES) > 0
    assert cold == expected and client.get(path).get_data(as_text=True) == expected

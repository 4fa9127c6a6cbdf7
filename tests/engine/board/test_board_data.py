"""Board data of every title loads and validates; broken data is refused at load time."""

from __future__ import annotations

import copy
import json
import pickle

import pytest
from conftest import GAMES, load_json

from shared.engine.board import Board, BoardRules, kinds_from_setup
from shared.engine.board.tiles import load_catalogue
from shared.engine.errors import DataError


def configurations():
    for title in ("1825", "1828", "1840", "1833NE"):
        for conf in load_json(GAMES / title / "meta.json")["configurations"]:
            yield title, conf["setup_file"]


@pytest.mark.parametrize(("title", "setup_file"), list(configurations()))
def test_every_configuration_loads(title, setup_file):
    setup = load_json(GAMES / title / setup_file)
    board = Board.load(GAMES / title, setup["map_file"], setup, BoardRules.from_title_data(GAMES / title))
    assert board.hexes
    assert board.digest_tiles() == {}
    kinds_from_setup(setup["trains"])


def _catalogue_with(title: str, name: str, mutate) -> dict:
    raw = load_json(GAMES / title / "tiles.json")
    raw = copy.deepcopy(raw)
    tile = next(t for t in raw["tiles"] if t["name"] == name)
    mutate(tile["tile"])
    return raw


@pytest.mark.parametrize(
    "mutate",
    [
        lambda t: t["paths"].append({"a": {"edge": 7}, "b": {"city": 0}}),
        lambda t: t["paths"].append({"a": {"edge": 1}, "b": {"city": 3}}),
        lambda t: t["paths"].append({"a": {"edge": 1}, "b": {"depot": 0}}),
        lambda t: t.__setitem__("cities", [{"index": 0, "slots": 1, "revenue": "lots"}]),
    ],
    ids=["bad_edge", "missing_node", "unknown_end", "bad_revenue"],
)
def test_broken_tile_raises_data_error(mutate):
    raw = _catalogue_with("1825", "14", mutate)
    with pytest.raises(DataError):
        load_catalogue(raw)


def test_manifest_naming_unknown_tile_raises(tmp_path):
    setup = load_json(GAMES / "1825" / "setup_unit_1.json")
    setup["tile_manifest"]["9999"] = 1
    with pytest.raises(DataError, match="9999"):
        Board.load(GAMES / "1825", setup["map_file"], setup, BoardRules.from_title_data(GAMES / "1825"))


def test_unreadable_tiles_raise(tmp_path):
    for name in ("meta.json", "rules.json", "extras.json", "map_unit_1.json"):
        (tmp_path / name).write_text((GAMES / "1825" / name).read_text())
    (tmp_path / "tiles.json").write_text("{not json")
    setup = load_json(GAMES / "1825" / "setup_unit_1.json")
    with pytest.raises(DataError):
        Board.load(tmp_path, "map_unit_1.json", setup, BoardRules.from_title_data(tmp_path))


def test_clone_and_pickle_are_independent():
    setup = load_json(GAMES / "1825" / "setup_unit_1.json")
    board = Board.load(GAMES / "1825", setup["map_file"], setup, BoardRules.from_title_data(GAMES / "1825"))
    board.place_home_token("LNWR", "T16")
    twin = board.clone()
    twin.lay("T14", "8-0", 2)
    assert board.digest_tiles() == {}
    assert twin.digest_tiles() == {"T14": "8-2"}
    again = pickle.loads(pickle.dumps(twin))
    assert again.digest_tiles() == twin.digest_tiles()
    assert again.token_hexes("LNWR") == ["T16"]
    assert len(pickle.dumps(board)) < 400_000
    json.dumps(board.digest_tiles())


def test_route_rules_come_from_the_title_not_its_name():
    """The shared board reads only the title's data; the title hands it its route rules (issue 24)."""
    from shared.engine.board.routes import DefaultRouteRules
    from shared.engine.titles import rules_for
    from shared.engine.titles.g1825.routes import RouteRules1825
    from shared.engine.titles.g1833ne.routes import RouteRules1833NE

    assert type(BoardRules.from_title_data(GAMES / "1825").route_rules) is DefaultRouteRules
    assert isinstance(rules_for("1825").board_rules(GAMES / "1825").route_rules, RouteRules1825)
    assert rules_for("1825").board_rules(GAMES / "1825").tile_requires_color == {"119": "brown", "166": "gray"}
    assert isinstance(rules_for("1833NE").route_rules(), RouteRules1833NE)
    assert type(rules_for("1828").route_rules()) is DefaultRouteRules

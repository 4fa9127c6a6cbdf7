"""1825 option sets composed from Units, kits and regionals (shared/engine/titles/g1825/compose.py).

Every dumped configuration must come out of the set-up rules exactly (setup and map, compared per hex id):
its bank, certificate limit, trains, phases and tiles by rule, never read from its own file (only the
definitions of the corporations an option brings or changes come from the option's own configuration, so
Units 1+2+3 with R1-R3 is a real check: its regional minors come from the Unit 1 configurations); illegal
sets are refused with the reference's reasons. More in tests/engine/titles/test_1825_setup.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession
from shared.engine.errors import MalformedAction
from shared.engine.titledata import DATA_DIR
from shared.engine.titles.g1825.compose import UNIT_OPTIONS, Composer, check_options, units_of

DIRECTORY = DATA_DIR / "1825"
META = json.loads((DIRECTORY / "meta.json").read_text())
CONFIGS = {c["name"]: c for c in META["configurations"]}
GAME = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "1825" / "1825_game_end_stock_market"


def _comparable_setup(setup: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in setup.items()
           if k not in ("configuration", "optional_rules", "map_file", "players_used_for_this_dump")}
    for key in ("corporations", "minors", "companies"):
        # state_after_setup depends on the dump's player count (who got LNWR shares), not on the options
        out[key] = {c["sym"]: {f: v for f, v in c.items() if f != "state_after_setup"} for c in setup.get(key) or []}
    out["preprinted_hex_upgrades"] = {h: sorted(v) for h, v in setup["preprinted_hex_upgrades"].items()}
    return out


def _compose(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    composer = Composer(DIRECTORY)
    options = CONFIGS[name]["optional_rules"]
    base = next(o for o in options if o in UNIT_OPTIONS)
    options = [base] + [o for o in options if o != base]
    setup = composer.compose_setup(options, CONFIGS[name]["players_used_for_dump"])
    board = composer.compose_map(options)
    setup["preprinted_hex_upgrades"] = composer.preprinted_upgrades(board, setup["tile_manifest"])
    return setup, board


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_set_up_rules_give_every_dumped_configuration(name: str) -> None:
    setup, board = _compose(name)
    composer = Composer(DIRECTORY)
    assert _comparable_setup(setup) == _comparable_setup(composer.setup_of(name))
    assert {h["id"]: h for h in board["hexes"]} == {h["id"]: h for h in composer.map_of(name)["hexes"]}


@pytest.mark.parametrize(("options", "players", "reason"), [
    (["unit_1", "unit_3"], 4, "Units 1 and 3 without Unit 2"),
    (["unit_2", "r1"], 3, "Regionals without Unit 1"),
    (["unit_1", "k5"], 4, "K5 without Unit 2"),
    (["unit_2", "k7"], 3, "K7 without Unit 1"),
    (["unit_1", "k2"], 4, "K2 not supported without K3"),
    (["unit_3", "k2", "k3"], 2, "K2 not supported with just Unit 3"),
    (["unit_1", "k1", "d1"], 4, "K1 or K6 with D1"),
    (["unit_2", "db1"], 3, "DB1 not useful"),
    (["unit_2", "db2"], 3, "DB2 is for Unit 1"),
    (["unit_1", "unit_4"], 4, "Unit 4 requires Unit 3"),
    (["unit_1", "u3p"], 4, "extra Unit 3 trains without Unit 3"),
    (["unit_12", "r1"], 2, "number of players"),
    (["unit_1", "big_bank", "strict_bank"], 4, "exclude each other"),
])
def test_illegal_option_sets_are_refused_with_the_reason(options: list[str], players: int, reason: str) -> None:
    with pytest.raises(MalformedAction, match=reason) as err:
        check_options(META, options, players)
    assert err.value.rule == "options"


def test_all_units_allow_nine_players_only_with_regionals() -> None:
    check_options(META, ["unit_123", "r1", "r2", "r3"], 9)
    with pytest.raises(MalformedAction, match="number of players"):
        check_options(META, ["unit_123"], 9)
    assert units_of(["unit_123", "r1"]) == (1, 2, 3)


def test_an_undumped_combination_loads_and_validates() -> None:
    session = GameSession.new("1825", [{"id": i, "name": str(i)} for i in (1, 2, 3)], 1,
                              ["unit_1", "unit_2", "r1", "r2", "r3", "k3", "d1", "big_bank", "db1"])
    data = session.state.defn.data
    assert data.setup["bank"]["cash"] == 16000  # 5000 + 5000 (big bank) + 2000 (K3) + 4000 (minors counted)
    assert [p["name"] for p in data.setup["phases"]] == ["1", "2", "3", "4", "4a"]
    assert {"Cam", "TV", "S&DR", "M&GN"} <= set(session.state.corporations)

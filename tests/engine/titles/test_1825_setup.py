"""1825 set-up by rule for every legal option set (docs/rules-1825.md, *Set-up*).

- the rules give every dumped configuration exactly (tests/engine/test_1825_composed.py) and every recorded
  or generated game's set-up digest;
- scenarios built from each rule: bank, certificate limit, minors and their trains, K3's and K2's trains and
  phases, DB1's tiles, the player range;
- every legal option set, rule by rule: each rule is checked over every combination of the options it reads
  (every Unit combination, every allowed player count); whole games are set up for every Unit combination at
  every player count, every option on every Unit combination it is legal with, and a seeded sample of larger
  sets;
- a fact the data lacks (K2's trains with Units 2, 2+3 or 1+2+3) is a DataError at load naming it.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession
from shared.engine.errors import DataError, MalformedAction
from shared.engine.titledata import DATA_DIR
from shared.engine.titles.g1825.compose import (
    UNIT_OPTIONS,
    check_setup,
    composer,
    player_range,
    unit_key,
    units_of,
)

DIRECTORY = DATA_DIR / "1825"
META = json.loads((DIRECTORY / "meta.json").read_text())
COMPOSER = composer(DIRECTORY)
OTHERS = [o["sym"] for o in META["optional_rules"] if o["sym"] not in UNIT_OPTIONS]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"
SETUP_DIGESTS = sorted((FIXTURES / "1825").glob("*.setup.json")) + sorted(
    (FIXTURES / "generated" / "1825").glob("*.setup.json"))
# what the data does not say: the Unit combinations K2 has a train set for (composition_rules.json)
K2_UNITS = set(COMPOSER.rule("k2_trains_by_units"))


def seats(n: int) -> list[dict[str, Any]]:
    return [{"id": 100 + i, "name": f"P{i}"} for i in range(n)]


def new_game(options: list[str], players: int) -> GameSession:
    return GameSession.new("1825", seats(players), 1, options)


def legal_sets(optional: list[str]) -> list[tuple[list[str], tuple[int, int]]]:
    """Every legal option set over the Unit options and `optional`, with its player range."""
    out = []
    for unit in UNIT_OPTIONS:
        for k in range(len(optional) + 1):
            for combo in itertools.combinations(optional, k):
                options = [unit, *combo]
                try:
                    out.append((options, player_range(META, options)))
                except MalformedAction:
                    continue
    return out


def lacks_data(options: list[str]) -> bool:
    return "k2" in options and unit_key(units_of(options)) not in K2_UNITS


# -- the recorded and generated games --------------------------------------------------------------------
@pytest.mark.parametrize("path", SETUP_DIGESTS, ids=lambda p: p.name.replace(".setup.json", ""))
def test_set_up_digest_of_every_recorded_game(path: Path) -> None:
    record = json.loads(path.with_name(path.name.replace(".setup.json", ".json")).read_text())
    settings = record["settings"]
    session = GameSession.new(record["title"], record["players"], settings["seed"],
                              settings.get("optional_rules") or [], record.get("id", 0))
    assert session.digest() == json.loads(path.read_text())


# -- scenarios, one per rule --------------------------------------------------------------------------------
def test_bank_first_unit_plus_kits_and_counted_minors() -> None:
    """Units 1+2 with R1 and K3: Unit 1's 5000, K3's 2000, R1's two minors 2000."""
    assert COMPOSER.bank((1, 2), ["r1", "k3"]) == 9000
    assert COMPOSER.bank((1, 2), ["r1", "k3", "big_bank"]) == 14000  # both Units' banks
    assert COMPOSER.bank((1, 2), ["r1", "k3", "strict_bank"]) == 5000  # nothing added
    assert COMPOSER.bank((2, 3), []) == 5000  # the first Unit present is 2
    assert COMPOSER.bank((1,), ["r2", "r3"]) == 7000  # R2 counts twice, R3 not at all


def test_certificate_limit_raised_by_counted_minors() -> None:
    """Seven counted minors (R1 2, R2 2, K5 2, K7 1) with all three Units, 6 players: 23 + 3."""
    assert COMPOSER.counted_minors(["r1", "r2", "r3", "k5", "k7"]) == 7
    limits = COMPOSER.cert_limit("unit_123", 7)
    assert limits["6"] == 26 and limits["9"] == 17 and limits["3"] == 5  # 3: the raise alone
    assert COMPOSER.cert_limit("unit_12", 0)["3"] == 31  # R3 alone counts no minor


def test_the_27th_configuration_with_seven_counted_minors_sets_up_for_six() -> None:
    """All Units, R1-R3, K5, K7 (the real 6-player recording's kind of set-up): every minor of Unit 3 and of
    the kits is in play with its required train set aside, cash and limit by the rules."""
    session = new_game(["unit_123", "r1", "r2", "r3", "k5", "k7"], 6)
    game = session.state
    setup = game.defn.data.setup
    assert setup["bank"]["cash"] == 12000 and setup["cert_limit"]["6"] == 26
    minors = {c.sym: c for c in game.corporations.values() if c.kind == "minor"}
    assert set(minors) == {"GNoS", "HR", "M&C", "Cam", "TV", "S&DR", "M&GN", "FR", "NS", "LT&S"}
    required = COMPOSER.comp["required_train_by_minor"]
    for sym, minor in minors.items():
        train = game.depot.by_id(minor.required_train)
        assert train.name == required[sym] and train.reserved
    for player in game.players:  # six privates for six players: no LNWR share handed out
        assert player.cash == 420 - sum(game.companies[c].value for c in player.companies)


def test_kit_minors_bring_their_required_trains() -> None:
    """R1 brings Cam (U3) and TV (4T), K7 brings LT&S (2+2): one more of each, all set aside."""
    trains = {t["name"]: t for t in COMPOSER.compose_setup(["unit_1", "r1", "k7"], 4)["trains"]}
    assert (trains["U3"]["count"], trains["4T"]["count"], trains["2+2"]["count"]) == (1, 1, 1)
    assert "available_on" not in trains["4T"]  # phase 4 does not exist without K3
    assert trains["U3"]["after_setup"]["locations"] == {"reserved_for_minor": 1}


def test_k3_trains_and_phases() -> None:
    """K3: one 5-train out, three 6s and two 7s in, 3-trains rust on the 7, phases 4 and 4a replace 3a; with
    Unit 2 alone its own two 6-trains give way to K3's."""
    setup = COMPOSER.compose_setup(["unit_12", "k3"], 4)
    counts = {t["name"]: t["count"] for t in setup["trains"]}
    assert (counts["5"], counts["6"], counts["7"]) == (4, 5, 2)
    assert next(t for t in setup["trains"] if t["name"] == "3")["rusts_on"] == "7"
    assert [p["name"] for p in setup["phases"]] == ["1", "2", "3", "4", "4a"]
    alone = {t["name"]: t["count"] for t in COMPOSER.compose_setup(["unit_2", "k3"], 3)["trains"]}
    assert alone["6"] == 3
    assert COMPOSER.bank((2,), ["k3"]) == 7000


def test_k2_trains_and_the_units_the_data_has_no_k2_set_for() -> None:
    setup = COMPOSER.compose_setup(["unit_12", "k2", "k3"], 5)
    counts = {t["name"]: t["count"] for t in setup["trains"]}
    assert (counts["3T"], counts["U3"], counts["2+2"], counts["4+4E"]) == (4, 2, 3, 2)
    for units in (["unit_2"], ["unit_23"], ["unit_123"]):
        with pytest.raises(DataError, match=r"no K2 train set for unit_(2|23|123) "):
            new_game([*units, "k2", "k3"], 4)


def test_db1_swaps_double_town_tiles_per_unit() -> None:
    tiles = COMPOSER.compose_setup(["unit_123", "db1"], 5)["tile_manifest"]
    plain = COMPOSER.compose_setup(["unit_123"], 5)["tile_manifest"]
    assert "87" not in tiles and "88" not in tiles and (tiles["887"], tiles["888"]) == (3, 3)
    assert (tiles["14"], tiles["15"]) == (plain["14"] - 1, plain["15"] - 1)


def test_player_range_of_all_units_needs_regionals_for_nine() -> None:
    assert player_range(META, ["unit_123"]) == (4, 8)
    assert player_range(META, ["unit_123", "r3"]) == (4, 9)
    with pytest.raises(MalformedAction, match="number of players"):
        new_game(["unit_123"], 9)
    assert new_game(["unit_123", "r1", "r2", "r3"], 9).state.defn.data.setup["cert_limit"]["9"] == 16


# -- every legal option set, rule by rule ---------------------------------------------------------------
def test_bank_and_certificate_limit_of_every_legal_set() -> None:
    """Every set over the options the bank and limit rules read, at every allowed player count: the bank
    pays every player's starting cash and every count has a positive limit."""
    sets = legal_sets(["r1", "r2", "r3", "k2", "k3", "k5", "k7", "big_bank", "strict_bank"])
    assert len(sets) > 700
    for options, (low, high) in sets:
        units = units_of(options)
        extras = options[1:]
        bank = COMPOSER.bank(units, extras)
        limits = COMPOSER.cert_limit(unit_key(units), COMPOSER.counted_minors(extras))
        cash = COMPOSER.comp["starting_cash_by_unit_combination"][unit_key(units)]
        for n in range(low, high + 1):
            assert limits[str(n)] > 0, (options, n)
            assert bank >= n * cash[str(n)], (options, n)


def test_trains_minors_and_phases_of_every_legal_set() -> None:
    """Every set over the options the train, minor and phase rules read: each minor finds its train, counts
    are never negative, every train's phase exists, K2 with Units it has no set for is a DataError."""
    sets = legal_sets(["r1", "r2", "r3", "k2", "k3", "k5", "k7", "u3p"])
    for options, (low, _) in sets:
        if lacks_data(options):
            with pytest.raises(DataError, match="K2 train set"):
                COMPOSER.compose_setup(options, low)
            continue
        setup = COMPOSER.compose_setup(options, low)
        phases = {p["name"] for p in setup["phases"]}
        for train in setup["trains"]:
            assert train["count"] > 0
            assert train.get("available_on", "1") in phases
            assert train.get("rusts_on") is None or train["rusts_on"] in {t["name"] for t in setup["trains"]}
        supply = {t["name"]: t["count"] for t in setup["trains"]}
        for corp in setup["corporations"]:
            if corp.get("required_train"):
                assert supply.get(corp["required_train"], 0) >= 1, (options, corp["sym"])


def test_map_homes_and_placements_of_every_legal_set() -> None:
    """Every set over the options that shape the map or bring and move corporations: every home and every
    set-up placement is on the map (maps are built once per map-relevant set)."""
    maps: dict[tuple[str, ...], set[str]] = {}
    shaping = {"r1", "r2", "r3", "db2", "db3", "unit_4"}
    for options, (low, _) in legal_sets(["r1", "r2", "r3", "k5", "k7", "unit_4", "db2", "db3"]):
        key = tuple(o for o in options if o in UNIT_OPTIONS or o in shaping)
        if key not in maps:
            maps[key] = {h["id"] for h in COMPOSER.compose_map(list(key))["hexes"]}
        setup = COMPOSER.compose_setup(options, low)
        check_setup(setup, {"hexes": [{"id": h} for h in maps[key]]}, low)


def test_tiles_of_every_legal_set() -> None:
    """Every set over the options the tile rule reads: no count below zero, every tile known."""
    known = {t["name"] for t in json.loads((DIRECTORY / "tiles.json").read_text())["tiles"]}
    for options, _ in legal_sets(["r1", "r2", "r3", "k1", "k3", "k5", "k6", "d1", "db1", "db3"]):
        tiles = COMPOSER._tiles(units_of(options), options[1:])
        assert set(tiles) <= known, options
        assert all(n > 0 for n in tiles.values())


# -- whole games set up ---------------------------------------------------------------------------------
def _whole_game_cases() -> list[tuple[list[str], int]]:
    cases: list[tuple[list[str], int]] = []
    for unit in UNIT_OPTIONS:
        low, high = player_range(META, [unit])
        cases += [([unit], n) for n in range(low, high + 1)]
        for option in OTHERS:
            try:
                low, high = player_range(META, [unit, option])
            except MalformedAction:
                continue
            if option == "k2":
                continue  # only with K3: in the sample below
            cases.append(([unit, option], high))  # the most players: privates run out, LNWR shares handed out
    rng = random.Random(1825)
    sample: list[tuple[list[str], int]] = []
    while len(sample) < 25:
        options = [rng.choice(list(UNIT_OPTIONS)), *rng.sample(OTHERS, rng.randint(2, 8))]
        try:
            low, high = player_range(META, options)
        except MalformedAction:
            continue
        if not lacks_data(options):
            sample.append((options, rng.randint(low, high)))
    return cases + sample


@pytest.mark.parametrize(("options", "players"), _whole_game_cases(), ids=lambda v: v if isinstance(v, int) else
                         "+".join(v))
def test_whole_game_sets_up(options: list[str], players: int) -> None:
    """Set up through GameSession: data validated, privates (and LNWR shares) handed out, each minor's
    train set aside; every player's cash is the starting cash less what the set-up sold them."""
    session = new_game(options, players)
    game = session.state
    data = game.defn.data
    check_setup(data.setup, data.map, players)
    start = int(data.setup["starting_cash"][str(players)])
    for player in game.players:
        spent = sum(game.companies[c].value for c in player.companies)
        spent += sum(corp.par_price * share.percent // 10 for corp in game.corporations.values()
                     for share in corp.shares if share.owner == player.id)
        assert player.cash == start - spent
        assert game.num_certs(player) <= int(data.setup["cert_limit"][str(players)])
    for corp in game.corporations.values():
        if corp.kind == "minor":
            assert corp.required_train is not None, corp.sym


def test_unit_options_are_merged_before_the_player_count_is_checked() -> None:
    """1825 merges the chosen Units first and checks the merged combination's player range; no Unit option is
    dropped for its own range (rules-1825.md, Set-up): four players choosing Units 1, 2 and 3 play Units 1+2+3
    (Unit 3 alone is a 2-player Unit) with all six privates, five choosing Units 1 and 2 play Units 1+2, and
    six choosing Unit 1 (2-5 players) are refused."""
    game = new_game(["unit_1", "unit_2", "unit_3"], 4).state
    assert game.defn.data.configuration == "unit_123"
    assert sorted(game.companies) == sorted(["S&M", "C&HP", "C&W", "L&M", "TWW", "S&D"])
    assert new_game(["unit_1", "unit_2"], 5).state.defn.data.configuration == "unit_12"
    assert new_game(["unit_1", "unit_2"], 4).state.defn.data.configuration == "unit_12"
    with pytest.raises(MalformedAction, match="Invalid option"):
        new_game(["unit_1"], 6)


def test_no_options_get_the_default_map_and_kits_without_a_unit_are_refused() -> None:
    """A game with no options plays its player count's default (nine players: all Units with R1-R3); a game
    whose options leave no Unit is refused, naming the Units that count allows (rules-1825.md, Set-up)."""
    assert new_game([], 9).state.defn.data.configuration == "unit_123_r1_r2_r3"
    assert new_game([], 3).state.defn.data.configuration == "unit_2"
    with pytest.raises(MalformedAction, match="choose at least one Unit for 4 players .*unit_1, unit_2, unit_12"):
        new_game(["k1"], 4)
    with pytest.raises(MalformedAction, match="Invalid option"):
        new_game(["unit_1", "k3"], 6)  # Unit 1 is for 2-5 players


def test_two_minors_needing_a_4t_each_set_one_aside() -> None:
    """Units 1+2 with R1 and R3: Taff Vale and Midland & Great Northern both form with a 4T. Each sets aside
    a 4T of its own at set-up (Railpost had reserved the same 4T twice, so the second minor to form got
    none), and a set-aside train is never for sale (docs/rules-1825.md, "A minor's own train is never for
    sale")."""
    session = GameSession.new("1825", [{"id": 1000 + i, "name": f"P{i}"} for i in range(1, 6)], 1,
                              ["unit_12", "r1", "r3"])
    game = session.game
    tv, mgn = game.corporations["TV"], game.corporations["M&GN"]
    assert tv.required_train and mgn.required_train and tv.required_train != mgn.required_train
    fours = [t for t in game.depot.trains if t.name == "4T"]
    assert {t.id for t in fours if t.reserved} == {tv.required_train, mgn.required_train}
    assert not any(t.name == "4T" and not t.reserved for t in game.depot.upcoming())

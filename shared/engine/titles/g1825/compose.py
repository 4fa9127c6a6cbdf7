"""1825 configurations composed by rule from Units, regional kits and extension kits.

Only some option sets were dumped as complete configurations (`setup_<config>.json` + `map_<variant>.json`);
those load as they are. Any other legal set is built here by the set-up rules of docs/rules-1825.md
(*Set-up*): the map from the blocks of `composition.json` (its `about` states how overlapping blocks merge);
the set-up from the Unit combination's base configuration plus, per option, the minors its block brings (as
the option's own dumped configuration defines them), their required trains, and the bank, certificate-limit,
train, phase and tile rules that `composition.json` and `composition_rules.json` state. A fact neither file
has (e.g. K2's trains with Units 2+3) is a DataError at load naming it; nothing is measured from other
configurations.

`check_options` refuses the combinations the reference refuses, with its reasons.
"""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import DataError, MalformedAction

UNIT_OPTIONS = {"unit_1": (1,), "unit_2": (2,), "unit_3": (3,), "unit_12": (1, 2), "unit_23": (2, 3),
                "unit_123": (1, 2, 3)}
# the order in which overlapping blocks keep a hex (composition.json "about")
HEX_BLOCK_ORDER = ("db2", "db3", "unit_4", "r1", "r2", "r3", "unit_1", "unit_2", "unit_3")
FILLER_BLOCK_ORDER = ("r1", "unit_1", "unit_2", "unit_3")
# what an option may change in a corporation already in play (R2: GWR's second home; Unit 4: HR's home; DB2)
CORPORATION_FIELDS = ("home", "home_city_index", "token_prices", "abilities", "par")
IMPASSABLE = frozenset({"blue", "sepia", "red"})
EDGES = {"pointy": {0: (-1, 1), 1: (-2, 0), 2: (-1, -1), 3: (1, -1), 4: (2, 0), 5: (1, 1)}}


def units_of(options: list[str]) -> tuple[int, ...]:
    units: set[int] = set()
    for option in options:
        units.update(UNIT_OPTIONS.get(option, ()))
    return tuple(sorted(units))


def unit_key(units: tuple[int, ...]) -> str:
    return "unit_" + "".join(str(u) for u in units)


def check_options(meta: dict[str, Any], options: list[str], players: int) -> None:
    """Refuse what the reference refuses (its reasons, as MalformedAction on `options`)."""
    low, high = player_range(meta, options)
    if not low <= players <= high:
        raise MalformedAction(f"1825: Invalid option(s) for number of players ({players}; these options allow "
                              f"{low}-{high})", "options")


def player_range(meta: dict[str, Any], options: list[str]) -> tuple[int, int]:
    """The player counts a legal option set allows (its Unit combination's, one more for all three Units
    with regional kits); an illegal set is refused with the reference's reason."""
    known = {o["sym"] for o in meta["optional_rules"]}
    unknown = sorted(set(options) - known)
    if unknown:
        raise MalformedAction(f"1825: unknown options {unknown}", "options")
    units = set(units_of(options))
    kits = {o for o in options if o.startswith("k")}
    regionals = {o for o in options if o in ("r1", "r2", "r3")}

    def refuse(reason: str) -> None:
        raise MalformedAction(f"1825: {reason}", "options")

    for group in meta.get("mutually_exclusive_options") or []:
        chosen = [o for o in options if o in group]
        if len(chosen) > 1 and not set(chosen) <= set(UNIT_OPTIONS):
            refuse(f"options {chosen} exclude each other")
    if not units:
        refuse("Must select at least one Unit if using other options")
    if 1 in units and 3 in units and 2 not in units:
        refuse("Cannot combine Units 1 and 3 without Unit 2")
    if regionals and 1 not in units:
        refuse("Cannot add Regionals without Unit 1")
    if "k5" in kits and 2 not in units:
        refuse("Cannot add K5 without Unit 2")
    if "k7" in kits and 1 not in units:
        refuse("Cannot add K7 without Unit 1")
    if "k2" in kits and units == {3}:
        refuse("K2 not supported with just Unit 3")
    if "k2" in kits and "k3" not in kits:
        refuse("K2 not supported without K3")
    if "u3p" in options and 3 not in units:
        refuse("Cannot use extra Unit 3 trains without Unit 3")
    if ("k1" in kits or "k6" in kits) and "d1" in options:
        refuse("Cannot use K1 or K6 with D1")
    if "db1" in options and 1 not in units and 3 not in units:
        refuse("Variant DB1 not useful in a Unit 2 only game")
    if "db2" in options and 1 not in units:
        refuse("Variant DB2 is for Unit 1")
    if "db3" in options and 3 not in units:
        refuse("Variant DB3 is for Unit 3")
    if "unit_4" in options and 3 not in units:
        refuse("Unit 4 requires Unit 3")
    allowed = next((o["players"] for o in meta["optional_rules"] if o["sym"] == unit_key(tuple(sorted(units)))),
                   None) or []
    low, high = min(allowed), max(allowed)
    if len(units) == 3 and not regionals:
        high -= 1  # meta.json unit_123: "4-8 players without regional kits (9 with them)"
    return low, high


# -- reading -------------------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DataError(f"cannot read 1825 data {path}: {err}") from err


class Composer:
    """Builds setup and map of an option set by the set-up rules, from the title directory's data: the
    Unit base configurations, composition.json's blocks and tables, composition_rules.json."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.meta = _read(directory / "meta.json")
        self.comp = _read(directory / "composition.json")
        self.rules = _read(directory / "composition_rules.json")
        self.configs = {c["name"]: c for c in self.meta["configurations"]}

    def setup_of(self, config: str) -> dict[str, Any]:
        return _read(self.directory / self.configs[config]["setup_file"])

    def map_of(self, config: str) -> dict[str, Any]:
        return _read(self.directory / self.configs[config]["map_file"])

    # -- map ----------------------------------------------------------------------------------------------
    def compose_map(self, options: list[str]) -> dict[str, Any]:
        units = units_of(options)
        selected = {f"unit_{u}" for u in units} | set(options)
        blocks = self.comp["blocks"]
        defined: dict[str, tuple[str, str]] = {}
        for name in HEX_BLOCK_ORDER:
            if name in selected:
                for color, hexes in (blocks[name].get("hexes") or {}).items():
                    for hid, code in hexes.items():
                        defined.setdefault(hid, (color, code))
        for name in FILLER_BLOCK_ORDER:
            if name in selected:
                for color, hexes in (blocks[name].get("offmap_hexes") or {}).items():
                    for hid, code in hexes.items():
                        defined.setdefault(hid, (color, code))
        parses, names = self._hex_library()
        overrides = self.meta_overrides(options)
        hexes = []
        for hid, (color, code) in defined.items():
            if code not in parses:
                raise DataError(f"1825: no parse of hex code {code!r} ({hid}) in any dumped map")
            x, y = hex_xy(hid)
            name = overrides.get(hid, names.get(hid))
            hexes.append({"id": hid, "x": x, "y": y, "location_name": name, "color": color, "code": code,
                          "tile": copy.deepcopy(parses[code])})
        link_neighbors(hexes, "pointy")
        return {"title": self.meta["title"], "used_by_configurations": [], "layout": "pointy",
                "axes": {"x": "number", "y": "letter"}, "hex_count": len(hexes), "hexes": hexes}

    def meta_overrides(self, options: list[str]) -> dict[str, str | None]:
        extras = _read(self.directory / "extras.json")
        out: dict[str, str | None] = {}
        for key, value in extras["location_name_overrides"].items():
            if key in options:
                out.update(value)  # option -> {hex: name}
            elif isinstance(value, dict) and "default" in value:
                out[key] = next((value[o] for o in options if o in value), value["default"])
        return out

    def options_syms(self) -> set[str]:
        return {o["sym"] for o in self.meta["optional_rules"]}

    @lru_cache(maxsize=1)  # noqa: B019 - one composer per directory, kept for the process
    def _hex_library(self) -> tuple[dict[str, Any], dict[str, str | None]]:
        """Tile parse per hex code and location name per hex id, from every dumped map."""
        parses: dict[str, Any] = {}
        names: dict[str, str | None] = {}
        overrides = _read(self.directory / "extras.json")["location_name_overrides"].items()
        overridden = {hid for key, value in overrides for hid in (value if key in self.options_syms() else [key])}
        for config in self.configs.values():
            raw = _read(self.directory / config["map_file"])
            if set(config["optional_rules"]) & {"unit_4", "db3"}:
                continue  # their names are overrides (see meta_overrides)
            for h in raw["hexes"]:
                parses.setdefault(h["code"], h["tile"])
                if h.get("location_name") is not None:
                    names.setdefault(h["id"], h["location_name"])
        for config in self.configs.values():
            for h in _read(self.directory / config["map_file"])["hexes"]:
                parses.setdefault(h["code"], h["tile"])
                if h.get("location_name") is not None and h["id"] not in overridden:
                    names.setdefault(h["id"], h["location_name"])  # hexes only Unit 4 / DB3 maps have
        return parses, names

    def preprinted_upgrades(self, board: dict[str, Any], manifest: dict[str, Any]) -> dict[str, list[str]]:
        """What the title's check accepted on a preprinted hex of the same code in any dumped configuration,
        limited to this supply (the check looks at the tiles only, not at the hex id)."""
        accepted: dict[tuple[str, str], set[str]] = {}
        order: dict[str, int] = {}
        for config in self.configs.values():
            setup = _read(self.directory / config["setup_file"])
            codes = {h["id"]: (h["color"], h["code"]) for h in _read(self.directory / config["map_file"])["hexes"]}
            for name in setup["tile_manifest"]:
                order.setdefault(name, len(order))
            for hid, names in setup["preprinted_hex_upgrades"].items():
                if hid in codes:
                    accepted.setdefault(codes[hid], set()).update(names)
        out: dict[str, list[str]] = {}
        for h in board["hexes"]:
            names = sorted((n for n in accepted.get((h["color"], h["code"]), ()) if n in manifest), key=lambda n: order[n])
            if names:
                out[h["id"]] = names
        return out

    # -- setup ------------------------------------------------------------------------------------------
    def compose_setup(self, options: list[str], players: int) -> dict[str, Any]:
        """The set-up of an option set by rule (see docs/rules-1825.md, *Set-up*): the Unit base
        configuration, then each option's minors, trains, tiles, bank and certificate-limit share."""
        units = units_of(options)
        base = unit_key(units)
        extras = [o for o in options if o not in UNIT_OPTIONS]
        setup = copy.deepcopy(self.setup_of(base))
        setup["configuration"] = "+".join([base, *extras])
        setup["optional_rules"] = [base, *extras]
        setup["players_used_for_this_dump"] = players
        setup["map_file"] = None
        setup["starting_cash"] = dict(self._table("starting_cash_by_unit_combination", base))
        for option in self._block_order(extras):
            self._apply_option_definitions(setup, option)
        self._apply_phases(setup, extras)
        setup["trains"] = self._trains(setup, units, extras)
        minors = self.counted_minors(extras)
        setup["bank"] = dict(setup["bank"], cash=self.bank(units, extras))
        setup["cert_limit"] = self.cert_limit(base, minors)
        setup["cert_limit_for_players_used"] = setup["cert_limit"].get(str(players))
        setup["tile_manifest"] = self._tiles(units, extras)
        setup["title_specific"] = self._title_specific(setup, units, extras, minors)
        return setup

    def rule(self, name: str) -> Any:
        """A set-up rule of composition_rules.json (each names where the data states it)."""
        try:
            return self.rules[name]["value"]
        except KeyError:
            raise DataError(f"1825: composition_rules.json lacks {name!r}") from None

    def _table(self, name: str, key: str) -> Any:
        table = self.comp.get(name) or {}
        if key not in table:
            raise DataError(f"1825: composition.json {name} has no entry for {key}")
        return table[key]

    def _block_order(self, extras: list[str]) -> list[str]:
        """Options in the order of composition.json's blocks (the order their minors join the game)."""
        order = list(self.comp["blocks"])
        return sorted(extras, key=lambda o: (order.index(o) if o in order else len(order), extras.index(o)))

    # -- bank and certificate limit -------------------------------------------------------------------------
    def counted_minors(self, extras: list[str]) -> int:
        """The minors the bank and certificate-limit rules count (R2 twice, R3 not at all: bank_rule)."""
        counted = self.rule("counted_minors")
        return sum(counted.get(o, 0) for o in extras)

    def bank(self, units: tuple[int, ...], extras: list[str]) -> int:
        """bank_rule: the first present Unit's bank (all present Units' with big_bank), plus the kit bonus
        and 1000 per counted minor unless strict_bank."""
        per_unit = self.comp["bank_per_unit"]
        banks = [per_unit[f"BANK_UNIT{u}"] for u in units]
        cash = sum(banks) if "big_bank" in extras else banks[0]
        if "strict_bank" not in extras:
            bonus = self.rule("bank_kit_bonus")
            cash += sum(bonus.get(o, 0) for o in extras)
            cash += self.rule("bank_per_counted_minor") * self.counted_minors(extras)
        return cash

    def cert_limit(self, base: str, minors: int) -> dict[str, int]:
        """cert_limit_rule: the Unit combination's table raised by the counted minors' row; a player count
        only the raise names gets the raise alone."""
        out = dict(self._table("cert_limit_by_unit_combination", base))
        if minors:
            raise_by = self.comp.get("cert_limit_raise_by_minor_count") or {}
            if str(minors) not in raise_by:
                raise DataError(f"1825: composition.json cert_limit_raise_by_minor_count has no row for "
                                f"{minors} counted minors")
            for n, add in raise_by[str(minors)].items():
                out[n] = out.get(n, 0) + add
        return out

    # -- corporations brought or changed by an option ------------------------------------------------------
    def own_configuration(self, option: str) -> tuple[str, str]:
        """(the dumped configuration that shows `option` with the fewest other options, the configuration
        it is that one without the option): their difference is what the option defines."""
        having = sorted((c for c in self.configs.values() if option in c["optional_rules"]),
                        key=lambda c: (len(c["optional_rules"]), c["name"]))
        for config in having:
            rest = sorted(set(config["optional_rules"]) - {option})
            base = next((c["name"] for c in self.configs.values() if sorted(c["optional_rules"]) == rest), None)
            if base:
                return config["name"], base
        raise DataError(f"1825: no dumped configuration defines option {option}")

    def _apply_option_definitions(self, setup: dict[str, Any], option: str) -> None:
        """The corporations an option brings (its block's minors) and the definitions it changes (R2: a
        second GWR home; Unit 4: HR's home; DB2: SECR and LBSC), with their map reservations, as the
        option's own configuration defines them."""
        own_name, base_name = self.own_configuration(option)
        own, before = self.setup_of(own_name), self.setup_of(base_name)
        corps = setup["corporations"]
        have = {c["sym"]: c for c in corps}
        theirs = {c["sym"]: c for c in own["corporations"] + (own.get("minors") or [])}
        earlier = {c["sym"]: c for c in before["corporations"] + (before.get("minors") or [])}
        brought = (self.comp["blocks"].get(option) or {}).get("corporations") or []
        for sym in brought:
            if sym not in theirs:
                raise DataError(f"1825: {own_name} lacks {sym}, a corporation of block {option}")
            if sym not in have:
                corps.append(copy.deepcopy(theirs[sym]))
        for sym, corp in theirs.items():
            if sym in brought or sym not in earlier or sym not in have:
                continue
            for field in CORPORATION_FIELDS:
                if corp.get(field) != earlier[sym].get(field):
                    have[sym][field] = copy.deepcopy(corp.get(field))
        placements = setup["initial_placements"]
        for hid, placement in own["initial_placements"].items():
            if before["initial_placements"].get(hid) != placement:
                placements[hid] = copy.deepcopy(placement)
        for hid in set(before["initial_placements"]) - set(own["initial_placements"]):
            placements.pop(hid, None)

    # -- phases and trains ------------------------------------------------------------------------------
    def _apply_phases(self, setup: dict[str, Any], extras: list[str]) -> None:
        if "k3" not in extras:
            return
        rule = self.rule("k3_phases")
        source = self.setup_of(rule["add_from_configuration"])["phases"]
        phases = [p for p in setup["phases"] if p["name"] not in rule["drop"]]
        have = {p["name"] for p in phases}
        setup["phases"] = phases + [copy.deepcopy(p) for p in source if p["name"] not in have]

    def _trains(self, setup: dict[str, Any], units: tuple[int, ...], extras: list[str]) -> list[dict[str, Any]]:
        """Train supply: the Unit combination's set, one required train per minor a kit brings, U3+'s extra
        trains, K3's and K2's changes; priced by the K3 or non-K3 table; a minor-only train keeps its
        `available_on` only when this game has that phase."""
        base = unit_key(units)
        counts = dict(self._table("trains_by_unit_combination", base))

        def add(changes: dict[str, int]) -> None:
            for name, n in changes.items():
                counts[name] = counts.get(name, 0) + n

        required = self.comp["required_train_by_minor"]
        for option in extras:
            for sym in (self.comp["blocks"].get(option) or {}).get("corporations") or []:
                if sym not in required:
                    raise DataError(f"1825: composition.json required_train_by_minor lacks {sym}")
                add({required[sym]: 1})
            add(self.rule("option_trains").get(option, {}))
        if "k3" in extras:
            add({n: -c for n, c in self.rule("k3_replaces_own_trains").get(base, {}).items()})
            add(self.rule("k3_trains"))
        if "k2" in extras:
            k2 = self.rule("k2_trains_by_units")
            if base not in k2:
                raise DataError(f"1825: the data has no K2 train set for {base} (composition_rules.json "
                                f"k2_trains_by_units: {sorted(k2)})")
            add(k2[base])
        table = self.comp["train_price_tables"]["with_k3" if "k3" in extras else "without_k3"]
        phases = {p["name"] for p in setup["phases"]}
        minors = [c for c in setup["corporations"] + (setup.get("minors") or []) if c.get("in_game") is not False]
        order = self.rule("train_order")
        trains = []
        for name in sorted(counts, key=lambda n: order.index(n) if n in order else len(order)):
            count = counts[name]
            if count < 0:
                raise DataError(f"1825: {count} {name}-trains for {'+'.join([base, *extras])}")
            if not count:
                continue
            if name not in table:
                raise DataError(f"1825: composition.json train_price_tables lacks train {name}")
            train = {"name": name, "count": count, **copy.deepcopy(table[name])}
            if train.get("available_on") and train["available_on"] not in phases:
                del train["available_on"]
            reserved = sum(1 for c in minors if c.get("required_train") == name)
            locations = {"reserved_for_minor": reserved, "depot": count - reserved}
            train["after_setup"] = {"count": count, "locations": {k: n for k, n in locations.items() if n}}
            trains.append(train)
        return trains

    # -- tiles ------------------------------------------------------------------------------------------
    def _tiles(self, units: tuple[int, ...], extras: list[str]) -> dict[str, Any]:
        """Every chosen block's tiles added up; a Unit's phase-3a gray tiles only without K3 (K3 brings its
        own); DB1 swaps each present Unit's double-town tiles for 887/888."""
        blocks = self.comp["blocks"]
        counts: dict[str, int] = {}

        def add(tiles: dict[str, int]) -> None:
            for name, n in tiles.items():
                counts[name] = counts.get(name, 0) + n

        for u in units:
            add(blocks[f"unit_{u}"]["tiles"])
            if "k3" not in extras:
                add(blocks[f"unit_{u}"].get("gray_tiles") or {})
        for name in extras:
            add((blocks.get(name) or {}).get("tiles") or {})
        if "db1" in extras:
            by_unit = self.rule("db1_tiles_by_unit")
            for u in units:
                if str(u) not in by_unit:
                    raise DataError(f"1825: composition_rules.json db1_tiles_by_unit lacks Unit {u}")
                add(by_unit[str(u)])
        return {n: c for n, c in counts.items() if c > 0}

    def _title_specific(self, setup: dict[str, Any], units: tuple[int, ...], extras: list[str],
                        minors: int) -> dict[str, Any]:
        """Bands (extras.json `bands`): majors by distinct par, highest first; minors one band after the
        71s (76s without a 71); minors' par range: every non-end cell whose 10 shares pay the train."""
        spec = copy.deepcopy(setup["title_specific"])
        spec["kits"] = sorted(int(o[1:]) for o in extras if o[0] == "k" and o[1:].isdigit())
        spec["regionals"] = sorted(int(o[1:]) for o in extras if o[0] == "r" and o[1:].isdigit())
        spec["num_minors"] = minors
        pars = sorted({c["par"] for c in setup["corporations"] if c.get("par")}, reverse=True)
        bands = {c["sym"]: pars.index(c["par"]) + 1 for c in setup["corporations"] if c.get("par")}
        spec["band_by_corporation"] = bands
        for corp in setup["corporations"]:
            if corp["sym"] in bands:
                corp["band"] = bands[corp["sym"]]
        spec["minor_band"] = pars.index(71 if 71 in pars else 76) + 2
        spec["max_band"] = max(bands.values())
        if 3 in units or minors:
            spec["max_band"] = max(spec["max_band"], spec["minor_band"])
        prices = [c["price"] for row in setup["market"]["rows"] for c in row
                  if c is not None and "endgame" not in c.get("types", [])]
        trains = {t["name"]: t["price"] for t in setup["trains"]}
        spec["minor_par_prices"] = {
            c["sym"]: [p for p in prices if p * 10 > trains[c["required_train"]]]
            for c in setup["corporations"] + (setup.get("minors") or [])
            if c.get("required_train") and c["required_train"] in trains}
        spec["major_par_prices"] = {c["sym"]: [c["par"]] for c in setup["corporations"] if c.get("par")}
        for corp in setup["corporations"]:
            if corp["sym"] in spec["minor_par_prices"]:
                corp["par_choices"] = spec["minor_par_prices"][corp["sym"]]
                corp["band"] = spec["minor_band"]
        return spec


def hex_xy(hid: str) -> tuple[int, int]:
    """'P6' -> (5, 15); 'AA-1' -> (-2, 26); 'b7' -> (6, -2) (pointy: x = number - 1, y = row letter)."""
    letters = "".join(ch for ch in hid if ch.isalpha())
    number = int(hid[len(letters):])
    if letters.islower():
        y = -sum((ord(ch) - ord("a") + 1) * 26 ** i for i, ch in enumerate(reversed(letters)))
    else:
        y = sum((ord(ch) - ord("A") + 1) * 26 ** i for i, ch in enumerate(reversed(letters))) - 1
    return number - 1, y


def link_neighbors(hexes: list[dict[str, Any]], layout: str) -> None:
    """Neighbours as the reference links them: an impassable-coloured hex is entered only over its own
    track, an impassable border is never crossed; `all_neighbors` only where it differs."""
    at = {(h["x"], h["y"]): h for h in hexes}
    for h in hexes:
        near: dict[str, str] = {}
        every: dict[str, str] = {}
        walls = {b["edge"] for b in h["tile"].get("borders") or [] if b.get("type") == "impassable"}
        for edge, (dx, dy) in EDGES[layout].items():
            other = at.get((h["x"] + dx, h["y"] + dy))
            if other is None:
                continue
            every[str(edge)] = other["id"]
            if edge in walls:
                continue
            if other["color"] in IMPASSABLE and (edge + 3) % 6 not in other["tile"].get("exits", []):
                continue
            near[str(edge)] = other["id"]
        h["neighbors"] = near
        if every != near:
            h["all_neighbors"] = every


@lru_cache(maxsize=4)
def composer(directory: Path) -> Composer:
    return Composer(directory)


def compose(directory: Path, options: list[str], players: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """(setup, map) of a legal option set (`options` already normalised: one Unit option): a dumped
    configuration's own files when one has exactly these options, else composed by rule; checked either
    way (the player count is the option set's, not just the title's)."""
    comp = composer(directory)
    check_options(comp.meta, options, players)
    dumped = next((c for c in comp.configs.values() if sorted(c["optional_rules"]) == sorted(set(options))), None)
    if dumped is not None:
        setup, board = comp.setup_of(dumped["name"]), comp.map_of(dumped["name"])
    else:
        setup, board = comp.compose_setup(options, players), comp.compose_map(options)
        setup["preprinted_hex_upgrades"] = comp.preprinted_upgrades(board, setup["tile_manifest"])
    check_setup(setup, board, players)
    return setup, board


def check_setup(setup: dict[str, Any], board: dict[str, Any], players: int) -> None:
    """The set-up checks every 1825 configuration must pass (composed or dumped), as DataError naming the
    fault: the player count has starting cash and a certificate limit, the bank covers the starting cash,
    every minor finds its required train in the supply (one copy each), every home and reservation is on
    the map, every corporation's certificates make 100%."""
    where = f"1825/{setup.get('configuration')}"
    n = str(players)
    if n not in setup["starting_cash"] or n not in setup["cert_limit"]:
        raise DataError(f"{where}: no starting cash or certificate limit for {players} players")
    if setup["cert_limit"][n] <= 0:
        raise DataError(f"{where}: certificate limit {setup['cert_limit'][n]} for {players} players")
    if setup["bank"]["cash"] < players * setup["starting_cash"][n]:
        raise DataError(f"{where}: the bank ({setup['bank']['cash']}) cannot pay the starting cash")
    supply = {t["name"]: t["count"] for t in setup["trains"]}
    needed: dict[str, int] = {}
    hexes = {h["id"] for h in board["hexes"]}
    for corp in setup["corporations"] + (setup.get("minors") or []):
        if corp.get("in_game") is False:
            continue
        if corp.get("required_train"):
            needed[corp["required_train"]] = needed.get(corp["required_train"], 0) + 1
        homes = corp["home"] if isinstance(corp["home"], list) else [corp["home"]]
        missing = [h for h in homes if h not in hexes]
        if missing:
            raise DataError(f"{where}: {corp['sym']} home {missing} is not on the map")
        if sum(corp["shares"]) != 100:
            raise DataError(f"{where}: {corp['sym']} certificates make {sum(corp['shares'])}%")
    for name, count in needed.items():
        if supply.get(name, 0) < count:
            raise DataError(f"{where}: {count} minors need a {name}-train, the supply has {supply.get(name, 0)}")
    for hid in setup["initial_placements"]:
        if hid not in hexes:
            raise DataError(f"{where}: a set-up placement on {hid}, which is not on the map")

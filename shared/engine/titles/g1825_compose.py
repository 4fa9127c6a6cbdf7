"""1825 configurations composed from Units, regional kits and extension kits.

Only some option sets were dumped as complete configurations (`setup_<config>.json` + `map_<variant>.json`).
Any other legal set is built here from data only: the matching Unit base configuration, the building blocks
of `composition.json` (hexes, off-map fillers, tile counts) and the measured `option_effects` of each further
option (trains, phases, corporations, bank, cert limits). No fact is typed in here; the rules for *how* blocks
and effects combine are those stated in `composition.json` (`about`, `bank_rule`, `cert_limit_rule`).

`check_options` refuses the combinations the reference refuses, with its reasons.
"""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import DataError, MalformedAction

UNIT_OPTIONS = {"unit_1": (1,), "unit_2": (2,), "unit_3": (3,), "unit_12": (1, 2), "unit_23": (2, 3),
                "unit_123": (1, 2, 3)}
# the order in which overlapping blocks keep a hex (composition.json "about")
HEX_BLOCK_ORDER = ("db2", "db3", "unit_4", "r1", "r2", "r3", "unit_1", "unit_2", "unit_3")
FILLER_BLOCK_ORDER = ("r1", "unit_1", "unit_2", "unit_3")
TILE_BLOCKS = ("r1", "r2", "r3", "k1", "k3", "k5", "k6", "d1", "db3")
PER_UNIT_EFFECT_OPTIONS = ("db1",)  # measured once per Unit; the effects of all present Units add up
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
    if len(units) == 3 and regionals:
        high = meta["player_range"][1]  # all Units with regional kits: one more player
    if not low <= players <= high:
        refuse(f"Invalid option(s) for number of players ({players}; these options allow {low}-{high})")


# -- reading -------------------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DataError(f"cannot read 1825 data {path}: {err}") from err


def _config_options(key: str) -> set[str]:
    """'unit_12_k2_k3' -> {'unit_12', 'k2', 'k3'}; 'unit_3_unit_4' -> {'unit_3', 'unit_4'}."""
    parts = key.split("_")
    out: set[str] = set()
    i = 0
    while i < len(parts):
        if parts[i] == "unit":
            out.add(f"unit_{parts[i + 1]}")
            i += 2
        elif parts[i] in ("big", "strict"):
            out.add(f"{parts[i]}_{parts[i + 1]}")
            i += 2
        else:
            out.add(parts[i])
            i += 1
    return out


class Composer:
    """Builds setup and map of an option set from a title directory's dumped configurations."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.meta = _read(directory / "meta.json")
        self.comp = _read(directory / "composition.json")
        self.configs = {c["name"]: c for c in self.meta["configurations"]}
        self.excluded: str | None = None  # an effect left out (tests: compose a dumped configuration anew)

    def setup_of(self, config: str) -> dict[str, Any]:
        return _read(self.directory / self.configs[config]["setup_file"])

    def map_of(self, config: str) -> dict[str, Any]:
        return _read(self.directory / self.configs[config]["map_file"])

    # -- effects --------------------------------------------------------------------------------------------
    def effects(self) -> list[tuple[str, str, set[str]]]:
        """(effect key, compared_with, options it adds)."""
        out = []
        for key, effect in self.comp["option_effects"].items():
            if key == self.excluded:
                continue
            base = effect["compared_with"]
            out.append((key, base, _config_options(key) - _config_options(base)))
        return out

    def choose_effects(self, units: tuple[int, ...], extras: list[str]) -> list[str]:
        """The measured effects that together add `extras` to the Unit base.

        First effects measured on this very base (largest first, e.g. unit_12_k2_k3 for K2+K3 on Units 1+2);
        every option still missing then takes the effect measured for it alone on the closest base (most
        shared Units, then the lowest Unit: Unit 1's K3 effect for Units 1+2)."""
        base = unit_key(units)
        todo = set(extras)
        chosen: list[str] = []
        same_base = sorted((e for e in self.effects() if e[1] == base and e[2] and e[2] <= todo),
                           key=lambda e: (-len(e[2]), e[0]))
        for key, _, added in same_base:
            if added <= todo:
                chosen.append(key)
                todo -= added
        for option in sorted(todo, key=extras.index):
            if option in PER_UNIT_EFFECT_OPTIONS:
                keys = [k for k, b, a in self.effects() if a == {option} and set(units_of([b])) <= set(units)]
                if not keys:
                    raise DataError(f"1825: no measured effect of {option} for Units {units}")
                chosen.extend(keys)
                continue
            candidates = [(k, b) for k, b, a in self.effects() if a == {option}]
            if not candidates:
                raise DataError(f"1825: no measured effect of option {option}")

            def closeness(item: tuple[str, str]) -> tuple[int, tuple[int, ...], str]:
                base_units = units_of(list(_config_options(item[1])))
                return (-len(set(base_units) & set(units)), base_units, item[0])

            chosen.append(min(candidates, key=closeness)[0])
        return chosen

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

    # -- setup --------------------------------------------------------------------------------------------
    def compose_setup(self, options: list[str], players: int) -> dict[str, Any]:
        units = units_of(options)
        base = unit_key(units)
        extras = [o for o in options if o not in UNIT_OPTIONS]
        setup = copy.deepcopy(self.setup_of(base))
        chosen = self.choose_effects(units, [o for o in extras if o not in ("big_bank", "strict_bank")])
        setup["configuration"] = "+".join([base, *extras])
        setup["optional_rules"] = [base, *extras]
        setup["players_used_for_this_dump"] = players
        setup["map_file"] = None
        self._apply_corporations(setup, chosen)
        self._apply_trains(setup, chosen, "k3" in extras)
        self._apply_phases(setup, chosen)
        minors = self._counted_minors(chosen)
        setup["bank"] = dict(setup["bank"], cash=self._bank(units, extras, chosen))
        setup["cert_limit"] = self._cert_limit(setup["cert_limit"], minors)
        setup["cert_limit_for_players_used"] = setup["cert_limit"].get(str(players))
        setup["tile_manifest"] = self._tiles(units, extras, chosen)
        setup["title_specific"] = self._title_specific(setup, units, extras, minors)
        return setup

    def _effect(self, key: str) -> dict[str, Any]:
        return dict(self.comp["option_effects"][key]["changes"])

    def _apply_trains(self, setup: dict[str, Any], chosen: list[str], k3: bool) -> None:
        counts = {t["name"]: t["count"] for t in setup["trains"]}
        for key in chosen:
            for name, (before, after) in (self._effect(key).get("train_count_changes") or {}).items():
                counts[name] = counts.get(name, 0) + after - before
        table = self.comp["train_price_tables"]["with_k3" if k3 else "without_k3"]
        setup["_train_counts"] = counts  # finished in _finish_trains once the phases are known
        setup["_train_table"] = table

    def _apply_phases(self, setup: dict[str, Any], chosen: list[str]) -> None:
        phases = list(setup["phases"])
        for key in chosen:
            change = self._effect(key).get("phases")
            if not change:
                continue
            source = {p["name"]: p for p in self.setup_of(key)["phases"]}
            # a phase any measured effect of the same options drops goes (K3 drops Unit 2's phase 3a)
            added = _config_options(key) - _config_options(self.comp["option_effects"][key]["compared_with"])
            removed = {name for k, b, a in self.effects() if a & added
                       for change_k in [self._effect(k).get("phases")] if change_k
                       for name in set(change_k["before"]) - set(change_k["after"])}
            phases = [p for p in phases if p["name"] not in removed]
            have = {p["name"] for p in phases}
            phases += [copy.deepcopy(source[n]) for n in change["after"] if n not in have]
        setup["phases"] = phases
        self._finish_trains(setup)

    def _finish_trains(self, setup: dict[str, Any]) -> None:
        counts, table = setup.pop("_train_counts"), setup.pop("_train_table")
        phases = {p["name"] for p in setup["phases"]}
        trains = []
        for name, spec in sorted(table.items(), key=lambda item: self._train_order(item[0])):
            count = counts.get(name, 0)
            if count <= 0:
                continue
            train = {"name": name, "count": count, **copy.deepcopy(spec)}
            if train.get("available_on") and train["available_on"] not in phases:
                del train["available_on"]  # a minor's train whose phase this game lacks
            reserved = sum(1 for c in setup["corporations"] + (setup.get("minors") or [])
                           if c.get("required_train") == name and c.get("in_game") is not False)
            locations = {"reserved_for_minor": reserved, "depot": count - reserved}
            train["after_setup"] = {"count": count, "locations": {k: n for k, n in locations.items() if n}}
            trains.append(train)
        setup["trains"] = trains

    def _train_order(self, name: str) -> tuple[int, int]:
        """Depot order of the train kinds as the dumped configurations show it (the price table's order
        differs for 2+2 and 4T)."""
        longest = max((self.setup_of(c)["trains"] for c in self.configs), key=len)
        names = [t["name"] for t in longest]
        return (0, names.index(name)) if name in names else (1, list(self.comp["train_price_tables"]["with_k3"]).index(name))

    def _apply_corporations(self, setup: dict[str, Any], chosen: list[str]) -> None:
        corps = setup["corporations"]
        for key in chosen:
            effect = self._effect(key)
            source = self.setup_of(key)
            by_sym = {c["sym"]: c for c in source["corporations"] + (source.get("minors") or [])}
            for sym in effect.get("corporations_added") or []:
                corps.append(copy.deepcopy(by_sym[sym]))
            for change in effect.get("corporations_changed") or []:
                mine = next(c for c in corps if c["sym"] == change["sym"])
                for field in ("home", "home_city_index", "token_prices", "abilities", "par"):
                    if by_sym[change["sym"]].get(field) != self._before_corp(key, change["sym"]).get(field):
                        mine[field] = copy.deepcopy(by_sym[change["sym"]].get(field))
            for sym, (_, after) in (effect.get("par_changes") or {}).items():
                next(c for c in corps if c["sym"] == sym)["par"] = after
            before = self.setup_of(self.comp["option_effects"][key]["compared_with"])["initial_placements"]
            for hid, placement in source["initial_placements"].items():
                if before.get(hid) != placement:
                    setup["initial_placements"][hid] = copy.deepcopy(placement)
            for hid in set(before) - set(source["initial_placements"]):
                setup["initial_placements"].pop(hid, None)

    def _before_corp(self, key: str, sym: str) -> dict[str, Any]:
        base = self.setup_of(self.comp["option_effects"][key]["compared_with"])
        return next(c for c in base["corporations"] + (base.get("minors") or []) if c["sym"] == sym)

    def _bank_delta(self, key: str) -> int:
        bank = self._effect(key).get("bank")
        return bank[1] - bank[0] if bank else 0

    def _counted_minors(self, chosen: list[str]) -> int:
        """Minors the reference counts for bank and cert limits: 1000 of bank per counted minor."""
        return sum(self._bank_delta(k) // 1000 for k in chosen if self._effect(k).get("corporations_added"))

    def _bank(self, units: tuple[int, ...], extras: list[str], chosen: list[str]) -> int:
        per_unit = self.comp["bank_per_unit"]
        banks = [per_unit[f"BANK_UNIT{u}"] for u in units]
        cash = sum(banks) if "big_bank" in extras else banks[0]
        if "strict_bank" not in extras:
            cash += sum(self._bank_delta(k) for k in chosen)
        return cash

    def _cert_limit(self, base: dict[str, int], minors: int) -> dict[str, int]:
        if not minors:
            return dict(base)
        tables: dict[int, dict[str, int]] = {}
        for key, effect in self.comp["option_effects"].items():
            limits = effect["changes"].get("cert_limits")
            before_minors = self.setup_of(effect["compared_with"])["title_specific"]["num_minors"]
            if not limits or before_minors:
                continue
            after_minors = self.setup_of(key)["title_specific"]["num_minors"]
            tables.setdefault(after_minors, {
                n: v - limits["before"].get(n, 0) for n, v in limits["after"].items()})
        if minors not in tables:
            raise DataError(f"1825: no measured certificate-limit table for {minors} minors "
                            f"(measured: {sorted(tables)})")
        out = dict(base)
        for n, add in tables[minors].items():
            out[n] = out.get(n, 0) + add
        return out

    def _tiles(self, units: tuple[int, ...], extras: list[str], chosen: list[str]) -> dict[str, Any]:
        blocks = self.comp["blocks"]
        counts: dict[str, int] = {}

        def add(tiles: dict[str, int]) -> None:
            for name, n in tiles.items():
                counts[name] = counts.get(name, 0) + n

        for u in units:
            add(blocks[f"unit_{u}"]["tiles"])
            if "k3" not in extras:
                add(blocks[f"unit_{u}"].get("gray_tiles") or {})  # phase 3a's gray tiles; K3 brings its own
        for name in TILE_BLOCKS:
            if name in extras:
                add(blocks[name].get("tiles") or {})
        for key in chosen:
            if _config_options(key) & set(PER_UNIT_EFFECT_OPTIONS):
                add({n: after - before for n, (before, after) in self._effect(key)["tile_count_changes"].items()})
        return {n: c for n, c in counts.items() if c > 0}

    def _title_specific(self, setup: dict[str, Any], units: tuple[int, ...], extras: list[str],
                        minors: int) -> dict[str, Any]:
        spec = copy.deepcopy(setup["title_specific"])
        spec["kits"] = sorted(int(o[1:]) for o in extras if o[0] == "k" and o[1:].isdigit())
        spec["regionals"] = sorted(int(o[1:]) for o in extras if o[0] == "r" and o[1:].isdigit())
        spec["num_minors"] = minors
        # bands follow the distinct major pars, highest first; minors open one band after the 71s (or 76s)
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
    """(setup, map) of a legal option set; `options` already normalised (one Unit option)."""
    comp = composer(directory)
    check_options(comp.meta, options, players)
    setup, board = comp.compose_setup(options, players), comp.compose_map(options)
    setup["preprinted_hex_upgrades"] = comp.preprinted_upgrades(board, setup["tile_manifest"])
    return setup, board

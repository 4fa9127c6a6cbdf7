"""The 1833NE values the Dutch seed does not give, read from the title's data file `tables.json`.

The seed governs 1833NE but leaves tables out: the route bonuses beyond Boston-Montreal I-IV, where the
ferries are and what they add, the "New"/"Last" ferry bonus, the Takeover game's five corporations, and how
many 6/9 cards the takeovers leave. Railpost plays with provisional values for them, so they live in data,
each entry marked `seed` or `provisional`, and someone with the published rulebook corrects the file, not the
code (docs/1833NE.md). The file is checked when a game's definition is built: a bad entry is a DataError that
names the file and the entry, never a surprise mid-game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import DataError

if TYPE_CHECKING:
    from ...game import Game
    from ...titledata import TitleData

TABLES_FILE = "tables.json"
SOURCES = ("seed", "provisional")
PHASES = ("I", "II", "III", "IV", "V")
FORMAT = 1


@dataclass(frozen=True)
class Entry:
    """One value of the file as `provisional_values` reports it."""

    key: str
    description: str
    source: str
    takeover_only: bool = False


@dataclass(frozen=True)
class Bonus:
    """A route whose stops include a place of `a` and a place of `b` earns `value[phase]`."""

    key: str
    name: str
    a: frozenset[str]
    b: frozenset[str]
    value: tuple[tuple[str, int], ...]

    def value_in(self, phase: str) -> int:
        return dict(self.value).get(phase, 0)


@dataclass(frozen=True)
class Ferry:
    """A ferry adds `value` to each route of its owner that reaches `hex`."""

    id: str
    name: str
    hex: str
    value: int


@dataclass(frozen=True)
class TakeoverCorporation:
    """A variable-start corporation of the Takeover game. `homes` None: any free city (the seed's rule)."""

    sym: str
    name: str
    color: str
    text_color: str
    tokens: int
    homes: tuple[str, ...] | None


@dataclass(frozen=True)
class Tables:
    bonuses: tuple[Bonus, ...]
    ferry_price: int
    ferry_phases: tuple[str, ...]
    ferries: tuple[Ferry, ...]
    new_bonus: int
    last_bonus: int
    takeover_corporations: tuple[TakeoverCorporation, ...]
    six_nine_cards_kept: int
    bank_set_aside: int
    issue_spaces_below: int
    buy_back_spaces_above: int
    emergency_issue_spaces_below: int
    entries: tuple[Entry, ...]

    def ferry(self, ferry_id: str) -> Ferry:
        return next(f for f in self.ferries if f.id == ferry_id)

    def provisional(self, takeover: bool) -> list[dict[str, str]]:
        return [{"key": e.key, "description": e.description} for e in self.entries
                if e.source == "provisional" and (takeover or not e.takeover_only)]


# -- reading and checking ------------------------------------------------------------------------------------
class _Reader:
    """Reads one file, collecting the entries; every fault names the file and the entry."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: list[Entry] = []

    def fail(self, where: str, fault: str) -> DataError:
        return DataError(f"{self.path}: {where}: {fault}")

    def obj(self, raw: Any, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise self.fail(where, "must be an object")
        missing = [k for k in keys if k not in raw]
        if missing:
            raise self.fail(where, f"lacks {', '.join(missing)}")
        return raw

    def integer(self, raw: Any, where: str, low: int = 0) -> int:
        if not isinstance(raw, int) or isinstance(raw, bool) or raw < low:
            raise self.fail(where, f"must be an integer of at least {low}, not {raw!r}")
        return raw

    def text(self, raw: Any, where: str) -> str:
        if not isinstance(raw, str) or not raw.strip():
            raise self.fail(where, f"must be a non-empty string, not {raw!r}")
        return raw

    def source(self, raw: Any, where: str) -> str:
        if raw not in SOURCES:
            raise self.fail(where, f"source must be one of {', '.join(SOURCES)}, not {raw!r}")
        return str(raw)

    def hexes(self, raw: Any, where: str) -> tuple[str, ...]:
        if not isinstance(raw, list) or not raw:
            raise self.fail(where, "must be a non-empty list of hex ids")
        return tuple(self.text(h, where) for h in raw)

    def value(self, raw: Any, where: str, key: str, description: str, takeover_only: bool = False,
              money: bool = True, low: int = 0) -> int:
        """A `{value, source, description?}` entry holding one integer."""
        entry = self.obj(raw, where, ("value", "source"))
        value = self.integer(entry["value"], f"{where}.value", low)
        text = f"{entry.get('description') or description}: {'$' if money else ''}{value}"
        self.entries.append(Entry(key, text, self.source(entry["source"], where), takeover_only))
        return value

    def bonus(self, raw: Any, where: str) -> Bonus:
        entry = self.obj(raw, where, ("key", "name", "a", "b", "value", "source"))
        key, name = self.text(entry["key"], f"{where}.key"), self.text(entry["name"], f"{where}.name")
        where = f"bonus {key!r}"
        values = entry["value"]
        if not isinstance(values, dict) or set(values) != set(PHASES):
            raise self.fail(where, f"value must give every phase {', '.join(PHASES)} and no other")
        sources = entry["source"]
        if isinstance(sources, str):
            sources = {p: sources for p in PHASES}
        if not isinstance(sources, dict) or set(sources) != set(PHASES):
            raise self.fail(where, "source must be seed, provisional, or an object giving one per phase")
        for phase in PHASES:
            amount = self.integer(values[phase], f"{where}.value.{phase}")
            self.entries.append(Entry(f"bonus.{key}.{phase}", f"{name} bonus in phase {phase}: ${amount}",
                                      self.source(sources[phase], f"{where}.source.{phase}")))
        return Bonus(key, name, frozenset(self.hexes(entry["a"], f"{where}.a")),
                     frozenset(self.hexes(entry["b"], f"{where}.b")), tuple((p, values[p]) for p in PHASES))

    def ferry(self, raw: Any, where: str) -> Ferry:
        entry = self.obj(raw, where, ("id", "name", "hex", "value", "source"))
        fid = self.text(entry["id"], f"{where}.id")
        where = f"ferry {fid!r}"
        ferry = Ferry(fid, self.text(entry["name"], f"{where}.name"), self.text(entry["hex"], f"{where}.hex"),
                      self.integer(entry["value"], f"{where}.value"))
        self.entries.append(Entry(f"ferry.{fid}", f"ferry {fid} ({ferry.name}) at {ferry.hex}: +${ferry.value}",
                                  self.source(entry["source"], f"{where}.source")))
        return ferry

    def corporation(self, raw: Any, where: str) -> TakeoverCorporation:
        entry = self.obj(raw, where, ("sym", "name", "color", "text_color", "tokens", "homes", "source"))
        sym = self.text(entry["sym"], f"{where}.sym")
        where = f"takeover corporation {sym!r}"
        homes = entry["homes"]
        corp = TakeoverCorporation(
            sym, self.text(entry["name"], f"{where}.name"), self.text(entry["color"], f"{where}.color"),
            self.text(entry["text_color"], f"{where}.text_color"), self.integer(entry["tokens"], f"{where}.tokens", 1),
            None if homes is None else self.hexes(homes, f"{where}.homes"))
        self.entries.append(Entry(f"corporation.{sym}", f"Takeover-game corporation {sym} ({corp.name}): colour "
                                  f"{corp.color}, {corp.tokens} stations, home "
                                  f"{'any free city' if homes is None else ' or '.join(homes)}",
                                  self.source(entry["source"], f"{where}.source"), takeover_only=True))
        return corp


def _unique(reader: _Reader, ids: list[str], what: str) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise reader.fail(what, f"{i!r} appears twice")
        seen.add(i)


def parse(raw: Any, path: Path) -> Tables:
    """Check the file's shape and build the tables (references to the map are checked in `validate`)."""
    r = _Reader(path)
    top = r.obj(raw, "file", ("format", "bank", "finance", "bonuses", "ferries", "takeover"))
    if top["format"] != FORMAT:
        raise r.fail("format", f"this engine reads format {FORMAT}, not {top['format']!r}")
    bank = r.obj(top["bank"], "bank", ("set_aside",))
    set_aside = r.value(bank["set_aside"], "bank.set_aside", "bank.set_aside",
                        "the $1,000 bills set aside: the bank counts as empty when only they are left")
    if set_aside % 1000:
        raise r.fail("bank.set_aside", f"must be a number of $1,000 bills, not {set_aside}")
    finance = r.obj(top["finance"], "finance",
                    ("issue_spaces_below", "buy_back_spaces_above", "emergency_issue_spaces_below"))
    spaces = [r.value(finance[k], f"finance.{k}", f"finance.{k}", text, money=False, low=1) for k, text in (
        ("issue_spaces_below", "an issued share fetches the price this many market spaces below the price"),
        ("buy_back_spaces_above", "a share bought back costs the price this many market spaces above the price"),
        ("emergency_issue_spaces_below", "a forced issue fetches the price this many spaces below the lowered price"),
    )]
    if not isinstance(top["bonuses"], list):
        raise r.fail("bonuses", "must be a list")
    bonuses = tuple(r.bonus(b, f"bonuses[{i}]") for i, b in enumerate(top["bonuses"]))
    _unique(r, [b.key for b in bonuses], "bonuses")
    ferries_raw = r.obj(top["ferries"], "ferries", ("price", "phases", "new_bonus", "last_bonus", "list"))
    price = r.value(ferries_raw["price"], "ferries.price", "ferry.price", "price of a ferry")
    phases_entry = r.obj(ferries_raw["phases"], "ferries.phases", ("value", "source"))
    phases = phases_entry["value"]
    if not isinstance(phases, list) or not phases or any(p not in PHASES for p in phases):
        raise r.fail("ferries.phases", f"value must be a non-empty list of phases from {', '.join(PHASES)}")
    r.entries.append(Entry("ferry.phases", f"ferries are sold in phases {', '.join(phases)}",
                           r.source(phases_entry["source"], "ferries.phases")))
    new_bonus = r.value(ferries_raw["new_bonus"], "ferries.new_bonus", "ferry.new_bonus",
                        "the 'New' bonus on the most recently bought ferry")
    last_bonus = r.value(ferries_raw["last_bonus"], "ferries.last_bonus", "ferry.last_bonus",
                         "the 'Last' bonus on the last ferry bought once every ferry is sold")
    if not isinstance(ferries_raw["list"], list) or not ferries_raw["list"]:
        raise r.fail("ferries.list", "must be a non-empty list")
    ferries = tuple(r.ferry(f, f"ferries.list[{i}]") for i, f in enumerate(ferries_raw["list"]))
    _unique(r, [f.id for f in ferries], "ferries.list")
    takeover = r.obj(top["takeover"], "takeover", ("corporations", "six_nine_cards_kept"))
    if not isinstance(takeover["corporations"], list) or not takeover["corporations"]:
        raise r.fail("takeover.corporations", "must be a non-empty list")
    corps = tuple(r.corporation(c, f"takeover.corporations[{i}]") for i, c in enumerate(takeover["corporations"]))
    _unique(r, [c.sym for c in corps], "takeover.corporations")
    kept = r.value(takeover["six_nine_cards_kept"], "takeover.six_nine_cards_kept", "takeover.six_nine_cards_kept",
                   "takeovers remove a 6/9 card while more than this many remain", takeover_only=True,
                   money=False)
    readings = top.get("readings", [])  # optional: readings the engine applies in code, listed to be shown
    if not isinstance(readings, list):
        raise r.fail("readings", "must be a list")
    keys = []
    for i, raw_reading in enumerate(readings):
        where = f"readings[{i}]"
        reading = r.obj(raw_reading, where, ("key", "description", "source"))
        keys.append(r.text(reading["key"], where))
        r.entries.append(Entry(f"reading.{keys[-1]}", r.text(reading["description"], where),
                               r.source(reading["source"], where)))
    _unique(r, keys, "readings")
    return Tables(bonuses, price, tuple(phases), ferries, new_bonus, last_bonus, corps, kept, set_aside, *spaces,
                  tuple(r.entries))


def validate(tables: Tables, data: TitleData, path: Path) -> None:
    """Every hex named must be on the map (a ferry's a town or city), and no corporation may clash."""
    hexes = {h["id"]: h for h in data.map.get("hexes") or []}
    bank = (data.setup.get("bank") or {}).get("cash")
    if isinstance(bank, int) and tables.bank_set_aside >= bank:
        raise DataError(f"{path}: bank.set_aside: {tables.bank_set_aside} is not less than the bank's {bank}")

    def on_map(place: str, where: str) -> None:
        if place not in hexes:
            raise DataError(f"{path}: {where}: hex {place} is not on the map")

    for bonus in tables.bonuses:
        for place in sorted(bonus.a | bonus.b):
            on_map(place, f"bonus {bonus.key!r}")
    for ferry in tables.ferries:
        on_map(ferry.hex, f"ferry {ferry.id!r}")
        tile = hexes[ferry.hex].get("tile") or {}
        if not (tile.get("cities") or tile.get("towns")):
            raise DataError(f"{path}: ferry {ferry.id!r}: hex {ferry.hex} has no town or city")
    standard = {c["sym"] for c in data.setup.get("corporations") or []}
    for corp in tables.takeover_corporations:
        if corp.sym in standard:
            raise DataError(f"{path}: takeover corporation {corp.sym!r}: the symbol of a standard corporation")
        for home in corp.homes or ():
            on_map(home, f"takeover corporation {corp.sym!r}")
            if not (hexes[home].get("tile") or {}).get("cities"):
                raise DataError(f"{path}: takeover corporation {corp.sym!r}: home {home} has no city")


@lru_cache(maxsize=16)
def load(directory: Path) -> Tables:
    path = directory / TABLES_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise DataError(f"missing data file {path}") from err
    except json.JSONDecodeError as err:
        raise DataError(f"{path}: not valid JSON ({err})") from err
    return parse(raw, path)


def load_checked(data: TitleData) -> Tables:
    tables = load(data.directory)
    validate(tables, data, data.directory / TABLES_FILE)
    return tables


def of(game: Game) -> Tables:
    """The tables of a game's definition (its data directory)."""
    return load(game.defn.data.directory)


__all__ = ["Bonus", "Entry", "Ferry", "TABLES_FILE", "Tables", "TakeoverCorporation", "load", "load_checked", "of",
           "parse", "validate"]

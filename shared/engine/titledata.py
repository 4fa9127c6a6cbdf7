"""Loading a title's board data (copied from the published games) and checking it before play starts.

Bad data fails here, at load time, with a DataError naming the file and the fault, never mid-game.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import DataError, MalformedAction

DATA_DIR = Path(__file__).parent / "data" / "games"


def _title_dirs() -> dict[str, str]:
    """Every name a title's board data answers to -> its directory under `data/games`: the directory's own
    name and the `title` its `meta.json` gives (1828's data calls itself "1828.Games"). Read from the data, so
    that no title is named in shared code and a new title needs only its directory."""
    out: dict[str, str] = {}
    for meta in sorted(DATA_DIR.glob("*/meta.json")):
        name = meta.parent.name
        out[name] = name
        title = json.loads(meta.read_text(encoding="utf-8")).get("title")
        if isinstance(title, str) and title:
            out.setdefault(title, name)
    return out


TITLE_DIRS: dict[str, str] = _title_dirs()


@dataclass(frozen=True)
class TitleData:
    """Everything the data files say about one configuration (player count + options) of a title."""

    title: str
    directory: Path
    meta: dict[str, Any]
    rules: dict[str, Any]
    setup: dict[str, Any]
    map: dict[str, Any]
    tiles: dict[str, Any]
    extras: dict[str, Any]
    configuration: str

    def rule(self, name: str, default: Any = None) -> Any:
        entry = self.rules.get(name)
        return default if entry is None else entry["value"]


@lru_cache(maxsize=64)
def _read(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError as err:
        raise DataError(f"missing data file {path}") from err
    except json.JSONDecodeError as err:
        raise DataError(f"{path}: not valid JSON ({err})") from err


def title_directory(title: str) -> Path:
    try:
        return DATA_DIR / TITLE_DIRS[title]
    except KeyError:
        known = sorted(set(TITLE_DIRS))
        raise MalformedAction(f"unknown title {title!r}; known: {known}", "title", valid=known,
                              reason=f"unknown title {title!r}") from None


def meta_of(title: str) -> dict[str, Any]:
    """A title's catalogue entry as its board data states it (`meta.json`: options, player range,
    configurations); callers outside the engine ask here rather than read the data files themselves."""
    return _read(title_directory(title) / "meta.json")  # type: ignore[no-any-return]


def options_for_players(title: str, options: list[str], players: int) -> list[str]:
    """An option that declares the player counts it allows is dropped, silently, from a game of another
    player count (the reference's rule for every title; conformance README: "e.g. the 1825 map units")."""
    meta = meta_of(title)
    allowed = {o["sym"]: o.get("players") for o in meta.get("optional_rules") or []}
    return [o for o in options if not allowed.get(o) or players in allowed[o]]


def find_configuration(meta: dict[str, Any], options: list[str], players: int) -> dict[str, Any]:
    """The configuration whose option set equals the (normalised) options of the game."""
    wanted = sorted(set(options))
    candidates = [c for c in meta["configurations"] if sorted(c["optional_rules"]) == wanted]
    if not candidates:
        known = ["+".join(c["optional_rules"]) or "(none)" for c in meta["configurations"]]
        raise MalformedAction(f"{meta['title']}: no board data for options {wanted or '(none)'}", "options",
                              valid=known)
    exact = [c for c in candidates if c.get("players_used_for_dump") == players]
    return (exact or candidates)[0]


# gives (setup, map) of any option set of a title built from blocks (1825's Units and kits): it checks the
# options and the set-up for every set, and composes the sets no dumped configuration equals
Composer = Callable[[Path, list[str], int], tuple[dict[str, Any], dict[str, Any]]]


def load(title: str, options: list[str], players: int, compose: Composer | None = None) -> TitleData:
    directory = title_directory(title)
    meta = _read(directory / "meta.json")
    config = None if compose is not None else find_configuration(meta, options, players)
    low, high = meta["player_range"]
    if not low <= players <= high:
        raise MalformedAction(f"{meta['title']} needs {low}-{high} players, not {players}", "player_count")
    if config is None:
        assert compose is not None
        setup, board = compose(directory, options, players)
        name = setup["configuration"]
    else:
        setup, board = _read(directory / config["setup_file"]), _read(directory / config["map_file"])
        name = config["name"]
    data = TitleData(
        title=meta["title"],
        directory=directory,
        meta=meta,
        rules=_read(directory / "rules.json")["rules"],
        setup=setup,
        map=board,
        tiles=_read(directory / "tiles.json"),
        extras=_read(directory / "extras.json"),
        configuration=name,
    )
    validate(data)
    return data


def validate(data: TitleData) -> None:
    """Cross-check the files of one configuration: every reference must resolve."""
    where = f"{data.title}/{data.configuration}"
    setup = data.setup
    for key in ("market", "phases", "trains", "corporations", "companies", "starting_cash"):
        if key not in setup:
            raise DataError(f"{where}: setup lacks {key!r}")
    hexes = {h["id"] for h in data.map["hexes"]}
    tile_names = {t["name"] for t in data.tiles["tiles"]}
    for corp in setup["corporations"]:
        if corp.get("in_game") is False:
            continue  # left out of this configuration (1840 small maps): its home may be off the map
        homes = corp["home"] if isinstance(corp["home"], list) else [corp["home"]]
        for home in homes:
            if home is not None and home not in hexes:
                raise DataError(f"{where}: {corp['sym']} home {home} is not on the map")
        if sum(corp["shares"]) != 100:
            raise DataError(f"{where}: {corp['sym']} certificates add up to {sum(corp['shares'])}%, not 100%")
    # a card's other faces (variants) are train names too: 1833NE's rusts_on / obsolete_on name them
    train_names = {t["name"] for t in setup["trains"]} | {
        v["name"] for t in setup["trains"] for v in t.get("variants") or [] if v.get("name")}
    phase_names = {p["name"] for p in setup["phases"]}
    assert train_names
    # a phase may name a train this configuration lacks (1825 Units 2+3: phase 3a on a 6-train): it is
    # simply never reached, as in the published game
    for train in setup["trains"]:
        for key in ("rusts_on", "obsolete_on"):
            if train.get(key) and train[key] not in train_names:
                raise DataError(f"{where}: train {train['name']} {key} unknown train {train[key]}")
        if train.get("available_on") and train["available_on"] not in phase_names:
            raise DataError(f"{where}: train {train['name']} available_on unknown phase {train['available_on']}")
    for name in setup.get("tile_manifest", {}):
        if name not in tile_names:
            raise DataError(f"{where}: tile manifest names unknown tile {name}")
    for row in setup["market"]["rows"]:
        for cell in row:
            if cell is not None and not isinstance(cell.get("price"), int):
                raise DataError(f"{where}: market cell without an integer price: {cell}")

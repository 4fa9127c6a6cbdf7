"""Tile model: nodes (cities, towns, off-boards, junctions), paths, and per-rotation path tables.

A path end is encoded as a small int: 0-5 is an edge, `NODE_BASE + i` is node i of the tile (cities first,
then towns, off-boards and the junction). Rotated tables are computed once per tile so laying, graph walks
and route checks never rotate anything at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import DataError

NODE_BASE = 10
NODE_KINDS = ("city", "town", "offboard", "junction")
COLORS = frozenset(
    "white yellow green brown gray red blue sepia purple orange greenbrown browngray brownsepia none "
    "pink gray60 gray50 gray40 salmon navy".split()
)


@dataclass(frozen=True)
class Node:
    """A stop (or junction) on a tile. `index` counts within its kind (our city number); `part` is the
    node's position among all the parts of the tile's code (stripes, borders, cities, towns, paths, ...),
    which is the number record city ids ("119-0-1") and route node names ("G5-4") use."""

    kind: str
    index: int
    revenue: int | dict[str, int] = 0
    slots: int = 0
    visit_cost: int = 1
    groups: tuple[str, ...] = ()
    part: int = -1

    @property
    def is_city(self) -> bool:
        return self.kind == "city"

    @property
    def is_town(self) -> bool:
        return self.kind == "town"

    @property
    def is_stop(self) -> bool:
        return self.kind != "junction"

    def revenue_for(self, phase_colors: tuple[str, ...], phase_name: str = "") -> int:
        """Revenue in the current phase: a flat value, the value keyed by the phase name (1833NE keys
        such as "I/II"), or the value of the latest phase colour the revenue lists."""
        rev = self.revenue
        if isinstance(rev, int):
            return rev
        if phase_name:
            for key, value in rev.items():
                if phase_name in key.split("/"):
                    return value
        best = 0
        for color in phase_colors:
            if color in rev:
                best = rev[color]
        return best


@dataclass(frozen=True)
class Path:
    """Track between two ends (edge or node code). `lanes` tells parallel lanes apart at an edge."""

    a: int
    b: int
    terminal: bool = False
    lane_a: int = 0
    lane_b: int = 0
    track: str = "broad"

    def ends(self) -> tuple[int, int]:
        return (self.a, self.b)

    def other(self, end: int) -> int:
        return self.b if end == self.a else self.a


@dataclass
class TileDef:
    """A tile as printed, plus its path tables for the six rotations."""

    name: str
    color: str
    nodes: list[Node]
    paths: list[Path]
    labels: tuple[str, ...] = ()
    terrain_cost: int = 0
    borders: tuple[dict[str, Any], ...] = ()
    stripes: str | None = None
    preprinted: bool = False
    upgrades_to: tuple[str, ...] = ()
    # filled by _build_rotations
    rpaths: list[tuple[Path, ...]] = field(default_factory=list, repr=False)
    rexits: list[frozenset[int]] = field(default_factory=list, repr=False)
    rctedges: list[tuple[frozenset[int], ...]] = field(default_factory=list, repr=False)
    by_end: list[dict[int, tuple[int, ...]]] = field(default_factory=list, repr=False)

    @property
    def cities(self) -> list[Node]:
        """The tile's cities (listed once: a tile's nodes never change once it is built, and every tile lay
        and token placement asks; the list is shared, not to be changed)."""
        known = self.__dict__.get("_cities")
        if known is None:
            known = self.__dict__["_cities"] = [n for n in self.nodes if n.is_city]
        return known

    @property
    def towns(self) -> list[Node]:
        """The tile's towns (listed once, as `cities`)."""
        known = self.__dict__.get("_towns")
        if known is None:
            known = self.__dict__["_towns"] = [n for n in self.nodes if n.is_town]
        return known

    def city_code(self, city_index: int) -> int:
        """Node code of the tile's city number `city_index`."""
        for i, n in enumerate(self.nodes):
            if n.is_city and n.index == city_index:
                return NODE_BASE + i
        raise KeyError(city_index)

    def city_part(self, city_index: int) -> int:
        """The record number of city `city_index` (its part position in the tile's code)."""
        return self.cities[city_index].part

    def part_city(self, part: int) -> int | None:
        """Our city number of the city whose record number is `part` (None: no city has it)."""
        return next((n.index for n in self.nodes if n.is_city and n.part == part), None)

    def part_node_code(self, part: int) -> int | None:
        """The node code of the stop whose record number is `part` (None: no stop has it)."""
        return next((NODE_BASE + i for i, n in enumerate(self.nodes) if n.is_stop and n.part == part), None)

    def node_code(self, kind_index: int, prefer: str | None = None) -> int | None:
        """Resolve a node name's index ("W11-1"): cities if the tile has any, else towns, else off-boards."""
        for kind in ((prefer,) if prefer else ()) + NODE_KINDS:
            for i, n in enumerate(self.nodes):
                if n.kind == kind and n.index == kind_index:
                    return NODE_BASE + i
        return None

    def build_rotations(self) -> None:
        self.rpaths, self.rexits, self.rctedges, self.by_end = [], [], [], []
        for rot in range(6):
            paths = tuple(
                Path(_rot(p.a, rot), _rot(p.b, rot), p.terminal, p.lane_a, p.lane_b, p.track) for p in self.paths
            )
            self.rpaths.append(paths)
            self.rexits.append(frozenset(e for p in paths for e in p.ends() if e < NODE_BASE))
            ct = []
            for i, node in enumerate(self.nodes):
                if node.kind in ("city", "town"):
                    code = NODE_BASE + i
                    ct.append(frozenset(p.other(code) for p in paths if code in p.ends() and p.other(code) < NODE_BASE))
            self.rctedges.append(tuple(ct))
            index: dict[int, list[int]] = {}
            for pi, p in enumerate(paths):
                index.setdefault(p.a, []).append(pi)
                if p.b != p.a:
                    index.setdefault(p.b, []).append(pi)
            self.by_end.append({k: tuple(v) for k, v in index.items()})


def _rot(end: int, rot: int) -> int:
    return end if end >= NODE_BASE else (end + rot) % 6


def code_parts(code: str | None) -> dict[str, list[int]]:
    """Where each city, town and off-board stands among the parts of a tile's code: every `;` segment is
    one part, a path with `lanes:N` is N. Record ids number a tile's stops by this position (tile 119,
    "stripes=...;city=...", has its city at 1; a map hex "city;path;city;path;city" at 0, 2 and 4)."""
    out: dict[str, list[int]] = {"city": [], "town": [], "offboard": []}
    position = 0
    for segment in (code or "").split(";"):
        if not segment:
            continue
        kind, _, params = segment.partition("=")
        if kind in out:
            out[kind].append(position)
        lanes = next((p.split(":", 1)[1] for p in params.split(",") if p.startswith("lanes:")), None)
        position += int(lanes) if kind == "path" and lanes and lanes.isdigit() else 1
    return out


def parse_tile(name: str, color: str, parse: dict[str, Any], *, preprinted: bool = False,
               upgrades_to: tuple[str, ...] = (), code: str | None = None) -> TileDef:
    """Build a TileDef from the structured parse in the map/tile files; raise DataError on bad data.
    `code` (the tile's code string) gives the stops' record numbers; without it they are counted per kind."""
    if color not in COLORS:
        raise DataError(f"tile {name}: unknown colour {color!r}")
    positions = code_parts(code)
    try:
        nodes: list[Node] = []
        first: dict[str, int] = {}
        for kind, key in (("city", "cities"), ("town", "towns"), ("offboard", "offboards")):
            first[kind] = len(nodes)
            raws = parse.get(key) or []
            parts = positions[kind] if len(positions[kind]) == len(raws) else list(range(len(raws)))
            for i, raw in enumerate(raws):
                if raw.get("index", i) != i:
                    raise DataError(f"tile {name}: {kind} {i} has index {raw.get('index')}")
                rev = raw.get("revenue", 0)
                if not isinstance(rev, (int, dict)):
                    raise DataError(f"tile {name}: bad revenue {rev!r}")
                nodes.append(Node(kind, i, rev, int(raw.get("slots", 1 if kind == "city" else 0)),
                                  int(raw.get("visit_cost", 1)), tuple(raw.get("groups") or ()), parts[i]))
        first["junction"] = len(nodes)
        if parse.get("junction"):
            nodes.append(Node("junction", 0, 0, 0, 0))
        counts = {k: sum(1 for n in nodes if n.kind == k) for k in NODE_KINDS}

        def end(raw: dict[str, Any]) -> int:
            if "edge" in raw:
                edge = raw["edge"]
                if not isinstance(edge, int) or not 0 <= edge <= 5:
                    raise DataError(f"tile {name}: bad edge {edge!r}")
                return edge
            for kind in NODE_KINDS:
                if kind in raw:
                    idx = raw[kind]
                    if not isinstance(idx, int) or not 0 <= idx < counts[kind]:
                        raise DataError(f"tile {name}: path to missing {kind} {idx!r}")
                    return NODE_BASE + first[kind] + idx
            raise DataError(f"tile {name}: path end {raw!r} names no edge or node")

        paths = []
        for raw in parse.get("paths") or []:
            lanes = raw.get("lanes") or [[1, 0], [1, 0]]
            paths.append(Path(end(raw["a"]), end(raw["b"]), bool(raw.get("terminal")), int(lanes[0][1]),
                              int(lanes[1][1]), raw.get("track") or "broad"))
        terrain = sum(int(t.get("cost", 0)) for t in parse.get("terrain_upgrades") or [])
        tile = TileDef(name, color, nodes, paths, tuple(parse.get("labels") or ()), terrain,
                       tuple(parse.get("borders") or ()), parse.get("stripes"), preprinted, tuple(upgrades_to))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise DataError(f"tile {name}: malformed parse ({err})") from err
    tile.build_rotations()
    return tile


def load_catalogue(raw: dict[str, Any]) -> dict[str, TileDef]:
    """tiles.json -> name -> TileDef."""
    out: dict[str, TileDef] = {}
    for entry in raw.get("tiles") or []:
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise DataError(f"tile entry without a name: {str(entry)[:80]}")
        if name in out:
            raise DataError(f"tile {name} defined twice")
        upg = entry.get("upgrades_to") or []
        if isinstance(upg, str):
            upg = [upg]
        out[name] = parse_tile(name, entry.get("color", ""), entry.get("tile") or {}, upgrades_to=tuple(upg),
                               code=entry.get("code"))
    return out


@dataclass
class Supply:
    """Tiles not on the map. Copies are numbered 0..count-1 as in tile ids ("8-3"); `None` count = unlimited."""

    counts: dict[str, int | None]
    on_map: dict[str, set[int]] = field(default_factory=dict)

    def available(self, name: str) -> int:
        if name not in self.counts:
            return 0
        total = self.counts[name]
        if total is None:
            return 1 << 30
        return total - len(self.on_map.get(name, ()))

    def free_copy(self, name: str) -> int | None:
        total = self.counts.get(name, 0)
        used = self.on_map.get(name, set())
        limit = total if total is not None else len(used) + 1
        for i in range(limit):
            if i not in used:
                return i
        return None

    def check_copy(self, name: str, copy: int) -> str | None:
        """Why this copy cannot be laid, or None."""
        if name not in self.counts:
            return f"tile {name} is not in this game's supply"
        total = self.counts[name]
        if total is not None and not 0 <= copy < total:
            return f"there is no copy {copy} of tile {name} (the game has {total})"
        if copy in self.on_map.get(name, ()):
            return f"tile {name}-{copy} is already on the map"
        return None

    def take(self, name: str, copy: int) -> None:
        self.on_map.setdefault(name, set()).add(copy)

    def give_back(self, name: str, copy: int) -> None:
        self.on_map.get(name, set()).discard(copy)


def parse_tile_id(tile_id: str) -> tuple[str, int]:
    """"14-3" -> ("14", 3)."""
    name, sep, copy = tile_id.rpartition("-")
    if not sep or not copy.isdigit() or not name:
        from ..errors import MalformedAction

        raise MalformedAction(f"tile id {tile_id!r} is not '<tile name>-<copy>'", "tile_id")
    return name, int(copy)

"""The map as server-rendered SVG, drawn from `shared.engine.view.map_view` (so it shows with JavaScript off).

Every hex is a `<g class="hex" data-hex=...>` carrying a `<title>` that says in words what is on it (the text
alternative of the drawing); laid tiles carry `data-tile`, station tokens are `.token` circles with
`data-entity`. The page's script finds hexes by these attributes to make them clickable.
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from collections.abc import Callable
from html import escape
from threading import Lock
from typing import Any, NamedTuple

SCALE = 50.0  # pixels per unit (a hex's corner radius)

# fills of preprinted and tile colours, with the text colour that keeps a 4.5:1 contrast on them
FILLS: dict[str, tuple[str, str]] = {
    "white": ("#efe8d6", "#111"), "yellow": ("#f6e04b", "#111"), "green": ("#5fb04a", "#111"),
    "brown": ("#b5733f", "#111"), "gray": ("#b4b4b4", "#111"), "red": ("#c8282d", "#fff"),
    "blue": ("#2f78c4", "#fff"), "sepia": ("#b59a73", "#111"), "purple": ("#7a3a93", "#fff"),
    "orange": ("#f08a24", "#111"), "greenbrown": ("#5fb04a", "#111"), "browngray": ("#b5733f", "#111"),
    "brownsepia": ("#b5733f", "#111"), "none": ("#efe8d6", "#111"), "pink": ("#f4b6c8", "#111"),
    "salmon": ("#f4a582", "#111"), "navy": ("#1f2d5a", "#fff"),
}
ENOUGH_ROOM = 0.06  # clearance (hex radii) beyond which a text spot is as good as any other
BORDER_COLORS = {"impassable": "#c8282d", "water": "#2f78c4", "mountain": "#6b4a2b"}


def _f(v: float) -> str:
    return f"{v * SCALE:.1f}"


def _pt(p: tuple[float, float] | list[float]) -> str:
    return f"{_f(p[0])},{_f(p[1])}"


def _end_point(end: dict[str, int], hex_: dict[str, Any], edges: dict[str, list[float]]) -> tuple[float, float]:
    if "edge" in end:
        e = edges[str(end["edge"])]
        return e[0], e[1]
    node = hex_["nodes"][end["node"]]
    return node["x"], node["y"]


def _track(hex_: dict[str, Any], edges: dict[str, list[float]]) -> list[str]:
    out = []
    for path in hex_["paths"]:
        a, b = _end_point(path["a"], hex_, edges), _end_point(path["b"], hex_, edges)
        dash = ' stroke-dasharray="6 4"' if path.get("track") in ("narrow", "future") else ""
        if "edge" in path["a"] and "edge" in path["b"]:
            d = f"M{_pt(a)} Q0,0 {_pt(b)}"
        else:
            d = f"M{_pt(a)} L{_pt(b)}"
        out.append(f'<path class="track" d="{d}" fill="none" stroke="#fff" stroke-width="11"/>'
                   f'<path class="track" d="{d}" fill="none" stroke="#111" stroke-width="7"{dash}/>')
    return out


def _stops(hex_: dict[str, Any], colors: dict[str, dict[str, Any]]) -> list[str]:
    out = []
    for node in hex_["nodes"]:
        x, y = node["x"], node["y"]
        if node["kind"] == "town":
            out.append(f'<circle class="town" cx="{_f(x)}" cy="{_f(y)}" r="{_f(0.11)}" fill="#111"/>')
        elif node["kind"] == "city":
            slots = node.get("slots") or 1
            r = 0.2
            start = x - r * (slots - 1)
            if slots > 1:
                out.append(f'<rect x="{_f(start - r)}" y="{_f(y - r)}" width="{_f(2 * r * slots)}" height="{_f(2 * r)}" '
                           f'rx="{_f(r)}" fill="#fff" stroke="#111" stroke-width="2"/>')
            for s in range(slots):
                sx = start + 2 * r * s
                token = node["tokens"][s] if s < len(node["tokens"]) else None
                reserved = node["reserved"][s] if s < len(node.get("reserved") or []) else None
                out.append(f'<circle class="slot" data-city="{escape(node.get("city_id", ""))}" data-slot="{s}" '
                           f'cx="{_f(sx)}" cy="{_f(y)}" r="{_f(r)}" fill="#fff" stroke="#111" stroke-width="2"/>')
                if token is not None:
                    c = colors.get(str(token)) or {}
                    fill = c.get("color") or "#555"
                    text = c.get("text_color") or _contrast_text(fill)
                    out.append(f'<g class="token" data-entity="{escape(str(token))}">'
                               f'<circle cx="{_f(sx)}" cy="{_f(y)}" r="{_f(r * 0.92)}" fill="{escape(fill)}" '
                               f'stroke="#111" stroke-width="1.5"/>'
                               f'<text x="{_f(sx)}" y="{_f(y + 0.06)}" font-size="{_f(0.17)}" text-anchor="middle" '
                               f'{_fit(str(token)[:5])}fill="{escape(text)}">{escape(str(token)[:5])}</text></g>')
                elif reserved is not None:
                    out.append(f'<text class="reserved" x="{_f(sx)}" y="{_f(y + 0.05)}" font-size="{_f(0.13)}" '
                               f'text-anchor="middle" fill="#333">{escape(str(reserved)[:4])}</text>')
    return out


def _bubble(x: float, y: float, value: Any) -> str:
    return (f'<g class="revenue"><circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(0.15)}" fill="#fff" stroke="#111" '
            f'stroke-width="1"/><text x="{_f(x)}" y="{_f(y + 0.05)}" font-size="{_f(0.15)}" text-anchor="middle" '
            f'fill="#111">{value}</text></g>')


class Drawings:
    """A bounded cache of drawings, least recently used first out, keyed by the `repr` of all a drawing is
    made from. The views are plain JSON data (`/games/{id}/map` serves the same), whose `repr` is their
    content, down to what Python deems equal but prints differently (0.0 and -0.0, 1 and 1.0)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, str] = OrderedDict()
        self._lock = Lock()  # the gateway's threads share it

    def get(self, key: str, draw: Callable[[], str]) -> str:
        with self._lock:
            drawn = self._items.get(key)
            if drawn is not None:
                self._items.move_to_end(key)
                return drawn
        drawn = draw()
        with self._lock:
            self._items[key] = drawn
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return drawn

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


# Placing the texts is most of a hex's drawing; it depends on the tile at its rotation, not the hex, so
# one title's few hundred tiles-at-rotations and preprinted hexes fill a fraction of this.
PLACED = Drawings(4096)
# A map is 100-150 hexes and a tray 30-60 tiles; a hex's key and drawing are 1-3 KB together, so this
# holds the maps of the games being opened (~25) in about 10 MB.
HEXES = Drawings(4096)


Point = tuple[float, float]


class Placing(NamedTuple):
    """All that a hex's revenue bubbles and printed texts are placed by, and nothing more: the tile's stops
    and track at its rotation (a tile looks the same on every hex, in every game), whether a location
    name, a build cost or labels are printed, the text colour and the hex's shape."""

    stops: tuple[tuple[str, float, float, int], ...]  # kind, x, y, slots of each node but junctions
    track: tuple[tuple[Point, Point], ...]  # each path's two ends
    located: bool
    paying: tuple[tuple[float, float, Any], ...]  # x, y, revenue of each city and town that pays
    cost: str | None
    label: str | None
    text: str
    corners: tuple[Point, ...]
    edges: tuple[Point, ...]  # edge midpoints, in the view's edge order


def _placing(hex_: dict[str, Any], view: dict[str, Any], text: str) -> Placing:
    edges = view["edges"]
    cost = None
    if hex_.get("upgrade_cost"):
        kinds = {k for t in hex_.get("terrain") or [] for k in t["terrains"]}
        cost = f'{"≈" if kinds == {"water"} else "▲"}{hex_["upgrade_cost"]}'
    return Placing(
        stops=tuple((n["kind"], n["x"], n["y"], n.get("slots") or 1) for n in hex_["nodes"] if n["kind"] != "junction"),
        track=tuple((_end_point(p["a"], hex_, edges), _end_point(p["b"], hex_, edges)) for p in hex_["paths"]),
        located=bool(hex_.get("location")),
        paying=tuple((n["x"], n["y"], n["revenue"]) for n in hex_["nodes"]
                     if n["kind"] in ("city", "town") and n.get("revenue")),
        cost=cost, label=" ".join(hex_["labels"]) if hex_.get("labels") else None, text=text,
        corners=tuple((c[0], c[1]) for c in view["corners"]), edges=tuple((e[0], e[1]) for e in edges.values()))


def _obstacles(p: Placing) -> list[tuple[float, float, float]]:
    """(x, y, radius) of what printed text must not cover: stops (a city as wide as its slots) and track."""
    out: list[tuple[float, float, float]] = []
    for kind, x, y, slots in p.stops:
        for s in range(slots):
            out.append((x - 0.2 * (slots - 1) + 0.4 * s, y, 0.22 if kind == "city" else 0.12))
    for a, b in p.track:
        for t in (0.25, 0.5, 0.75):
            out.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, 0.1))
        for end in (a, b):
            out.append((end[0], end[1], 0.1))
    return out


def _room(px: float, py: float, half_width: float, obstacles: list[tuple[float, float, float]], beat: float) -> float:
    """The clearance of a text spot (`half_width` each side, measured at both ends too) from every obstacle,
    enough room counting as much as any more (so the earliest roomy candidate wins); once it is no more
    than `beat`, the spot has lost and the rest is not measured."""
    room = ENOUGH_ROOM
    for qx in (px - half_width, px, px + half_width):
        for x, y, r in obstacles:
            d = ((qx - x) ** 2 + (py - y) ** 2) ** 0.5 - r
            if d < room:
                room = d
                if room <= beat:
                    return room
    return room


def _free_spot(candidates: list[Point], obstacles: list[tuple[float, float, float]], half_width: float = 0.0) -> Point:
    """The first candidate whose clearance from every obstacle is largest. Clearance stops counting at
    ENOUGH_ROOM, so the first candidate with that much wins at once, and a candidate stops being measured
    as soon as it cannot beat the best so far."""
    best, best_room = candidates[0], -math.inf
    for c in candidates:
        room = _room(c[0], c[1], half_width, obstacles, best_room)
        if room > best_room:
            best, best_room = c, room
            if room >= ENOUGH_ROOM:
                break
    return best


def _directions(corners: tuple[Point, ...], edges: tuple[Point, ...]) -> tuple[Point, ...]:
    """Unit directions towards a hex's corners and edges, clockwise from the upper left (where printed maps
    put a revenue)."""
    dirs = list(corners)
    for e in edges:
        n = (e[0] ** 2 + e[1] ** 2) ** 0.5 or 1.0
        dirs.append((e[0] / n, e[1] / n))
    dirs.sort(key=lambda d: (math.degrees(math.atan2(d[1], d[0])) - 200) % 360)
    return tuple(dirs)


def _ring(p: Placing, radius: float, around: Point = (0.0, 0.0)) -> list[Point]:
    """Twelve points at `radius` around a point, towards the hex's corners and edges."""
    return [(around[0] + d[0] * radius, around[1] + d[1] * radius) for d in _directions(p.corners, p.edges)]


def _place(p: Placing) -> str:
    """Revenue bubbles and labels where they cover no stop and no track: one bubble when every stop pays
    the same (as printed tiles do), else one beside each stop."""
    obstacles = _obstacles(p)
    if p.located:
        obstacles.append((0.0, -0.62, 0.15))
    obstacles += [(0.0, 0.8, 0.08), (0.55, 0.47, 0.1)]  # the coordinate and the tile number
    inside = [(0.0, 0.0)] + _ring(p, 0.45) + _ring(p, 0.62)
    out: list[str] = []
    if p.paying and len({revenue for _, _, revenue in p.paying}) == 1:
        spot = _free_spot(inside, obstacles)
        obstacles.append((spot[0], spot[1], 0.16))
        out.append(_bubble(spot[0], spot[1], p.paying[0][2]))
    else:
        for x, y, revenue in p.paying:
            near = [q for q in _ring(p, 0.36, (x, y)) if (q[0] ** 2 + q[1] ** 2) ** 0.5 < 0.72]
            spot = _free_spot(near or inside, obstacles)
            obstacles.append((spot[0], spot[1], 0.16))
            out.append(_bubble(spot[0], spot[1], revenue))
    if p.cost is not None:
        spot = _free_spot([(0.0, 0.55)] + inside, obstacles, half_width=0.05 * len(p.cost))
        obstacles.append((spot[0], spot[1], 0.15))
        out.append(f'<text class="terrain" x="{_f(spot[0])}" y="{_f(spot[1] + 0.06)}" font-size="{_f(0.17)}" '
                   f'text-anchor="middle" fill="{p.text}">{p.cost}</text>')
    if p.label is not None:
        spot = _free_spot(inside, obstacles, half_width=0.08 * len(p.label))
        out.append(f'<text class="label" x="{_f(spot[0])}" y="{_f(spot[1] + 0.08)}" font-size="{_f(0.24)}" '
                   f'font-weight="bold" text-anchor="middle" fill="{p.text}">{escape(p.label)}</text>')
    return "".join(out)


def _revenues_and_labels(hex_: dict[str, Any], view: dict[str, Any], text: str) -> str:
    placing = _placing(hex_, view, text)
    return PLACED.get(repr(placing), lambda: _place(placing))


def _fit(sym: str) -> str:
    """Squeeze a long symbol into its token's circle."""
    return f'textLength="{_f(0.32)}" lengthAdjust="spacingAndGlyphs" ' if len(sym) >= 4 else ""


def _contrast_text(fill: str) -> str:
    """Black or white, whichever reads better on a #rrggbb fill (WCAG relative luminance)."""
    h = fill.lstrip("#")
    if len(h) == 3:
        h = "".join(ch * 2 for ch in h)
    if len(h) != 6:
        return "#fff"
    try:
        rgb = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    except ValueError:
        return "#fff"
    lum = sum(w * (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
              for w, c in zip((0.2126, 0.7152, 0.0722), rgb, strict=True))
    return "#111" if lum > 0.18 else "#fff"


def _offboard_revenues(hex_: dict[str, Any], text: str) -> list[str]:
    node = next((n for n in hex_["nodes"] if n["kind"] == "offboard"), None)
    if node is None:
        return []
    values = node.get("revenues") or {"": node.get("revenue", 0)}
    parts = []
    width = 0.36
    x0 = -width * len(values) / 2
    for i, (phase, value) in enumerate(values.items()):
        fill = FILLS.get(phase, ("#fff", "#111"))[0] if phase else "#fff"
        x = x0 + i * width
        parts.append(f'<rect x="{_f(x)}" y="{_f(-0.2)}" width="{_f(width)}" height="{_f(0.3)}" fill="{fill}" '
                     f'stroke="#111" stroke-width="1"/><text x="{_f(x + width / 2)}" y="{_f(0.0)}" '
                     f'font-size="{_f(0.16)}" text-anchor="middle" fill="{_contrast_text(fill)}">{value}</text>')
    return [f'<g class="offboard-revenue">{"".join(parts)}</g>']


def describe_hex(hex_: dict[str, Any]) -> str:
    """The hex in words: the map's text alternative."""
    bits = [hex_["id"]]
    if hex_.get("location"):
        bits.append(str(hex_["location"]))
    tile = hex_.get("tile")
    bits.append(f"{hex_['color']} tile {tile['name']} rotation {tile['rotation']}" if tile else f"{hex_['color']} hex")
    for node in hex_["nodes"]:
        if node["kind"] == "junction":
            continue
        rev = node.get("revenues") or node.get("revenue")
        desc = f"{node['kind']} revenue {rev}"
        if node["kind"] == "city":
            held = [t for t in node.get("tokens") or [] if t]
            desc += f", {node.get('slots')} slot(s)" + (f", tokens {', '.join(held)}" if held else "")
        bits.append(desc)
    if hex_.get("upgrade_cost"):
        kinds = ", ".join(k for t in hex_.get("terrain") or [] for k in t["terrains"])
        bits.append(f"costs {hex_['upgrade_cost']} to build ({kinds or 'terrain'})")
    if hex_.get("labels"):
        bits.append("label " + " ".join(hex_["labels"]))
    return "; ".join(bits)


def render_hex(hex_: dict[str, Any], view: dict[str, Any]) -> str:
    """The hex as an SVG group, drawn once per distinct hex (a map drawn again after a move draws only the
    hexes the move changed; a tray tile is drawn once per phase's revenues)."""
    colors = view.get("entities") or {}
    tokens = [colors.get(str(t)) for n in hex_["nodes"] for t in n.get("tokens") or [] if t is not None]
    key = repr((hex_, view["corners"], view["edges"], tokens))
    return HEXES.get(key, lambda: _draw_hex(hex_, view))


def _draw_hex(hex_: dict[str, Any], view: dict[str, Any]) -> str:
    fill, text = FILLS.get(hex_["color"], ("#ddd", "#111"))
    corners = " ".join(_pt(c) for c in view["corners"])
    tile = hex_.get("tile")
    attrs = (f'data-hex="{escape(hex_["id"])}" data-tile="{escape(tile["id"]) if tile else ""}"'
             + (f' data-location="{escape(str(hex_["location"]))}"' if hex_.get("location") else ""))
    parts = [f'<g class="hex" {attrs} transform="translate({_f(hex_["cx"])},{_f(hex_["cy"])})" tabindex="-1">',
             f"<title>{escape(describe_hex(hex_))}</title>",
             f'<polygon class="hex-bg" points="{corners}" fill="{fill}" stroke="#555" stroke-width="1.5"/>']
    if hex_.get("stripes"):
        parts.append(f'<polygon points="{corners}" fill="none" stroke="{FILLS.get(hex_["stripes"], ("#999",))[0]}" '
                     f'stroke-width="6" stroke-dasharray="10 10"/>')
    parts += _track(hex_, view["edges"])
    parts += _stops(hex_, view.get("entities") or {})
    parts += _offboard_revenues(hex_, text)
    for border in hex_.get("borders") or []:
        e = int(border["edge"])
        a, b = view["corners"][(e + 1) % 6], view["corners"][(e + 2) % 6]  # the corners either side of edge e
        color = BORDER_COLORS.get(str(border.get("type")), "#111")
        parts.append(f'<line class="border" x1="{_f(a[0])}" y1="{_f(a[1])}" x2="{_f(b[0])}" y2="{_f(b[1])}" '
                     f'stroke="{color}" stroke-width="6"/>')
    if hex_.get("location"):
        parts.append(f'<text class="location" x="0" y="{_f(-0.62)}" font-size="{_f(0.15)}" text-anchor="middle" '
                     f'fill="{text}">{escape(str(hex_["location"])[:22])}</text>')
    parts.append(_revenues_and_labels(hex_, view, text))
    parts.append(f'<text class="coord" x="{_f(0.0)}" y="{_f(0.82)}" font-size="{_f(0.12)}" text-anchor="middle" '
                 f'fill="{text}" opacity="0.8">{escape(hex_["id"])}</text>')
    if tile:
        parts.append(f'<text class="tile-name" x="{_f(0.5)}" y="{_f(0.5)}" font-size="{_f(0.12)}" '
                     f'fill="{text}">#{escape(tile["name"])}</text>')
    parts.append("</g>")
    return "".join(parts)


def render_map(view: dict[str, Any], title: str) -> str:
    b = view["bounds"]
    width, height = (b["max_x"] - b["min_x"]) * SCALE, (b["max_y"] - b["min_y"]) * SCALE
    laid = sum(1 for h in view["hexes"] if h.get("tile"))
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="map" role="group" aria-labelledby="map-title" aria-describedby="map-desc" '
            f'viewBox="{_f(b["min_x"])} {_f(b["min_y"])} {width:.1f} {height:.1f}" '
            f'font-family="sans-serif">'
            f'<title id="map-title">Map of {escape(title)}</title>'
            f'<desc id="map-desc">{len(view["hexes"])} hexes, {laid} tiles laid, {view["layout"]} layout; '
            f'each hex has a title describing it, and the list below the map says the same in text.</desc>')
    return head + "".join(render_hex(h, view) for h in view["hexes"]) + "</svg>"


_TRAY_ATTRS = re.compile(r' data-tile="[^"]*"')  # a tray tile is on no hex: nothing reads it as the map's


def render_tray(tiles: list[dict[str, Any]], view: dict[str, Any]) -> list[dict[str, Any]]:
    """The tiles left (`tile_tray`), each with its `svg`: drawn as the map draws it."""
    out = []
    for tile in tiles:
        svg = (f'<svg class="tray-tile" viewBox="-52 -52 104 104" width="56" height="56" role="img" '
               f'aria-label="tile {tile["name"]}">'
               + _TRAY_ATTRS.sub("", render_hex(tile["hex"], view)).replace('<g class="hex"', '<g class="hex tray-hex"', 1)
               + "</svg>")
        out.append({**tile, "svg": svg})
    return out

"""Tile lay and upgrade legality that depends only on the two tiles and the hex (no entity, no phase).

`upgrade_targets` answers "may tile B replace tile A at all" from the data (the title's own upgrade
relation, precomputed per tile and per preprinted hex) plus the title's extra/forbidden pairs;
`rotation_problem` answers "is B legal in this rotation here": every exit leads to a neighbour, the old
track is kept, old stations keep their exits, and no more stations appear than the new tile adds.
"""

from __future__ import annotations

from .tiles import NODE_BASE, Path, TileDef

COLOR_ORDER = ("white", "yellow", "green", "brown", "gray")


def path_covers(old: Path, new: Path, old_tile: TileDef, new_tile: TileDef, any_stop: bool = False) -> bool:
    """Old path `old` is contained in new path `new`: same edges, stations of the same kind (a town may become
    a city; with `any_stop`, for the title's extra upgrades, a city may also become a town), and the same kind
    of track (an upgrade keeps narrow track narrow; broad track cannot stand in for it, nor the reverse)."""
    if old.track != new.track:
        return False

    def same(o: int, n: int) -> bool:
        if o < NODE_BASE or n < NODE_BASE:
            return o == n
        ok, nk = old_tile.nodes[o - NODE_BASE].kind, new_tile.nodes[n - NODE_BASE].kind
        if any_stop and {ok, nk} <= {"town", "city"}:
            return True
        return ok == nk or (ok == "town" and nk == "city")

    return (same(old.a, new.a) and same(old.b, new.b)) or (same(old.a, new.b) and same(old.b, new.a))


def _through_junction(old: Path, new_tile: TileDef, new_paths: list[Path]) -> bool:
    """Edge-to-edge track is kept by a junction tile that joins both edges (1825 tile 60)."""
    if old.a >= NODE_BASE or old.b >= NODE_BASE:
        return False
    for j, node in enumerate(new_tile.nodes):
        if node.kind != "junction":
            continue
        joined = {p.a for p in new_paths if p.b == NODE_BASE + j} | {p.b for p in new_paths if p.a == NODE_BASE + j}
        if old.a in joined and old.b in joined:
            return True
    return False


def rotation_problem(old: TileDef, old_rot: int, new: TileDef, rot: int, neighbors: dict[int, str],
                     any_stop: bool = False) -> str | None:
    """Why `new` in rotation `rot` cannot replace `old` on a hex with these neighbours, or None."""
    exits = new.rexits[rot]
    missing = sorted(e for e in exits if e not in neighbors)
    if missing:
        return f"exit(s) {missing} lead off the map or into an impassable side"
    new_paths = new.rpaths[rot]
    for op in old.rpaths[old_rot]:
        if not any(path_covers(op, np, old, new, any_stop) for np in new_paths) \
                and not _through_junction(op, new, new_paths):
            return "the new tile does not keep all existing track"
    old_ct = [c for c in old.rctedges[old_rot] if c]  # stations without track yet do not pin any exits
    new_ct = [c for c in new.rctedges[rot] if c]
    for oc in old_ct:
        if oc and not any(oc <= nc for nc in new_ct):
            return "a station's existing exits are not kept by one station of the new tile"
    extra = max(0, len(new_ct) - len(old_ct))
    fresh = sum(1 for nc in new_ct if all(not (nc & oc) for oc in old_ct))
    if fresh > extra:
        return "stations would move to different exits"
    if len(new.cities) > 1 and len(old.cities) > 1:
        for oc in old_ct:
            if oc and sum(1 for nc in new_ct if oc <= nc) != 1:
                return "each old city must map to exactly one new city"
    return None


def color_step_ok(old: TileDef, new: TileDef) -> bool:
    if old.color not in COLOR_ORDER or new.color not in COLOR_ORDER:
        return False
    return COLOR_ORDER.index(new.color) == COLOR_ORDER.index(old.color) + 1


def upgrade_refusal(old: TileDef, new: TileDef) -> tuple[str, str]:
    """Message and rule code explaining why `new` is not an upgrade of `old` (for error messages)."""
    if not color_step_ok(old, new):
        return (f"a {new.color} tile cannot replace a {old.color} tile", "upgrade_color")
    if old.labels != new.labels:
        return (f"labels differ ({'/'.join(old.labels) or 'none'} vs {'/'.join(new.labels) or 'none'})", "upgrade_label")
    if len(old.towns) != len(new.towns) or (not old.labels and len(old.cities) != len(new.cities)):
        return ("the number of towns or cities differs", "upgrade_stations")
    return ("the title's upgrade rules do not allow it", "upgrade")

"""Connectivity from an entity's station tokens: which edges it may build from, which nodes it reaches.

The walk follows track from every city holding one of the entity's tokens; it does not continue through a
city whose slots are all filled by other companies, nor past a terminal path, nor (`BoardRules.
offboards_end_track`) through an off-board area: an off-board is reached but ends the track; the map data
draws its paths as ordinary track into the node, so the node's kind decides, as it does for routes. Nor does
it use track it could get onto only by crossing a hex side twice (`compute_reach`). Results are cached on the
Board and dropped whenever a tile or token changes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .grid import HexState, LayFacts, NodeRef, Reach
from .tiles import NODE_BASE

if TYPE_CHECKING:
    from .routes import Grid

Arrival = tuple[str, int, int]  # (hex, end code, path arrived by; -1 = an edge entered from outside)
Walk = tuple[str, int, int]  # (hex, path index, end it is walked from)


def compute_reach(board: Grid, entity: str,
                  first: tuple[Reach, dict[Walk, Arrival], dict[Arrival, int], dict[str, int]] | None = None) -> Reach:
    """What the entity reaches from its stations, along walks that never cross a hex side twice
    (docs/rules-1825.md, "Track is reached only along a line a train could run").

    The walk over arrivals (`_walk`) reaches a piece of track however it got there; a walk that left a hex
    across one of the piece's own sides and came back into the hex cannot use it (a train would cross that
    side twice). Such pieces are few (a loop back into the same hex): each one whose first walk came back
    into its hex is asked again with the hex sealed at the piece's sides (`_walk` with `sealed`); one not
    reached so is barred from that end and the reach walked again, until nothing changes.

    Whether a first walk came back is read off the sides its walk crossed on the way (`_walk`'s `exits`: one
    bit per hex side crossed, so the question costs one AND instead of a climb up the walk's parents).
    `first`: the first walk (`_walk` with nothing barred), when the caller has walked it already.
    """
    barred: set[Walk] = set()
    while True:
        reach, firsts, exits, shifts = first if first is not None else _walk(board, entity, barred)
        first = None
        # a walk comes back into a hex only through a second way into it (an edge entered from outside or
        # a station there: an arrival by no path), and only into a hex some walk left: others are never asked
        ways_in: dict[str, int] = {}
        for hex_id, _, via in exits:
            if via == -1 and hex_id in shifts:
                ways_in[hex_id] = ways_in.get(hex_id, 0) + 1
        asked = {hex_id for hex_id, n in ways_in.items() if n > 1}
        if not asked:
            return reach
        bad = []
        # (hex, sides) -> what the last walk sealed there took: a piece of the same hex with the same sides
        # is asked the very same walk, which takes it no later than it took the pieces already found
        sealed: dict[tuple[str, int], dict[Walk, Arrival]] = {}
        for w, arrival in firsts.items():
            if w[0] not in asked:
                continue
            shift = shifts[w[0]]
            crossed = (exits[arrival] >> shift) & 0x3F  # the sides of w's hex its first walk had left by
            sides = _side_bits(board, w)
            if not crossed & sides:
                continue
            taken = sealed.get((w[0], sides))
            if taken is None or w not in taken:
                taken = sealed[(w[0], sides)] = _sealed_walk(board, entity, w, barred)
            if w not in taken:
                bad.append(w)
        if not bad:
            return reach
        barred.update(bad)


def reaches_any_path(board: Grid, entity: str, hex_id: str, indices: set[int]) -> bool:
    """Whether `compute_reach(board, entity).paths` holds (hex_id, i) for an i in `indices`, the same answer
    found with less walking when it is no (a trial lay's track restriction asks it of hundreds of lays):
    `compute_reach` only takes away from its first walk (it bars pieces), so a piece that walk does not
    take is never in the reach, and the whole reach goes on from that walk, not from the start.

    Two more answers come before the whole reach. Yes: the clean walk takes one of the pieces (`clean_takes`).
    No: no walk w of the pieces that the first walk takes is taken by the walk sealed at w's hex and sides
    with nothing barred (`_sealed_walk`). Why: taking is monotone (a walk barring more reaches no more), so
    no sealed walk barring more takes w either; and the last walk of `compute_reach` keeps a walk w only if
    its hex is not asked or w's first line never left the hex across w's sides (either way that line, which
    avoids what is barred, is one the sealed walk may take: a line comes back into a hex only through a
    second way in, which makes the hex asked) or a sealed walk took it. So w is not in the last walk's
    `firsts`, and a piece is in `paths` only if one of its walks is."""
    first = _walk(board, entity, set())
    mine = [w for w in first[1] if w[0] == hex_id and w[1] in indices]
    if not mine:
        return False
    if clean_takes(board, entity, hex_id, indices):
        return True
    if not any(w in _sealed_walk(board, entity, w, set()) for w in mine):
        return False
    paths = compute_reach(board, entity, first).paths
    return any((hex_id, i) in paths for i in indices)


def lay_facts(board: Grid, entity: str) -> LayFacts:
    """What `lay_reached` reads off the board as it is: two walks, for all the lays tried at one position."""
    starts, build = _starts(board, entity)
    virtual = getattr(board, "virtual_stations", {}).get(entity, ())
    return LayFacts(clean_entries(board, entity), frozenset(_walk(board, entity, set())[2]),
                    frozenset(build).union(s[0][0] for s in starts), frozenset(h for h, _ in virtual))


def lay_reached(board: Grid, reach: Reach, entity: str, hex_id: str, new: Any, rotation: int,
                added: set[int]) -> bool | None:
    """Whether any of the `added` pieces of tile `new` laid on `hex_id` in `rotation` would be in
    `compute_reach(...).paths` after the lay, when the board before the lay tells: True, False,
    or None (only the trial lay can tell). The same answer as the trial's, by these two arguments:

    Yes: an added piece is walked by `_clean_in_hex`, from the sides `facts.clean` has for the hex (a clean
    line enters it there, never having been in it: `clean_entries` says why what such a line then walks
    without leaving the hex is reached).

    No: the walk with nothing barred takes everything the reach does, so a piece it would not take after
    the lay is not reached. Before the lay it arrived at `facts.plain`. After the lay, a line that keeps
    out of the hex arrives only where it did before; so every arrival after the lay is in `facts.plain` or
    in the hex, as long as the new tile's track, followed from where lines arrive in the hex (the sides
    `facts.plain` enters it by, every city of the tile if a walk may start in the hex), leaves the hex only
    for arrivals in `facts.plain` (a line from one of those that keeps out of the hex comes back only by
    sides `facts.plain` enters it by). Following the tile so, with no city blocked and no stop ending the
    track (more than the walk takes), and meeting no added piece: no.

    `reach`: the entity's reach on the board before the lay, which keeps `facts` (`lay_facts`, worked out
    on the first lay asked)."""
    if not added:
        return False
    facts = reach.lays
    if facts is None:
        facts = reach.lays = lay_facts(board, entity)
    allowed = getattr(board, "allowed_track", {}).get(entity)
    table = _walk_table(new, rotation)
    if _clean_in_hex(board, facts.clean.get(hex_id, 0), entity, hex_id, new, table, added):
        return True
    if hex_id in facts.virtual_hexes:
        return None
    plain = facts.plain
    neighbors = board.hexes[hex_id].neighbors
    todo = [e for e in range(6) if (hex_id, e, -1) in plain]
    if hex_id in facts.start_hexes:
        todo += [NODE_BASE + i for i, node in enumerate(new.nodes) if node.is_city]
    seen = set(todo)
    while todo:
        for pi, other, track, *_ in table.get(todo.pop(), ()):
            if allowed is not None and track not in allowed:
                continue
            if pi in added:
                return None
            if other >= NODE_BASE:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
                continue
            beyond = neighbors.get(other)
            if beyond is not None and (beyond, (other + 3) % 6, -1) not in plain:
                return None
    return False


def _clean_in_hex(board: Grid, entered: int, entity: str, hex_id: str, new: Any,
                  table: dict[int, tuple[tuple[Any, ...], ...]], added: set[int]) -> bool:
    """Whether a walk of tile `new` as it would lie on `hex_id`, from the sides in `entered` (bits) and
    never leaving the hex, takes one of the `added` pieces, by `_walk`'s rules after the lay: allowed track
    only, never back along the path arrived by, no going on past a terminal path, an off-board that ends
    track, or a city that may be full of other companies' stations after the lay (its tokens are not
    known before it: a city is passed only if it has more slots than the hex holds tokens, or the hex's
    city lets the entity through, `closed_cities`)."""
    if not entered:
        return False
    allowed = getattr(board, "allowed_track", {}).get(entity)
    passes = getattr(board, "closed_cities", {}).get(hex_id)
    tokens = sum(t is not None for slots in board.hexes[hex_id].tokens for t in slots)
    todo = [(e, -1) for e in range(6) if entered >> e & 1]
    seen = set(todo)
    while todo:
        end, via = todo.pop()
        for pi, other, track, terminal, kind, node_index in table.get(end, ()):
            if pi == via or (allowed is not None and track not in allowed):
                continue
            if pi in added:
                return True
            if other < NODE_BASE or terminal:
                continue  # leaving the hex, or the track ends
            if kind == "city":
                if passes is not None:
                    if entity not in passes:
                        continue
                elif 0 < new.cities[node_index].slots <= tokens:
                    continue
            elif board.rules.offboards_end_track and kind == "offboard":
                continue
            if (other, pi) not in seen:
                seen.add((other, pi))
                todo.append((other, pi))
    return False


def clean_entries(board: Grid, entity: str) -> dict[str, int]:
    """hex -> the sides (one bit each) by which a walk enters that hex from outside, having never been in
    it, along a *clean* line: one on which no piece of track is walked after the line left that piece's hex
    across one of the piece's own sides. A sufficient yes for a trial lay's track restriction, worked out
    once on the board before the lay (`Board._check_restriction`):

    After any lay on hex H, a new piece p of H with an end on a side e where `clean_entries(...)[H]` has e
    (and track the entity may use) is in `compute_reach(...).paths`. Why: the clean line L to e avoids H, so
    it is the same track, stations and tokens after the lay; L + p is clean too (L was never in H, so it
    never left H). `compute_reach` bars a piece w only when the walk sealed at w's hex and sides (no leaving
    that hex across them) with the pieces barred so far misses w. Suppose no piece of L + p is barred yet
    (true at first: nothing is): for each w on L + p the part of L + p before w never left w's hex across
    w's sides (clean) and holds no barred piece, so the sealed walk follows it to w, and w is not barred
    now either. By induction no piece of L + p is ever barred, so the last walk follows L + p and takes p.

    The walk is `_walk`'s (the same starts, blocked cities, terminals, off-boards, allowed track, no walking
    back along the path arrived by), with one more refusal: a piece whose sides the arrival's own line
    (the first one to reach it, breadth first) had left its hex by. What it takes is a part of the reach."""
    return _clean_walk(board, entity)[0]


def clean_takes(board: Grid, entity: str, hex_id: str, indices: set[int]) -> bool:
    """Whether the clean walk (`clean_entries`) takes a piece (hex_id, i), i in `indices`: a sufficient yes
    for `reaches_any_path` (what that walk takes is in `compute_reach(...).paths`, `clean_entries` says why),
    one walk instead of the whole reach's walks sealed at every loop."""
    return _clean_walk(board, entity, (hex_id, indices))[1]


def _clean_walk(board: Grid, entity: str, want: tuple[str, set[int]] | None = None) -> tuple[dict[str, int], bool]:
    """`clean_entries`'s walk; with `want` (hex, path indices) it stops as soon as it takes one of those pieces
    (then True)."""
    want_hex, want_paths = want if want is not None else ("", set())
    hexes = board.hexes
    starts, _ = _starts(board, entity)
    stack: deque[Arrival] = deque(start for start, _ in starts)
    exits: dict[Arrival, int] = dict.fromkeys(stack, 0)  # as in `_walk`: the sides left on the way, per hex
    shifts: dict[str, int] = {}
    entries: dict[str, int] = {}
    allowed = getattr(board, "allowed_track", {}).get(entity)
    offboards_end = board.rules.offboards_end_track
    closed = getattr(board, "closed_cities", {})
    popleft, push = stack.popleft, stack.append
    while stack:
        current = popleft()
        hex_id, end, via = current
        ends = _hex_table(board, hex_id).get(end)
        if not ends:
            continue
        crossed = exits[current]
        shift = shifts.get(hex_id)
        left_here = (crossed >> shift) & 0x3F if shift is not None else 0
        for pi, other, track, terminal, kind, node_index, _, _, node, arrival, _, sides in ends:
            if pi == via or left_here & sides:
                continue
            if allowed is not None and track not in allowed:
                continue
            if hex_id == want_hex and pi in want_paths:
                return entries, True
            if node is not None:
                if terminal:
                    continue
                if kind == "city" and _city_blocks(closed, hexes[hex_id], hex_id, node_index, entity):
                    continue
                elif offboards_end and kind == "offboard":
                    continue
                if arrival not in exits:
                    exits[arrival] = crossed
                    push(arrival)
            elif arrival is not None and arrival not in exits:
                if shift is None:
                    shift = shifts[hex_id] = 6 * len(shifts)
                line = exits[arrival] = crossed | (1 << (shift + other))
                beyond = shifts.get(arrival[0])
                if beyond is None or not (line >> beyond) & 0x3F:  # never in the hex beyond before
                    entries[arrival[0]] = entries.get(arrival[0], 0) | (1 << arrival[1])
                push(arrival)
    return entries, False


def _side_bits(board: Grid, walk: Walk) -> int:
    """The hex sides the walked path touches, one bit per side."""
    state = board.hexes[walk[0]]
    path = state.tile.rpaths[state.rotation][walk[1]]
    return (1 << path.a if path.a < NODE_BASE else 0) | (1 << path.b if path.b < NODE_BASE else 0)


def _sides(board: Grid, walk: Walk) -> frozenset[int]:
    """The hex sides the walked path touches."""
    state = board.hexes[walk[0]]
    path = state.tile.rpaths[state.rotation][walk[1]]
    return frozenset(e for e in (path.a, path.b) if e < NODE_BASE)


def _sealed_walk(board: Grid, entity: str, walk: Walk, barred: set[Walk]) -> dict[Walk, Arrival]:
    """The pieces taken by a walk that never leaves `walk`'s hex across the path's sides, up to `walk`
    (`walk` among them: it is reached so)."""
    return _walk(board, entity, barred, (walk[0], _sides(board, walk)), walk)[1]


def _walk_table(tile: Any, rotation: int) -> dict[int, tuple[tuple[Any, ...], ...]]:
    """Per end of the tile in this rotation, what `_walk` needs of each path from it: (path index, other
    end, track, terminal, kind and number of the node at the other end). Worked out once per tile (tiles
    are shared by every board of the title), so the walk reads one tuple instead of four objects."""
    tables = tile.__dict__.get("_walk_tables")
    if tables is None:
        tables = []
        for rot in range(6):
            paths = tile.rpaths[rot]
            table: dict[int, tuple[tuple[Any, ...], ...]] = {}
            for end, indices in tile.by_end[rot].items():
                rows = []
                for pi in indices:
                    path = paths[pi]
                    other = path.b if path.a == end else path.a
                    node = tile.nodes[other - NODE_BASE] if other >= NODE_BASE else None
                    rows.append((pi, other, path.track, path.terminal,
                                 node.kind if node else None, node.index if node else -1))
                table[end] = tuple(rows)
            tables.append(table)
        tile.__dict__["_walk_tables"] = tables
    return tables[rotation]


def _hex_table(board: Grid, hex_id: str) -> dict[int, tuple[tuple[Any, ...], ...]]:
    """`_walk_table` of the hex's tile as it lies, each row followed by the keys the walk files it under,
    made once per (hex, tile, rotation) and kept in the board's memo (shared by its copies: it depends on
    the map and the tile only): the walk (hex, path, end), the path (hex, path), the node reached (hex,
    code) or None, the arrival it leads to (None: off the map) and the (hex, edge) pairs the path adds to
    the reach's edges (its own edges and the facing edges beyond), and the hex sides the path touches (one
    bit per side). A walk then builds no tuple of its own for a path it follows, only looks these up."""
    state = board.hexes[hex_id]
    tile, rotation = state.tile, state.rotation
    key = ("walk", hex_id, tile.name, rotation)
    memo = board._memo
    table = memo.get(key)
    if table is None:
        table = {}
        rpaths = tile.rpaths[rotation]
        for end, rows in _walk_table(tile, rotation).items():
            out = []
            for row in rows:
                pi, other = row[0], row[1]
                path = rpaths[pi]
                touched = []
                sides = 0
                for e in (path.a, path.b):
                    if e < NODE_BASE:
                        sides |= 1 << e
                        touched.append((hex_id, e))
                        nb = state.neighbors.get(e)
                        if nb is not None:
                            touched.append((nb, (e + 3) % 6))
                if other >= NODE_BASE:
                    node, arrival = (hex_id, other), (hex_id, other, pi)
                else:
                    nb = state.neighbors.get(other)
                    node, arrival = None, (nb, (other + 3) % 6, -1) if nb is not None else None
                out.append(row + ((hex_id, pi, end), (hex_id, pi), node, arrival, tuple(touched), sides))
            table[end] = tuple(out)
        memo[key] = table
    return table


def _starts(board: Grid, entity: str) -> tuple[list[tuple[Arrival, bool]], list[str]]:
    """The arrivals every walk starts from, each with whether it is a station (a token node), and the hexes
    whose every edge the entity builds from: the cities holding its stations; without a token yet its home
    hexes (their cities, if any, stand in for stations); and the stops it runs from as if it had a station
    there (1833NE P4/P6)."""
    hexes = board.hexes
    starts: list[tuple[Arrival, bool]] = []
    build: list[str] = []
    for hex_id, ci in board.station_cities(entity):
        starts.append(((hex_id, hexes[hex_id].tile.city_code(ci), -1), True))
        build.append(hex_id)
    if not starts:  # no token yet: the home hexes stand in for it
        for hex_id, city_index in board.homes.get(entity, ()):
            build.append(hex_id)
            for i, node in enumerate(hexes[hex_id].tile.nodes):
                if node.is_city and (city_index is None or node.index == city_index):
                    starts.append(((hex_id, NODE_BASE + i, -1), False))
    for hex_id, code in sorted(getattr(board, "virtual_stations", {}).get(entity, ())):
        starts.append(((hex_id, code, -1), True))
    return starts, build



def _city_blocks(closed: dict[str, frozenset[str]], state: HexState, hex_id: str, node_index: int,
                 entity: str) -> bool:
    """Whether a walk stops at this city (`Board.node_blocks`, read off the walk's own tables): a closed city
    lets only the entities it names through, any other one stops it when every slot holds another's token."""
    passes = closed.get(hex_id)
    if passes is not None:
        return entity not in passes
    slots = state.tokens[node_index]
    return bool(slots) and entity not in slots and None not in slots

def _walk(board: Grid, entity: str, barred: set[Walk], sealed: tuple[str, frozenset[int]] | None = None,
          target: Walk | None = None
          ) -> tuple[Reach, dict[Walk, Arrival], dict[Arrival, int], dict[str, int]]:
    """The reach over arrivals, no path walked from an end in `barred`; `sealed` = (hex, sides): no walk
    leaves that hex across those sides (it stops once `target` is walked, and only its `firsts` are
    wanted: the reach is not filled in). Also gives the arrival each walked path was first walked from,
    every arrival with the hex sides crossed by the walk that first reached it (`exits`: bit `shifts[hex]
    + side` set once that walk left `hex` across `side`; all 0 in a sealed walk) and those shifts."""
    reach = Reach()
    hexes = board.hexes
    edges = reach.edges
    sealed_hex, sealed_sides = sealed if sealed is not None else ("", frozenset())
    # (hex, end code, path arrived by) arrivals: a node (and the path that led to it, never walked back: track
    # does not reverse at a town or city), or an edge entered from outside (path -1)
    stack: deque[Arrival] = deque()  # walked breadth first: each arrival's first walk is a shortest one
    starts, build = _starts(board, entity)
    for hex_id in build:
        edges.setdefault(hex_id, set()).update(hexes[hex_id].neighbors)
    for start, station in starts:
        if station:
            reach.token_nodes.add(start[:2])
        reach.nodes.add(start[:2])
        stack.append(start)
    allowed = getattr(board, "allowed_track", {}).get(entity)
    # each (hex, end) arrival is expanded once, so each path is walked at most once from each of its ends
    exits: dict[Arrival, int] = dict.fromkeys(stack, 0)
    shifts: dict[str, int] = {}  # hex -> its first side's bit in `exits` (hexes numbered as they are left)
    track_sides = sealed is None
    firsts: dict[Walk, Arrival] = {}
    nodes_add = reach.nodes.add
    paths = reach.paths
    paths_add = paths.add
    offboards_end = board.rules.offboards_end_track
    closed = getattr(board, "closed_cities", {})  # a city open only to some entities (Board.node_blocks)
    tables: dict[str, tuple[Any, Any]] = {}  # hex -> (state, `_hex_table`) for this walk
    popleft, push = stack.popleft, stack.append
    while stack:
        current = popleft()
        hex_id, end, via = current
        known = tables.get(hex_id)
        if known is None:
            known = tables[hex_id] = (hexes[hex_id], _hex_table(board, hex_id))
        state, table = known
        ends = table.get(end)
        if not ends:
            continue
        crossed = exits[current]
        for pi, other, track, terminal, kind, node_index, walk, path_key, node, arrival, touched, _ in ends:
            if pi == via:
                continue
            if allowed is not None and track not in allowed:
                continue
            if barred and walk in barred:
                continue
            if walk not in firsts:
                firsts[walk] = current
                if walk == target:
                    return reach, firsts, exits, shifts
            if track_sides and path_key not in paths:
                paths_add(path_key)
                # the edges the path touches, and the facing edge of the hex beyond (lay legality)
                for h_id, e in touched:
                    hex_edges = edges.get(h_id)
                    if hex_edges is None:
                        edges[h_id] = {e}
                    else:
                        hex_edges.add(e)
            if node is not None:
                if track_sides:
                    nodes_add(node)
                if terminal:
                    continue
                if kind == "city" and _city_blocks(closed, state, hex_id, node_index, entity):
                    continue
                elif offboards_end and kind == "offboard":
                    continue
                if arrival not in exits:
                    exits[arrival] = crossed
                    push(arrival)
            else:
                if arrival is None or (hex_id == sealed_hex and other in sealed_sides):
                    continue
                if arrival not in exits:
                    if track_sides:
                        shift = shifts.get(hex_id)
                        if shift is None:
                            shift = shifts[hex_id] = 6 * len(shifts)
                        exits[arrival] = crossed | (1 << (shift + other))
                    else:
                        exits[arrival] = 0
                    push(arrival)
    return reach, firsts, exits, shifts


def nodes_beside_stations(board: Grid, entity: str) -> Iterator[NodeRef]:
    """Nodes on the entity's track within the hex of one of its stations or the hex beyond it, each one a
    node `compute_reach` finds too (some may come twice; the stations' own nodes are not given).

    A walk that crosses one hex side into a hex it has never been in can come back into no hex, so
    nothing it reaches is ever barred: what it finds is reached whatever else the map holds. The
    questions asked after every station and lay ("does any run start here?", "is there a city to
    station?") are mostly answered by these without a whole new reach; not finding one here means only
    that the reach must be asked."""
    if getattr(board, "virtual_stations", {}).get(entity):
        return
    hexes = board.hexes
    own = {(hex_id, hexes[hex_id].tile.city_code(ci)) for hex_id, ci in board.station_cities(entity)}
    allowed = getattr(board, "allowed_track", {}).get(entity)
    for hex_id, code in own:
        for row in _hex_table(board, hex_id).get(code, ()):
            if allowed is not None and row[2] not in allowed:
                continue
            node, arrival = row[8], row[9]
            if node is not None:
                if node not in own:
                    yield node
                continue
            if arrival is None:
                continue
            for row2 in _hex_table(board, arrival[0]).get(arrival[1], ()):
                if allowed is not None and row2[2] not in allowed:
                    continue
                node2 = row2[8]
                if node2 is not None and node2 not in own:
                    yield node2

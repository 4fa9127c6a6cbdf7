"""The map in play: tiles on hexes, station tokens, and the checked doors to change them.

`check_*` methods validate and raise IllegalAction naming hex/tile/rule; `lay` / `place_token` trust their
input (the Game calls them after checking, or while replaying undone actions).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path as FsPath
from typing import Any

from ..errors import DataError, MalformedAction
from .graph import compute_reach, nodes_beside_stations
from .grid import HexState, Reach
from .lays import Lays, city_moves
from .rules import BoardRules
from .stations import Stations
from .tiles import NODE_BASE, Supply, TileDef, load_catalogue, parse_tile, parse_tile_id
from .trains import TrainKind


def _put(slots: list[str | None], pos: int | None, ent: str) -> None:
    """Put `ent` in slot `pos`, else the first empty slot; never lose it (an overfull city keeps it)."""
    if pos is None:
        pos = next((i for i, s in enumerate(slots) if s is None), None)
    if pos is None:
        slots.append(ent)
    else:
        slots[pos] = ent


def _slots_for(tile: TileDef) -> list[list[str | None]]:
    return [[None] * max(c.slots, 0) for c in tile.cities]


class Board(Lays, Stations):
    """One game's map. Cheap to clone; holds no reference to the Game."""

    def __init__(self, rules: BoardRules, catalogue: dict[str, TileDef], hexes: dict[str, HexState],
                 supply: Supply, preprinted_upgrades: dict[str, tuple[str, ...]]) -> None:
        self.rules = rules
        self.catalogue = catalogue
        self.hexes = hexes
        self.supply = supply
        self.preprinted_upgrades = preprinted_upgrades
        self._reach: dict[str, Reach] = {}
        self._stations: dict[str, list[tuple[str, int]]] | None = None  # see `station_cities`
        self._where: dict[tuple[str, int], str] = {}  # (tile name, copy) -> hex id
        # answers that depend only on the tiles and the map (upgrade targets, rotation problems), shared by
        # every copy of this board: tile-lay enumeration asks the same questions thousands of times
        self._memo: dict[tuple[Any, ...], Any] = {}
        # entity -> [(home hex, city index or None)]; until an entity has a token its homes count as its
        # network, so a minor whose home hex has no track yet (1825) can build there
        self.homes: dict[str, list[tuple[str, int | None]]] = {}
        # entity -> track kinds it may use (1840: lines broad, Stadtbahnen narrow); absent = any track
        self.allowed_track: dict[str, frozenset[str]] = {}
        # entity -> stops it builds and runs from as if it had a station there (1833NE P4/P6 off-boards)
        self.virtual_stations: dict[str, frozenset[tuple[str, int]]] = {}
        self.closed_cities: dict[str, frozenset[str]] = {}
        # hex -> the sides a tile laid on it while it was impassable-coloured opened (`lay`); replaced whole
        self.opened: dict[str, tuple[int, ...]] = {}
        for h in hexes.values():
            self._where[(h.tile.name, h.copy)] = h.id

    # -- loading --------------------------------------------------------------------------------------
    @classmethod
    def load(cls, title_dir: FsPath, map_file: str, setup: dict[str, Any], rules: BoardRules) -> Board:
        title_dir = FsPath(title_dir)
        try:
            catalogue = load_catalogue(json.loads((title_dir / "tiles.json").read_text()))
            raw_map = json.loads((title_dir / map_file).read_text())
        except (OSError, ValueError) as err:
            raise DataError(f"cannot read board data in {title_dir}: {err}") from err
        return cls.from_data(catalogue, raw_map, setup, rules)

    @classmethod
    def from_data(cls, catalogue: dict[str, TileDef], raw_map: dict[str, Any], setup: dict[str, Any],
                  rules: BoardRules) -> Board:
        hexes: dict[str, HexState] = {}
        for raw in raw_map.get("hexes") or []:
            hid = raw.get("id")
            if not isinstance(hid, str) or hid in hexes:
                raise DataError(f"map hex id {hid!r} missing or repeated")
            tile = parse_tile(hid, raw.get("color", ""), raw.get("tile") or {}, preprinted=True, code=raw.get("code"))
            try:
                neighbors = {int(k): v for k, v in (raw.get("neighbors") or {}).items()}
            except ValueError as err:
                raise DataError(f"hex {hid}: bad neighbour edge") from err
            if any(not 0 <= e <= 5 for e in neighbors):
                raise DataError(f"hex {hid}: neighbour edge out of range")
            every = {int(k): v for k, v in (raw.get("all_neighbors") or {}).items()} or None
            hexes[hid] = HexState(hid, raw.get("x", 0), raw.get("y", 0), neighbors, tile, tile,
                                  tokens=_slots_for(tile), reservations=_slots_for(tile),
                                  location=raw.get("location_name"), all_neighbors=every)
        for h in hexes.values():
            for e, nb in h.neighbors.items():
                if nb not in hexes:
                    raise DataError(f"hex {h.id}: neighbour {nb} across edge {e} is not on the map")
        counts: dict[str, int | None] = {}
        for name, count in (setup.get("tile_manifest") or {}).items():
            if name not in catalogue:
                raise DataError(f"tile manifest names unknown tile {name}")
            counts[name] = None if count == "unlimited" else int(count)
        pre: dict[str, tuple[str, ...]] = {}
        for hid, names in (setup.get("preprinted_hex_upgrades") or {}).items():
            if hid not in hexes:
                continue  # the setup covers hexes of other maps of the same configuration family
            for n in names:
                if n not in catalogue:
                    raise DataError(f"preprinted upgrade of {hid} names unknown tile {n}")
            pre[hid] = tuple(names)
        board = cls(rules, catalogue, hexes, Supply(counts), pre)
        for corp in (setup.get("corporations") or []) + (setup.get("minors") or []):
            home = corp.get("home")
            if corp.get("in_game") is False or not home:
                continue
            homes = home if isinstance(home, list) else [home]
            board.homes[corp["sym"]] = [(h, corp.get("home_city_index")) for h in homes if h in hexes]
        for hid, placement in (setup.get("initial_placements") or {}).items():
            h = hexes.get(hid)
            if h is None:
                raise DataError(f"initial placement on unknown hex {hid}")
            for r in placement.get("reservations") or []:
                if r.get("tile_level") or r.get("city") is None:
                    h.tile_reservations.append(r["entity"])
                    continue
                ci, slot = int(r["city"]), int(r.get("slot") or 0)
                if ci >= len(h.reservations) or slot >= len(h.reservations[ci]):
                    raise DataError(f"reservation on {hid} names missing city {ci} slot {slot}")
                h.reservations[ci][slot] = r["entity"]
            for t in placement.get("tokens") or []:
                ci, slot = int(t.get("city") or 0), int(t.get("slot") or 0)
                h.tokens[ci][slot] = t["entity"]
            h.blockers.extend(placement.get("blockers") or [])
        return board

    def clone(self) -> Board:
        new = self._frame()
        new.hexes = {k: h.clone() for k, h in self.hexes.items()}
        return new

    def _frame(self) -> Board:
        """A copy of everything but the hexes."""
        new = Board.__new__(Board)
        new.rules = self.rules
        new.catalogue = self.catalogue
        new.preprinted_upgrades = self.preprinted_upgrades
        new.hexes = {}
        new.supply = Supply(self.supply.counts, {k: set(v) for k, v in self.supply.on_map.items()})
        new._reach = {}
        new._stations = None
        new._trial_reach = new._trial_live = None
        new._version = self.__dict__.get("_version", 0)
        new._where = dict(self._where)
        new._memo = self._memo
        new.homes = self.homes
        new.allowed_track = getattr(self, "allowed_track", {})
        new.virtual_stations = getattr(self, "virtual_stations", {})
        new.closed_cities = getattr(self, "closed_cities", {})
        new.opened = getattr(self, "opened", {})
        return new

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_reach"] = {}
        state["_stations"] = None
        state["_trial_reach"] = state["_trial_live"] = state["_position_memo"] = None
        state["_memo"] = {}
        return state

    # -- helpers ----------------------------------------------------------------------------------------
    def hex(self, hex_id: str) -> HexState:
        try:
            return self.hexes[hex_id]
        except KeyError:
            raise MalformedAction(f"there is no hex {hex_id!r} on this map", "hex") from None

    def reach(self, entity: str) -> Reach:
        r = self._reach.get(entity)
        if r is None:
            r = self._reach[entity] = compute_reach(self, entity)
            live = self.__dict__.get("_trial_live")
            if live is not None and live[0] == self._version:
                live[1][entity] = r  # the board as the trial's tile alone changed it (see `trial_lay`)
        return r

    def reaches_for_copy(self) -> dict[str, Reach]:
        """The reaches kept for the board as it is, for a copy of it (`Game.trial`); none inside a trial lay,
        whose tile the copy does not have. Each a new `Reach` of the same (never changed) parts, without
        the lay facts (`graph.lay_facts`), which each board finds for itself."""
        if self.__dict__.get("_trial_live") is not None:
            return {}
        return {e: replace(r, lays=None) for e, r in self._reach.items()}

    def adopt_reaches(self, reaches: dict[str, Reach]) -> None:
        """Reaches worked out on another board with the very same track and tokens (`reaches_for_copy`)."""
        self._reach.update(reaches)

    def reach_known(self, entity: str) -> bool:
        return entity in self._reach

    def nodes_beside_stations(self, entity: str) -> Iterator[tuple[str, int]]:
        return nodes_beside_stations(self, entity)

    def runs_from_station(self, entity: str) -> bool | None:
        """Whether a stop other than the entity's stations is on its track, when that is known without a
        new reach walk (its reach is kept, or a stop lies beside a station: `nodes_beside_stations`); None
        when only the reach can tell."""
        r = self._reach.get(entity)
        if r is not None:
            return bool(r.token_nodes) and bool(r.nodes - r.token_nodes)
        return True if next(nodes_beside_stations(self, entity), None) is not None else None

    def station_cities(self, entity: str) -> list[tuple[str, int]]:
        """(hex id, city index) of every city holding one of the entity's stations, in map order. Every
        reach walk starts from them; finding them means looking at every city of the map, so the answer
        for all entities is found in one pass and kept exactly as long as the cached reaches are: whatever
        changes a token drops both (`forget_reach`, `_forget_reach_at`)."""
        stations = getattr(self, "_stations", None)
        if stations is None:
            stations = {}
            for hex_id, h in self.hexes.items():
                for ci, slots in enumerate(h.tokens):
                    for e in dict.fromkeys(slots):
                        if e is not None:
                            stations.setdefault(e, []).append((hex_id, ci))
            self._stations = stations
        return stations.get(entity, [])

    def _restation(self, hex_id: str) -> None:
        """The tokens on `hex_id` (only) changed: find that hex's stations again. A new dictionary and new
        lists, never changed in place, so a trial lay can keep the old ones and put them back."""
        stations = getattr(self, "_stations", None)
        if stations is None:
            return
        order = self._hex_order()
        h = self.hexes[hex_id]
        here: dict[str, list[tuple[str, int]]] = {}
        for ci, slots in enumerate(h.tokens):
            for e in dict.fromkeys(slots):
                if e is not None:
                    here.setdefault(e, []).append((hex_id, ci))
        new = dict(stations)
        for e in set(here).union(e for e, cities in stations.items() if any(c[0] == hex_id for c in cities)):
            cities = [c for c in stations.get(e, ()) if c[0] != hex_id] + here.get(e, [])
            cities.sort(key=lambda c: (order[c[0]], c[1]))  # map order, as one pass over the map finds them
            new[e] = cities
        self._stations = new

    def _hex_order(self) -> dict[str, int]:
        order = self.__dict__.get("_order")
        if order is None or len(order) != len(self.hexes):
            order = self._order = {hex_id: i for i, hex_id in enumerate(self.hexes)}
        return order

    def position_memo(self) -> dict[Any, Any]:
        """A dictionary for what a title works out from the board as it is now (its track and tokens): a new
        one whenever they change (as the reach cache is dropped: `forget_reach`, `_forget_reach_at`); a trial
        lay has its own, and the board's comes back with everything else (`trial_lay`)."""
        memo = self.__dict__.get("_position_memo")
        if memo is None:
            memo = self._position_memo = {}
        return memo

    def forget_reach(self) -> None:
        """Track or tokens changed behind the board's back (a title moving or removing a token itself):
        every cached reach is stale."""
        self._reach.clear()
        self._stations = None
        self._position_memo = None
        self._version = self.__dict__.get("_version", 0) + 1

    def _forget_reach_at(self, hex_id: str, entity: str | None = None) -> None:
        """A tile or token changed on `hex_id` only: an entity's reach can change only if its track
        already touches that hex (any track into the hex enters by an edge the reach records under the
        hex, and a token blocks or opens only a city the reach arrives at there) or it is `entity`, whose
        stations changed. The other entities' reaches stay cached."""
        self._restation(hex_id)
        self._position_memo = None
        self._version = self.__dict__.get("_version", 0) + 1
        stale = [e for e, r in self._reach.items() if e == entity or hex_id in r.edges]
        for e in stale:
            del self._reach[e]


    def node_blocks(self, hex_id: str, code: int, entity: str) -> bool:
        """A city blocks an entity's track when every slot holds another company's token."""
        h = self.hexes[hex_id]
        node = h.tile.nodes[code - NODE_BASE]
        if not node.is_city:
            return False
        passes = getattr(self, "closed_cities", {}).get(hex_id)
        if passes is not None:
            return entity not in passes
        slots = h.tokens[node.index]
        return bool(slots) and entity not in slots and all(s is not None for s in slots)

    def has_token(self, hex_id: str, code: int, entity: str) -> bool:
        h = self.hexes[hex_id]
        node = h.tile.nodes[code - NODE_BASE]
        if node.is_city and entity in h.tokens[node.index]:
            return True
        virtual = getattr(self, "virtual_stations", {}).get(entity)
        return bool(virtual) and (hex_id, code) in virtual

    def set_virtual_stations(self, stations: dict[str, frozenset[tuple[str, int]]]) -> None:
        """Stops each entity builds and runs from as if it had a station there (not a token: nothing
        blocks, nothing can be placed there)."""
        self.virtual_stations = {k: frozenset(v) for k, v in stations.items() if v}
        self.forget_reach()

    def set_closed_cities(self, cities: dict[str, frozenset[str]]) -> None:
        """Cities (by hex) that let only the named entities through: every other entity's track ends there,
        whatever the slots hold (1828's Virginia Coalfields: only a corporation with a coal marker passes).
        Replaced whole, never changed in place (clones share it)."""
        self.closed_cities = {k: frozenset(v) for k, v in cities.items()}
        self.forget_reach()

    # -- tiles ------------------------------------------------------------------------------------------
    @contextmanager
    def trial_lay(self, hex_id: str, new: TileDef, rotation: int) -> Iterator[None]:
        """Lay a tile tentatively (to see what it connects) and put everything back afterwards, the reach
        cache included: what is computed inside sees the tile, nothing computed inside outlives it.

        Except for one thing: the reaches worked out inside while nothing but the trial's tile had changed
        are kept aside under (the board's version after the trial, hex, tile, rotation). A further trial of
        the same lay, or the lay itself made next (`_place_tile`: nothing changed on the board between,
        or the version would differ), starts from them: checking a lay (connection, track restriction,
        1825's reach and credit checks) and then making it would otherwise find the same reaches again."""
        h = self.hexes[hex_id]
        kept = self.__dict__.get("_trial_reach")
        version = self.__dict__.get("_version", 0)
        known = kept[1] if kept is not None and kept[0] == (version, hex_id, new.name, rotation) else {}
        saved = (h.tile, h.rotation, h.copy, h.tokens, h.reservations)
        where, on_map = dict(self._where), {k: set(v) for k, v in self.supply.on_map.items()}
        reach = dict(self._reach)  # _place_tile clears the cache in place
        stations = getattr(self, "_stations", None)  # replaced, never changed in place (`_restation`)
        memo = self.__dict__.get("_position_memo")
        found: dict[str, Reach] = dict(known)
        try:
            self._place_tile(hex_id, new, rotation, copy=-1)
            self._reach.update(known)
            self._trial_live = (self._version, found)
            yield
        finally:
            self._trial_live = None
            h.tile, h.rotation, h.copy, h.tokens, h.reservations = saved
            self._where, self.supply.on_map, self._reach = where, on_map, reach
            self._stations, self._position_memo = stations, memo
            self._version = self.__dict__.get("_version", 0) + 1
            self._trial_reach = ((self._version, hex_id, new.name, rotation), found)


    def dynamic_state(self) -> dict[str, Any]:
        """What play changed (tiles, tokens, reservations, blockers, supply): small to pickle; the static
        rest is rebuilt from the title definition."""
        return {
            "hexes": {hid: (None if h.tile is h.preprinted else h.tile.name, h.rotation, h.copy, h.tokens,
                            h.reservations, h.tile_reservations, h.blockers) for hid, h in self.hexes.items()},
            "on_map": self.supply.on_map,
            "allowed_track": self.allowed_track,
            "virtual_stations": getattr(self, "virtual_stations", {}),
            "closed_cities": getattr(self, "closed_cities", {}),
            "opened": getattr(self, "opened", {}),
        }

    def with_dynamic_state(self, state: dict[str, Any]) -> Board:
        new = self._frame()
        changing = state["hexes"]
        for hid, h in self.hexes.items():
            if hid not in changing:
                new.hexes[hid] = h.clone()
                continue
            name, rotation, copy, tokens, reservations, tile_res, blockers = changing[hid]
            tile = h.preprinted if name is None else self.catalogue[name]
            new.hexes[hid] = h.with_state(tile, rotation, copy, tokens, reservations, tile_res, blockers)
        new.supply.on_map = state["on_map"]
        new.allowed_track = state["allowed_track"]
        new.virtual_stations = state.get("virtual_stations", {})
        new.closed_cities = state.get("closed_cities", {})
        new.opened = dict(state.get("opened", {}))
        for hex_id, sides in new.opened.items():
            new._open(hex_id, sides)
        new._where = {(h.tile.name, h.copy): h.id for h in new.hexes.values()}
        return new

    def lay(self, hex_id: str, tile_id: str, rotation: int) -> None:
        name, copy = parse_tile_id(tile_id)
        h = self.hexes[hex_id]
        was_impassable = h.tile.color in self.rules.impassable_colors
        new = self.catalogue[name]
        self._place_tile(hex_id, new, rotation, copy)
        if was_impassable:
            # an impassable-coloured hex with a tile is entered along the tile's track from now on (both ways),
            # except across an impassable side (docs/board-data.md, "Neighbours")
            walls = {b.get("edge") for b in new.borders if b.get("type") == "impassable"}
            sides = tuple(sorted(e for e in new.rexits[rotation] if e not in walls))
            self._open(hex_id, sides)
            self.opened = {**getattr(self, "opened", {}), hex_id: sides}
            self.forget_reach()

    def _open(self, hex_id: str, sides: tuple[int, ...]) -> None:
        """Link `hex_id` and the hexes beside it across `sides` both ways (new dictionaries, never changed in
        place: the hexes of other copies of the board share the old ones)."""
        h = self.hexes[hex_id]
        for side in sides:
            other_id = (h.all_neighbors or h.neighbors).get(side)
            if other_id is None or other_id not in self.hexes:
                continue  # off the map
            other = self.hexes[other_id]
            back = next(e for e, n in (other.all_neighbors or other.neighbors).items() if n == hex_id)
            if h.neighbors.get(side) != other_id:
                h.neighbors = {**h.neighbors, side: other_id}
            if other.neighbors.get(back) != hex_id:
                other.neighbors = {**other.neighbors, back: hex_id}

    def _place_tile(self, hex_id: str, new: TileDef, rotation: int, copy: int) -> None:
        h = self.hexes[hex_id]
        old, old_rot = h.tile, h.rotation
        if not old.preprinted:
            self.supply.give_back(old.name, h.copy)
        self._where.pop((old.name, h.copy), None)
        if copy >= 0:
            self.supply.take(new.name, copy)
        tokens, reserved = _slots_for(new), _slots_for(new)
        moves = city_moves(old, old_rot, new, rotation)
        for oi, target in moves:  # reservations first, in their slots where possible
            dst = reserved[target]
            for pos, ent in enumerate(h.reservations[oi]):
                if ent is not None:
                    _put(dst, pos if pos < len(dst) and dst[pos] is None else None, ent)
        for oi, target in moves:
            # a token moves to the slot its company has reserved, else to the first slot that is neither
            # taken nor reserved: the tokens close up, a slot freed by a removed token is not kept
            dst, res = tokens[target], reserved[target]
            for ent in h.tokens[oi]:
                if ent is None:
                    continue
                own = next((i for i, r in enumerate(res) if r == ent and i < len(dst) and dst[i] is None), None)
                if own is None:
                    own = next((i for i, t in enumerate(dst) if t is None and (i >= len(res) or res[i] is None)),
                               None)
                _put(dst, own, ent)
        h.tile, h.rotation, h.copy, h.tokens, h.reservations = new, rotation, max(copy, 0), tokens, reserved
        self._where[(new.name, h.copy)] = hex_id
        kept = self.__dict__.get("_trial_reach")
        tried = kept is not None and kept[0] == (self.__dict__.get("_version", 0), hex_id, new.name, rotation)
        self._trial_reach = None
        self._forget_reach_at(hex_id)
        if tried and copy >= 0:  # this very lay was just tried on this very board (`trial_lay`)
            self._reach.update(kept[1])

    def digest_tiles(self) -> dict[str, str]:
        return {hid: f"{h.tile.name}-{h.rotation}" for hid, h in self.hexes.items() if not h.tile.preprinted}

    # -- routes -----------------------------------------------------------------------------------------
    def route_revenues(self, entity: str, routes: list[dict[str, Any]], trains: dict[str, TrainKind],
                       phase_colors: list[str] | tuple[str, ...], phase_name: str = "") -> list[int]:
        from .routes import validate_routes

        return [r.revenue for r in validate_routes(self, entity, routes, trains, tuple(phase_colors), phase_name)]

    def best_routes(self, entity: str, trains: dict[str, TrainKind], phase_colors: list[str] | tuple[str, ...],
                    phase_name: str = "", **limits: Any) -> list[dict[str, Any]]:
        from .autorouter import best_routes

        return best_routes(self, entity, trains, tuple(phase_colors), phase_name, **limits)

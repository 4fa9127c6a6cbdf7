"""Which tile lays the board accepts: the checks of one lay (the supply, the phase's colours, the upgrade and
its rotation, the stations it must keep, its connection and the title's track restriction) and every lay open
to an entity now. A part of `Board` (its mixin), apart from the map's state and how a lay changes it."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import IllegalAction, MalformedAction
from .graph import lay_reached, reaches_any_path
from .tiles import parse_tile_id
from .upgrades import rotation_problem, upgrade_refusal

if TYPE_CHECKING:
    from .grid import HexState, Reach
    from .rules import BoardRules
    from .tiles import Supply, TileDef


@dataclass(frozen=True)
class LayResult:
    cost: int
    upgrade: bool
    old_tile: str
    new_tile: str
    color: str


def city_moves(old: TileDef, old_rot: int, new: TileDef, rotation: int) -> list[tuple[int, int]]:
    """(old city, new city) for every city of the old tile that has a place on the new one: the new city
    with all its track, else (no track yet) the first new city no city with track went to, else the city
    of the same number; a city left out has no place on the new tile."""
    # cities come first among a tile's nodes, so city i's exits are rctedges[i]
    old_ct, new_ct = old.rctedges[old_rot], new.rctedges[rotation]
    targets = [next((ni for ni in range(len(new.cities)) if ct and ct <= new_ct[ni]), None) for ct in old_ct]
    free_cities = [ni for ni in range(len(new.cities)) if ni not in targets]
    moves: list[tuple[int, int]] = []
    for oi in range(len(old.cities)):
        target = targets[oi]
        if target is None and not old_ct[oi] and free_cities:
            target = free_cities.pop(0)
        if target is None and oi < len(new.cities):
            target = oi
        if target is not None:
            moves.append((oi, target))
    return moves



class Lays:
    # what the board holds that lays are about (set by `Board.__init__`)
    hexes: dict[str, HexState]
    rules: BoardRules
    catalogue: dict[str, TileDef]
    supply: Supply
    preprinted_upgrades: dict[str, tuple[str, ...]]
    _memo: dict[tuple[Any, ...], Any]
    _reach: dict[str, Reach]

    def reach(self, entity: str) -> Reach:
        raise NotImplementedError

    def reach_known(self, entity: str) -> bool:
        raise NotImplementedError

    def hex(self, hex_id: str) -> HexState:
        raise NotImplementedError

    def trial_lay(self, hex_id: str, new: TileDef, rotation: int) -> AbstractContextManager[None]:
        raise NotImplementedError

    def upgrade_targets(self, h: HexState) -> frozenset[str]:
        tile = h.tile
        key = ("targets", h.id, tile.name)
        known = self._memo.get(key)
        if known is not None:
            return known
        if tile.preprinted:
            targets = set(self.preprinted_upgrades.get(h.id, ()))
        else:
            targets = set(tile.upgrades_to)
        targets.update(self.rules.extra_upgrades.get(tile.name, ()))
        targets.difference_update(self.rules.illegal_upgrades.get(tile.name, ()))
        self._memo[key] = answer = frozenset(targets)
        return answer

    def extra_upgrade(self, old: str, new: str) -> bool:
        """`old` -> `new` is one of the title's extra upgrades (beyond the colour and track rules)."""
        return new in self.rules.extra_upgrades.get(old, ()) or new in self.rules.extra_upgrade_text.get(old, "")

    def _rotation_problem(self, h: HexState, new: TileDef, rotation: int) -> str | None:
        key = ("rotation", h.id, h.tile.name, h.rotation, new.name, rotation, tuple(h.neighbors))
        if key not in self._memo:
            # an extra upgrade keeps the old track if the new tile has it between the same edges and
            # stops, a town standing for a city and a city for a town (a yellow city 115 becomes tile 2)
            self._memo[key] = rotation_problem(h.tile, h.rotation, new, rotation, h.neighbors,
                                               any_stop=self.extra_upgrade(h.tile.name, new.name))
        return self._memo[key]

    def check_lay(self, entity: str, hex_id: str, tile_id: str, rotation: int, phase_colors: set[str] | list[str],
                  *, must_connect: bool = True) -> LayResult:
        h = self.hex(hex_id)
        name, copy = parse_tile_id(tile_id)
        new = self.catalogue.get(name)
        if new is None:
            raise MalformedAction(f"unknown tile {name!r}", "tile_id")
        if not isinstance(rotation, int) or not 0 <= rotation <= 5:
            raise MalformedAction(f"rotation {rotation!r} is not 0-5", "rotation")
        problem = self.supply.check_copy(name, copy)
        if problem:
            raise IllegalAction(problem, "tile_supply")
        blockers = [b for b in h.blockers if b != entity]
        if blockers:
            raise IllegalAction(f"{hex_id} is blocked by {', '.join(blockers)}", "hex_blocked")
        colors = set(phase_colors)
        if new.color not in colors:
            raise IllegalAction(f"{new.color} tiles (tile {name}) are not available in this phase", "phase_color")
        need = self.rules.tile_requires_color.get(name)
        if need and need not in colors:
            raise IllegalAction(f"tile {name} needs {need} tiles to be available", "phase_color")
        only = self.rules.tile_only_on_hexes.get(name)
        if only is not None and hex_id not in only:
            raise IllegalAction(f"tile {name} may only be laid on {', '.join(only)}", "tile_hex")
        old = h.tile
        if name not in self.upgrade_targets(h):
            msg, code = upgrade_refusal(old, new)
            raise IllegalAction(f"tile {name} cannot replace {old.name} on {hex_id}: {msg}", code)
        why = self._rotation_problem(h, new, rotation)
        if why:
            raise IllegalAction(f"tile {name} in rotation {rotation} on {hex_id}: {why}", "rotation")
        if any(any(t is not None for t in slots) for slots in h.tokens):
            # a station is never lost to an upgrade: each city holding one needs a city on the new tile
            # (docs/rules-1825.md, "An upgrade keeps every station")
            kept = {oi for oi, _ in city_moves(old, h.rotation, new, rotation)}
            lost = [oi for oi, slots in enumerate(h.tokens) if oi not in kept and any(t is not None for t in slots)]
            if lost:
                who = ", ".join(t for oi in lost for t in h.tokens[oi] if t is not None)
                raise IllegalAction(f"tile {name} on {hex_id} has no city for the station of {who}", "station_lost")
        if h.tile_reservations or any(any(r is not None for r in slots) for slots in h.reservations):
            # nor a home not yet placed: a reserved city needs a city on the new tile
            # (docs/rules-1825.md, "An upgrade keeps every station", a reservation is a station to come)
            kept = {oi for oi, _ in city_moves(old, h.rotation, new, rotation)}
            who = [r for oi, slots in enumerate(h.reservations) if oi not in kept for r in slots if r is not None]
            if old.cities and not new.cities:  # (a hex reserved before it has a city, as NS's Q13, may wait)
                who += h.tile_reservations
            if who:
                raise IllegalAction(f"tile {name} on {hex_id} has no city for the home station reserved for "
                                    f"{', '.join(who)}", "home_lost")
        if must_connect:
            reach = self.reach(entity)
            if not (new.rexits[rotation] & reach.edges.get(hex_id, set())):
                raise IllegalAction(f"tile {name} on {hex_id} does not connect to {entity}'s track", "not_connected")
            self._check_restriction(entity, h, new, rotation)
        return LayResult(self._lay_cost(h, new, rotation), old.color != "white", old.name, name, new.color)

    def _lay_cost(self, h: HexState, new: TileDef, rotation: int) -> int:
        cost = h.tile.terrain_cost if h.tile.preprinted else 0
        old_exits = h.tile.rexits[h.rotation]
        for border in h.tile.borders if h.tile.preprinted else ():
            edge, bcost = border.get("edge"), border.get("cost")
            if bcost and edge in new.rexits[rotation] and edge not in old_exits:
                cost += int(bcost)
        return cost

    def _check_restriction(self, entity: str, h: HexState, new: TileDef, rotation: int) -> None:
        mode = self.rules.track_restriction
        old = h.tile
        old_paths = old.rpaths[h.rotation]
        if mode == "permissive" or not old_paths:
            return
        if mode == "station_restrictive" and any(n.is_stop for n in new.nodes):
            return
        from .upgrades import path_covers

        # the new tile's track that no old path covers: is any of it in the entity's reach after the lay?
        added = {pi for pi, np in enumerate(new.rpaths[rotation])
                 if not any(path_covers(p, np, old, new) for p in old_paths)}
        changed_city = False
        known = lay_reached(self, self.reach(entity), entity, h.id, new, rotation, added)
        if known:
            return  # decided on the board as it is, without the trial (`lay_reached`)
        used_new = False
        if known is None:
            with self.trial_lay(h.id, new, rotation):
                if self.reach_known(entity):  # this very lay tried before (`trial_lay` keeps its reaches)
                    used_new = any((h.id, pi) in self.reach(entity).paths for pi in added)
                else:  # the same answer as the whole reach's, mostly without walking it (`reaches_any_path`)
                    used_new = bool(added) and reaches_any_path(self, entity, h.id, added)
                self._reach = {}
        if mode in ("restrictive", "station_restrictive") and not used_new:
            raise IllegalAction(f"tile {new.name} on {h.id} must add track {entity} can use", "track_restriction")
        if mode == "semi_restrictive" and not used_new and not changed_city:
            raise IllegalAction(f"tile {new.name} on {h.id} must add usable track or change a city", "track_restriction")

    def legal_lays(self, entity: str, phase_colors: set[str] | list[str]) -> list[tuple[str, str, int]]:
        return [(hex_id, name, rot) for hex_id, name, rot, _ in self.legal_lay_results(entity, phase_colors)]

    def legal_lay_results(self, entity: str, phase_colors: set[str] | list[str],
                          hex_open: Callable[[str], bool] | None = None) -> list[tuple[str, str, int, LayResult]]:
        """Every (hex, tile name, rotation) the board accepts for the entity now, with its LayResult.
        `hex_open` rules hexes out before any tile is tried on them (the turn's lay allows no upgrade)."""
        colors = set(phase_colors)
        reach = self.reach(entity)
        out: list[tuple[str, str, int, LayResult]] = []
        for hex_id in sorted(reach.edges):
            if hex_open is not None and not hex_open(hex_id):
                continue
            h = self.hexes[hex_id]
            if any(b != entity for b in h.blockers):
                continue
            for name in sorted(self.upgrade_targets(h)):
                copy = self.supply.free_copy(name)
                if copy is None:
                    continue
                for rot in range(6):
                    try:
                        result = self.check_lay(entity, hex_id, f"{name}-{copy}", rot, colors)
                    except IllegalAction:
                        continue
                    out.append((hex_id, name, rot, result))
        return out

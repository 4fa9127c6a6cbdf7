"""Stations on the board: which city a city id names, home stations, which slot a station takes, the
checks on placing one, and where an entity could place one now. A part of `Board` (its mixin), apart from
tiles and reach, because station rules are asked about far more often than they change."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..errors import IllegalAction, MalformedAction
from .tiles import NODE_BASE
from .tokens import CityRef, free_slot, slot_refusal

if TYPE_CHECKING:
    from .grid import HexState, Reach
    from .rules import BoardRules


class Stations:
    # what the board holds that stations are about (set by `Board.__init__`)
    hexes: dict[str, HexState]
    rules: BoardRules
    _where: dict[tuple[str, int], str]  # (tile name, copy) -> the hex it lies on

    def reach(self, entity: str) -> Reach:
        raise NotImplementedError

    def hex(self, hex_id: str) -> HexState:
        raise NotImplementedError

    def forget_reach(self) -> None:
        raise NotImplementedError

    def reach_known(self, entity: str) -> bool:
        raise NotImplementedError

    def nodes_beside_stations(self, entity: str) -> Iterator[tuple[str, int]]:
        raise NotImplementedError

    def _forget_reach_at(self, hex_id: str, entity: str | None = None) -> None:
        raise NotImplementedError

    def locate_city(self, city_id: str) -> tuple[HexState, int]:
        """The hex a city id names and the city's index among its tile's cities (a city id names a placed
        tile by name and copy, and a part of its code, not a hex)."""
        ref = CityRef.parse(city_id)
        hex_id = self._where.get((ref.tile, ref.copy))
        if hex_id is None:
            raise MalformedAction(f"tile {ref.tile}-{ref.copy} of city {city_id} is not on the map", "city_id")
        h = self.hexes[hex_id]
        # the id's last number is the city's place among the parts of the tile's code (tiles.Node.part)
        ci = h.tile.part_city(ref.city)
        if ci is None or not 0 <= ci < len(h.tokens):
            raise MalformedAction(f"tile {h.tile.name} on {hex_id} has no city {ref.city}", "city_id")
        return h, ci


    def city_hex(self, city_id: str) -> str:
        return self.locate_city(city_id)[0].id

    def city_id(self, hex_id: str, city_index: int) -> str:
        h = self.hex(hex_id)
        return f"{h.tile.name}-{h.copy}-{h.tile.city_part(city_index)}"

    def home_city(self, entity: str, hex_id: str, city_index: int | None = None) -> str:
        """The city of the entity's home token: the city holding its reservation (which moves with the city's
        track when the hex is upgraded), else `city_index` (the setup's, a city of the tile the game began
        with), else the first city."""
        h = self.hex(hex_id)
        reserved = next((i for i, r in enumerate(h.reservations) if entity in r), None)
        if reserved is not None:
            city_index = reserved
        elif city_index is None:
            city_index = 0
        if not h.tokens:
            raise IllegalAction(f"{hex_id} has no city for {entity}'s home token", "home")
        return self.city_id(hex_id, city_index)

    def place_home_token(self, entity: str, hex_id: str, city_index: int | None = None) -> str:
        """Put the home token in its reserved (or first free) slot; returns the city id used."""
        city = self.home_city(entity, hex_id, city_index)
        h, ci = self.locate_city(city)
        slot = free_slot(h.tokens[ci], h.reservations[ci], entity)
        if slot is None:
            slot = next((i for i, s in enumerate(h.tokens[ci]) if s is None), None)
        if slot is None:
            raise IllegalAction(f"no free slot for {entity}'s home token on {hex_id}", "home")
        self.place_token(entity, city, slot)
        return city

    def settle_tile_reservation(self, hex_id: str) -> list[str]:
        """A hex reserved as a whole for a home station (no city when the game began) turns its reservation
        into a slot of its city once the hex holds exactly one city with a free slot for it: from then on
        that slot is kept for the home like any reserved slot. Returns whom it settled."""
        h = self.hex(hex_id)
        settled = []
        for entity in list(h.tile_reservations):
            open_cities = [ci for ci, slots in enumerate(h.tokens)
                           if entity not in slots and free_slot(slots, h.reservations[ci], entity) is not None]
            if len(open_cities) != 1:
                continue
            ci = open_cities[0]
            slot = free_slot(h.tokens[ci], h.reservations[ci], entity)
            assert slot is not None
            while slot >= len(h.reservations[ci]):
                h.reservations[ci].append(None)
            h.reservations[ci][slot] = entity
            h.tile_reservations.remove(entity)
            settled.append(entity)
        if settled:
            self.forget_reach()
        return settled

    def station_slot(self, entity: str, city_id: str, named: int) -> int:
        """The slot a new station takes. A city's slots are interchangeable, so the station goes into the
        entity's own reserved slot, else the first free unreserved one, whatever slot the move names; which
        slot holds which station still matters later (a removal names its slot; an upgrade closes the
        stations up in slot order), so every engine must agree on it. The named slot is kept only when
        none is free, so that the refusal names it (docs/rules-1840.md, "Which slot a station takes")."""
        h, ci = self.locate_city(city_id)
        if not 0 <= named < len(h.tokens[ci]):  # a slot the city does not have names no move at all
            raise IllegalAction(f"{city_id} on {h.id} has no slot {named} (slots 0-{len(h.tokens[ci]) - 1})",
                                "token_slot")
        chosen = free_slot(h.tokens[ci], h.reservations[ci], entity)
        return named if chosen is None else chosen

    def check_token(self, entity: str, city_id: str, slot: int, *, must_connect: bool = True) -> None:
        h, ci = self.locate_city(city_id)
        why = slot_refusal(h.tokens[ci], h.reservations[ci], entity, slot)
        if why:
            raise IllegalAction(f"{entity} cannot token {city_id} on {h.id}: {why}", "token_slot")
        if not self.rules.same_hex_tokens and any(entity in s for s in h.tokens):
            raise IllegalAction(f"{entity} already has a token on {h.id}", "token_same_hex")
        if must_connect and (h.id, h.tile.city_code(ci)) not in self.reach(entity).nodes:
            raise IllegalAction(f"{city_id} on {h.id} is not connected to {entity}'s network", "not_connected")

    def place_token(self, entity: str, city_id: str, slot: int) -> None:
        h, ci = self.locate_city(city_id)
        slots = h.tokens[ci]
        while slot >= len(slots):
            slots.append(None)
        slots[slot] = entity
        if slot < len(h.reservations[ci]) and h.reservations[ci][slot] == entity:
            h.reservations[ci][slot] = None
        if entity in h.tile_reservations:
            h.tile_reservations.remove(entity)
        if self.rules.blocks_end_on_first_token:
            self.remove_blocker(entity)
        self._forget_reach_at(h.id, entity)

    def token_hexes(self, entity: str) -> list[str]:
        return self.token_hexes_by_entity().get(entity, [])

    def token_hexes_by_entity(self) -> dict[str, list[str]]:
        """Each entity's station hexes, sorted, in one pass over the map (the digest asks for every
        corporation's)."""
        out: dict[str, list[str]] = {}
        for hid, h in self.hexes.items():
            for slots in h.tokens:
                for e in slots:
                    if e is not None:
                        out.setdefault(e, []).append(hid)
        for hexes in out.values():
            hexes.sort()
        return out

    def remove_tokens(self, entity: str) -> None:
        for h in self.hexes.values():
            for slots in h.tokens:
                for i, e in enumerate(slots):
                    if e == entity:
                        slots[i] = None
            for slots in h.reservations:
                for i, e in enumerate(slots):
                    if e == entity:
                        slots[i] = None
            if entity in h.tile_reservations:
                h.tile_reservations.remove(entity)
        self.forget_reach()

    def remove_blocker(self, entity: str) -> None:
        """The entity's blocking ability ended (private closed, etc.)."""
        for h in self.hexes.values():
            if entity in h.blockers:
                h.blockers.remove(entity)

    def _token_candidates(self, entity: str) -> Iterator[tuple[str, int, int]]:
        """(hex id, city index, slot) the entity could token now: connected, free, not reserved for others."""
        for hex_id, code in self.reach(entity).nodes:
            found = self._token_candidate(entity, hex_id, code)
            if found is not None:
                yield found

    def _token_candidate(self, entity: str, hex_id: str, code: int) -> tuple[str, int, int] | None:
        """(hex id, city index, slot) when the entity could token this node if it is connected."""
        h = self.hexes[hex_id]
        node = h.tile.nodes[code - NODE_BASE]
        if not node.is_city:
            return None
        if not self.rules.same_hex_tokens and any(entity in s for s in h.tokens):
            return None
        slot = free_slot(h.tokens[node.index], h.reservations[node.index], entity)
        return None if slot is None else (hex_id, node.index, slot)

    def reachable_token_cities(self, entity: str) -> list[tuple[str, int]]:
        """(city id, slot) pairs the entity could token now (connected, free, not reserved for others)."""
        return [(self.city_id(hex_id, index), slot)
                for hex_id, index, slot in sorted(self._token_candidates(entity))]

    def token_city_candidates(self, entity: str) -> Iterator[str]:
        """The city ids of `reachable_token_cities`, unordered and perhaps repeated, those beside a station
        first: they need no new reach walk, and a question that stops at the first city it likes (is there
        a station to place?) mostly stops there."""
        if not self.reach_known(entity):
            for hex_id, code in self.nodes_beside_stations(entity):
                found = self._token_candidate(entity, hex_id, code)
                if found is not None:
                    yield self.city_id(found[0], found[1])
        for hex_id, index, _ in self._token_candidates(entity):
            yield self.city_id(hex_id, index)

    def can_place_token(self, entity: str) -> bool:
        return next(self.token_city_candidates(entity), None) is not None

"""Station tokens: city ids, slots, reservations.

A city id names the tile copy, not the hex ("14-1-0", "S13-0-1" for a preprinted tile), because that is
what the record format uses; the Board resolves it to the hex where that copy lies now.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import MalformedAction


@dataclass(frozen=True)
class CityRef:
    tile: str
    copy: int
    city: int

    @classmethod
    def parse(cls, city_id: str) -> CityRef:
        parts = city_id.rsplit("-", 2)
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            raise MalformedAction(f"city id {city_id!r} is not '<tile>-<copy>-<city index>'", "city_id")
        return cls(parts[0], int(parts[1]), int(parts[2]))

    def __str__(self) -> str:
        return f"{self.tile}-{self.copy}-{self.city}"


def slot_refusal(slots: list[str | None], reserved: list[str | None], entity: str, slot: int) -> str | None:
    """Why `entity` may not put a token into `slot` of a city, or None."""
    if not 0 <= slot < len(slots):
        return f"the city has no slot {slot}"
    if entity in slots:
        return f"{entity} already has a token in this city"
    if slots[slot] is not None:
        return f"slot {slot} is taken by {slots[slot]}"
    owner = reserved[slot] if slot < len(reserved) else None
    if owner is not None and owner != entity:
        return f"slot {slot} is reserved for {owner}"
    return None


def free_slot(slots: list[str | None], reserved: list[str | None], entity: str) -> int | None:
    """The slot the entity would use: its reserved slot first, then the first unreserved free one."""
    for i, r in enumerate(reserved):
        if r == entity and slots[i] is None:
            return i
    for i, s in enumerate(slots):
        if s is None and (i >= len(reserved) or reserved[i] is None):
            return i
    return None

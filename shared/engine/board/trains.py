"""Train kinds as the route rules see them: how far a train may run and which stops it is paid for.

Built from a setup file's `trains` entries (and their `variants`), so the lead's train/depot code and the
route code share one definition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import DataError

UNLIMITED = 99


@dataclass(frozen=True)
class TrainPart:
    """One part of a split distance: up to `visit` stops of the listed kinds, `pay` of them paid."""

    nodes: tuple[str, ...]
    pay: int
    visit: int
    multiplier: int = 1


@dataclass(frozen=True)
class TrainKind:
    """A train type. `distance` is a stop count (every visited stop pays) or a tuple of parts."""

    name: str
    distance: int | tuple[TrainPart, ...]
    multiplier: int = 1

    @property
    def is_numeric(self) -> bool:
        return isinstance(self.distance, int)

    @property
    def stop_count(self) -> int:
        """Upper bound on stops (used by the auto-router to bound its search)."""
        if isinstance(self.distance, int):
            return self.distance
        return sum(p.visit for p in self.distance)

    @classmethod
    def from_setup(cls, entry: dict[str, Any]) -> TrainKind:
        name = entry.get("name")
        if not isinstance(name, str):
            raise DataError(f"train entry without a name: {entry!r}")
        return cls(name, parse_distance(name, entry.get("distance")), int(entry.get("multiplier") or 1))


def parse_distance(name: str, raw: Any) -> int | tuple[TrainPart, ...]:
    if isinstance(raw, int):
        return raw
    if isinstance(raw, list) and raw:
        parts = []
        for part in raw:
            try:
                parts.append(
                    TrainPart(
                        tuple(part["nodes"]),
                        int(part["pay"]),
                        int(part.get("visit", part["pay"])),
                        int(part.get("multiplier") or 1),
                    )
                )
            except (KeyError, TypeError, ValueError) as err:
                raise DataError(f"train {name}: bad distance part {part!r}") from err
        return tuple(parts)
    raise DataError(f"train {name}: bad distance {raw!r}")


def kinds_from_setup(trains: list[dict[str, Any]]) -> dict[str, TrainKind]:
    """Every train kind of a setup by name, variants (other card faces) included."""
    kinds: dict[str, TrainKind] = {}
    for entry in trains:
        kind = TrainKind.from_setup(entry)
        kinds[kind.name] = kind
        for variant in entry.get("variants") or []:
            merged = {**entry, **{k: v for k, v in variant.items() if v is not None}}
            merged.pop("variants", None)
            vk = TrainKind.from_setup(merged)
            kinds[vk.name] = vk
    return kinds


def train_name(train_id: str) -> str:
    """"3+D-2" -> "3+D": a train id is the kind name plus a copy number."""
    head, sep, tail = train_id.rpartition("-")
    return head if sep and tail.isdigit() else train_id

"""The train depot and the phases it drives: buying the first train of a kind can change the phase,
rust or obsolete older trains, and open new tile colours."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model import Train


@dataclass(frozen=True)
class Phase:
    name: str
    on: str | None
    train_limit: int
    tiles: tuple[str, ...]
    operating_rounds: int
    status: tuple[str, ...] = ()


def phases_from(spec: list[dict[str, Any]]) -> list[Phase]:
    out = []
    for raw in spec:
        limit = raw["train_limit"]
        if isinstance(limit, dict):  # per corporation type; the core uses the largest
            limit = max(limit.values())
        out.append(
            Phase(raw["name"], raw.get("on"), int(limit), tuple(raw["tiles"]), int(raw["operating_rounds"]),
                  tuple(raw.get("status") or ()))
        )
    return out


def trains_from(spec: list[dict[str, Any]]) -> list[Train]:
    """All train cards in depot order (the order they will be sold)."""
    trains: list[Train] = []
    for raw in spec:
        count = raw["count"]
        if count == "unlimited":
            count = 1
        for copy in range(int(count)):
            trains.append(
                Train(
                    id=f"{raw['name']}-{copy}",
                    name=raw["name"],
                    distance=raw["distance"],
                    price=raw["price"],
                    rusts_on=raw.get("rusts_on"),
                    obsolete_on=raw.get("obsolete_on"),
                    available_on=raw.get("available_on"),
                    multiplier=raw.get("multiplier", 1),
                    events=list(raw.get("events") or []),
                )
            )
    return trains


@dataclass
class Depot:
    """Trains not yet sold (in sale order) and trains handed back to the bank."""

    trains: list[Train]
    discarded: list[Train] = field(default_factory=list)

    def by_id(self, train_id: str) -> Train | None:
        for train in self.trains:
            if train.id == train_id:
                return train
        return None

    def upcoming(self) -> list[Train]:
        return [t for t in self.trains if t.owner is None and not t.rusted and not t.reserved
                and t not in self.discarded]

    def available(self, phase_names: list[str], current_phase: int) -> list[Train]:
        """Trains the bank sells now: the next card of the depot (and others of that kind) plus discards.

        A kind with `available_on` can be bought early once that phase is reached, as the minors need.
        """
        upcoming = self.upcoming()
        if not upcoming:
            return list(self.discarded)
        first = upcoming[0]
        out = [t for t in upcoming if t.name == first.name][:1]
        seen = {first.name}
        for train in upcoming:
            if train.name in seen:
                continue
            seen.add(train.name)
            if train.available_on and train.available_on in phase_names[: current_phase + 1]:
                out.append(train)
        return out + list(self.discarded)

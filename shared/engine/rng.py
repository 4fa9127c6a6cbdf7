"""The reference service's seeded generator, reproduced exactly so random set-up steps replay identically."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
MODULUS = 2**31


class Rng:
    """Linear congruential generator: state <- (1103515245 * state + 12345) mod 2^31."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed % MODULUS

    def draw(self) -> int:
        self.state = (1103515245 * self.state + 12345) % MODULUS
        return self.state

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """Sort by random key: one draw per element in the list's current order, then a stable sort."""
        keyed = [(self.draw(), i) for i in range(len(items))]
        keyed.sort(key=lambda pair: pair[0])
        return [items[i] for _, i in keyed]

"""1825's stock round: only a purchase counts as acting. A turn that bought nothing ends as a pass (the
round ends when everyone has passed in succession), and only a purchase makes its player the last to act,
who sets the priority deal. Its step is `steps/stock.BuySellParShares1825`."""

from __future__ import annotations

from typing import Any

from ...core.stockround import PURCHASES, StockRound


class StockRound1825(StockRound):
    def sets_priority(self, action: dict[str, Any]) -> bool:
        return action["type"] in PURCHASES

    def turn_counts_as_action(self) -> bool:
        # only purchases keep the round going (and set the priority deal)
        return self.bought()

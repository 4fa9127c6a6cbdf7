"""Trains: the limit a corporation holds to, what the bank sells now, the price multiple trades keep to, and
what a new phase does. How a train is bought is its step's (`core/trains.BuyTrain`, subclassed by a title);
these stay hooks because more than one step, the game itself or the ranges of open prices ask them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model import Corporation, Train

if TYPE_CHECKING:
    from ...protocol import Game


class TrainRules:
    def limit_trains(self, game: Game, corp: Corporation) -> list[Train]:
        """The trains that count against the limit: always a subset of `corp.trains`."""
        return [t for t in corp.trains if not t.obsolete and not t.rusted]

    def train_limit(self, game: Game, corp: Corporation) -> int:
        return game.phase.train_limit

    def uniform_train_limit(self, game: Game) -> bool:
        """True when every corporation's limit is the phase's (`train_limit` unchanged), so a crowded
        corporation can be ruled out by counting its cards alone (`limit_trains` is always a subset of
        them). A title whose limit differs by corporation says False here beside its `train_limit`."""
        return True

    def room_for_train(self, game: Game, corp: Corporation) -> bool:
        return len(self.limit_trains(game, corp)) < game.train_limit(corp)

    def depot_trains_for(self, game: Game, corp: Corporation) -> list[Train]:
        avail = game.depot.available(game.defn.phase_names, game.phase_index)
        out: list[Train] = []
        names: set[str] = set()
        for train in avail:
            if train.name in names:
                continue
            names.add(train.name)
            out.append(train)
        return out

    def train_price_multiple(self, game: Game) -> int:
        """Trains change hands between corporations only at multiples of this (the data's
        TRAIN_PRICE_MULTIPLE: 1825 deals in whole £10s)."""
        return int(self.rule(game, "TRAIN_PRICE_MULTIPLE", 1))


    def phase_changed(self, game: Game) -> None:
        pass

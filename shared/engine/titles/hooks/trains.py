"""Trains: limits, what the depot and other corporations offer, prices, phases and forced sales of excess trains."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.operating import OperatingRound
from ...errors import IllegalAction
from ...model import Corporation, Train

if TYPE_CHECKING:
    from ...game import Game


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

    def other_trains(self, game: Game, corp: Corporation) -> list[Train]:
        out = []
        for other in game.corporations.values():
            if other is corp or other.closed:
                continue
            out.extend(t for t in other.trains if not t.rusted)
        return out

    def buy_train_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        if not self.room_for_train(game, corp):
            return []
        depot = [t for t in self.depot_trains_for(game, corp) if t.price <= corp.cash]
        others = self.other_trains(game, corp) if corp.cash >= 1 else []
        if depot or others:
            return ["buy_train", "pass"]
        return []

    def skip_buy_train(self, game: Game, round_: OperatingRound, corp: Corporation) -> None:
        pass

    def check_train_from_corporation(self, game: Game, buyer: Corporation, seller: Corporation, train: Train,
                                     price: int, purse: int) -> None:
        """`purse`: what the buyer may spend (its treasury, or more where a title lets its president help)."""
        if price < 1 or price > purse:
            raise IllegalAction(f"price {price} must be between 1 and {purse}", "train_price")
        self.check_train_price_multiple(game, price)

    def train_price_multiple(self, game: Game) -> int:
        """Trains change hands between corporations only at multiples of this (the data's
        TRAIN_PRICE_MULTIPLE: 1825 deals in whole £10s)."""
        return int(self.rule(game, "TRAIN_PRICE_MULTIPLE", 1))

    def check_train_price_multiple(self, game: Game, price: int) -> None:
        step = self.train_price_multiple(game)
        if price % step:
            raise IllegalAction(f"a train changes hands between corporations only at a multiple of {step}, "
                                f"not {price}", "train_price_multiple")

    def receivership_blocks_other_trains(self, game: Game, corp: Corporation) -> bool:
        return False

    def min_train_price_from_corporation(self, game: Game) -> int:
        return 1

    def may_buy_from(self, game: Game, buyer: Corporation, seller: Corporation) -> bool:
        return True

    def auto_action(self, game: Game) -> dict[str, Any] | None:
        """The next action nobody decides (the engine takes it in live play), or None."""
        return None

    def after_buy_train(self, game: Game, round_: OperatingRound, corp: Corporation, train: Train) -> None:
        pass

    def phase_changed(self, game: Game) -> None:
        pass

    def enforce_train_limit(self, game: Game, corp: Corporation) -> None:
        pass

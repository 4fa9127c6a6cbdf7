"""1825's trains: buying them (a corporation in receivership buys from the bank only, the cheapest train by
itself, and goes on buying; a minor's own train is never for sale) and handing them back over the limit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.operating import DiscardTrain, OperatingRound
from ....core.trains import BuyTrain
from ....errors import IllegalAction
from ....model import Corporation, Train
from ..state import in_receivership, silent_receivership

if TYPE_CHECKING:
    from ....core.rounds import Round
    from ....game import Game


class BuyTrain1825(BuyTrain):
    """The shared train step. A corporation in receivership (docs/rules-1825.md, "A corporation in
    receivership goes on buying trains") buys only from the bank, never passes while it can pay for two of
    the bank's trains, buys the cheapest it can pay for when the step settles with one left (`skip`), and
    goes on buying after a purchase of its acting player's choice. A minor's own train (set aside at
    set-up) is never for sale ("A minor's own train is never for sale")."""

    def buy_train_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        if in_receivership(corp):
            return [] if self.receivership_skip(game, corp) else ["buy_train"]
        if not game.rules.room_for_train(game, corp):
            return []
        prices = [t.price for t in game.rules.depot_trains_for(game, corp)]
        if self.other_trains(game, corp):
            prices.append(1)
        if prices and corp.cash >= min(prices):
            return ["buy_train", "pass"]
        return []

    @staticmethod
    def affordable_depot_trains(game: Game, corp: Corporation) -> list[Train]:
        return [t for t in game.rules.depot_trains_for(game, corp) if t.price <= corp.cash]

    def receivership_skip(self, game: Game, corp: Corporation) -> bool:
        """In receivership the step offers nothing (and settles, `skip`) with fewer than two of the bank's
        trains to choose from, no route, no room, or a minor that stays silent."""
        return (len(self.affordable_depot_trains(game, corp)) < 2 or not game.rules.route_available(game, corp)
                or not game.rules.room_for_train(game, corp) or silent_receivership(game, corp))

    def skip(self, game: Game, round_: Round) -> None:
        """Settled in receivership: the cheapest train the treasury pays for is bought at once."""
        assert isinstance(round_, OperatingRound)
        super().skip(game, round_)
        corp = round_.corp(game)
        if not in_receivership(corp) or silent_receivership(game, corp):
            return
        trains = self.affordable_depot_trains(game, corp)
        if trains and game.rules.route_available(game, corp) and game.rules.room_for_train(game, corp):
            game.buy_train_from_depot(corp, trains[0], trains[0].price)

    def other_trains(self, game: Game, corp: Corporation) -> list[Train]:
        # a corporation in receivership buys from the bank only; a minor's own train (set aside at set-up,
        # bought when it formed) is never for sale (rules-1825.md)
        if in_receivership(corp):
            return []
        return [t for t in super().other_trains(game, corp) if not t.reserved]

    def check_train_from_corporation(self, game: Game, buyer: Corporation, seller: Corporation, train: Train,
                                     price: int, purse: int) -> None:
        if train.reserved:
            raise IllegalAction(f"{seller.sym}'s {train.name} train is its own and not for sale", "train_owner")
        if in_receivership(buyer):
            raise IllegalAction(f"{buyer.sym} is in receivership and buys only from the bank", "receivership")
        low = self.min_train_price_from_corporation(game)
        if not low <= price <= purse:
            raise IllegalAction(f"price must be between {low} and {purse}", "train_price")
        self.check_train_price_multiple(game, price)

    def buy_train(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        super().buy_train(game, round_, action, trusted)
        if self.passed and in_receivership(game.corporations[action["entity"]]):
            self.passed = False  # settled next: the one train left it can pay for is bought at once (`skip`)


class DiscardTrain1825(DiscardTrain):
    """The shared discard step. A minor's own train handed back to the bank over the train limit is an
    ordinary train from then on: anyone may buy it from the bank, and its buyer may sell it on like any
    other train (docs/rules-1825.md, "A minor's own train is never for sale", *Once handed back*)."""

    def discard_train(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        own = [t for t in game.corporations[action["entity"]].trains if t.id == action.get("train")]
        super().discard_train(game, round_, action, trusted)
        for train in own:
            train.reserved = False

"""The operating round's train purchase: from the depot or another corporation.

The step is the one home of the purchase's rules: a title that buys differently subclasses `BuyTrain` and
overrides one of its methods (which moves are open, `buy_train_actions`; whose trains are for sale,
`other_trains` and `may_buy_from`; what buying the bank's train takes, `check_depot_train`; what a trade
between corporations may cost, `check_train_from_corporation`; what follows a purchase, `after_buy_train`;
what settling the step does, `skip`). What the bank sells now (`depot_trains_for`) and the train limit
(`room_for_train`) stay the title's, since other steps ask them too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import IllegalAction, MalformedAction
from ..model import Corporation, Train
from .operating import OperatingRound
from .rounds import Round, Step

if TYPE_CHECKING:
    from ..game import Game


def trains_of_others(game: Game, corp: Corporation) -> list[Train]:
    """Every running train of the other corporations still in play (what `BuyTrain.other_trains` offers
    unless a title says otherwise)."""
    out = []
    for other in game.corporations.values():
        if other is corp or other.closed:
            continue
        out.extend(t for t in other.trains if not t.rusted)
    return out


class BuyTrain(Step):
    handlers = {"buy_train": "buy_train", "pass": "pass_step"}
    offers = {"buy_train": "offer_buy_train", "pass": "offer_pass"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return []
        corp = game.corporations[entity]
        return self.buy_train_actions(game, round_, corp)

    def buy_train_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        """The step's moves open to the operating corporation: a purchase (and a pass) while it has room for
        a train and money for one of the bank's or another corporation's."""
        if not game.rules.room_for_train(game, corp):
            return []
        depot = [t for t in game.rules.depot_trains_for(game, corp) if t.price <= corp.cash]
        others = self.other_trains(game, corp) if corp.cash >= 1 else []
        if depot or others:
            return ["buy_train", "pass"]
        return []

    def pass_step(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        self.passed = True

    def other_trains(self, game: Game, corp: Corporation) -> list[Train]:
        """The trains of other corporations `corp` may be offered (each seller still asked, `may_buy_from`)."""
        return trains_of_others(game, corp)

    def may_buy_from(self, game: Game, buyer: Corporation, seller: Corporation) -> bool:
        return True

    def min_train_price_from_corporation(self, game: Game) -> int:
        """The least a train costs between corporations: the data's TRAIN_PRICE_MIN (1 when it says none)."""
        return int(game.rules.rule(game, "TRAIN_PRICE_MIN", 1))

    def offer_buy_train(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """The bank's trains it may pay for, and each other corporation's train it may buy at the lowest
        price allowed, at face value and for all its cash (the price is open between those limits)."""
        corp = game.corporations[entity]
        out: list[dict[str, Any]] = [{"train": t.id, "price": t.price, "variant": t.name}
                                     for t in game.rules.depot_trains_for(game, corp) if t.price <= corp.cash]
        low = self.min_train_price_from_corporation(game)
        step = game.rules.train_price_multiple(game)
        for train in self.other_trains(game, corp):
            seller = game.corporations[train.owner]  # type: ignore[index]
            if self.may_buy_from(game, corp, seller):
                for price in sorted({p - p % step for p in (low, min(train.price, corp.cash), corp.cash)}):
                    if low <= price <= corp.cash:
                        out.append({"train": train.id, "price": price})
        return out

    def check_purchase(self, game: Game, round_: OperatingRound, corp: Corporation, action: dict[str, Any],
                       purse: int | None = None) -> tuple[Train, Corporation | None]:
        """Every reason to refuse a purchase, asked before anything changes hands, so that `legal_actions`
        can ask the same question of each candidate without playing it. `purse` is what the buyer may
        spend when a title lets someone else help (its treasury otherwise). Returns the train and the
        selling corporation (None for the bank)."""
        purse = corp.cash if purse is None else purse
        train_id, price = action.get("train"), action.get("price")
        if not isinstance(train_id, str) or not isinstance(price, int):
            raise MalformedAction("buy_train needs train and price", "buy_train_shape")
        train = game.depot.by_id(train_id)
        if train is None:
            raise MalformedAction(f"unknown train {train_id!r}", "train_id")
        if not game.rules.room_for_train(game, corp):
            raise IllegalAction(f"{corp.sym} is at its train limit ({game.train_limit(corp)})", "train_limit")
        if train.owner is None:
            self.check_depot_train(game, corp, train, price, purse, action)
            return train, None
        seller = game.corporations.get(train.owner) if isinstance(train.owner, str) else None
        if seller is None or seller is corp or not self.may_buy_from(game, corp, seller):
            raise IllegalAction(f"train {train_id} cannot be bought from {train.owner}", "train_owner")
        self.check_train_from_corporation(game, corp, seller, train, price, purse)
        return train, seller

    def check_depot_train(self, game: Game, corp: Corporation, train: Train, price: int, purse: int,
                          action: dict[str, Any]) -> None:
        """Why the bank's `train` may not be bought at `price` (`purse`: what the buyer may spend)."""
        if train not in game.rules.depot_trains_for(game, corp):
            raise IllegalAction(f"train {train.id} is not for sale by the bank now", "train_unavailable")
        if price != train.price:
            raise IllegalAction(f"train {train.id} costs {train.price}, not {price}", "train_price")
        if purse < price:
            raise IllegalAction(f"{corp.sym} has {purse}, train {train.id} costs {price}", "cash")

    def check_train_from_corporation(self, game: Game, buyer: Corporation, seller: Corporation, train: Train,
                                     price: int, purse: int) -> None:
        """`purse`: what the buyer may spend (its treasury, or more where a title lets its president help)."""
        if price < 1 or price > purse:
            raise IllegalAction(f"price {price} must be between 1 and {purse}", "train_price")
        self.check_train_price_multiple(game, price)

    def check_train_price_multiple(self, game: Game, price: int) -> None:
        step = game.rules.train_price_multiple(game)
        if price % step:
            raise IllegalAction(f"a train changes hands between corporations only at a multiple of {step}, "
                                f"not {price}", "train_price_multiple")

    def buy_train(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        train, seller = self.check_purchase(game, round_, corp, action)
        if seller is None:
            game.buy_train_from_depot(corp, train, action["price"])
        else:
            game.move_train(train, seller, corp, action["price"])
        self.after_buy_train(game, round_, corp, train)
        if not self.buy_train_actions(game, round_, corp):
            self.passed = True

    def after_buy_train(self, game: Game, round_: OperatingRound, corp: Corporation, train: Train) -> None:
        """What follows a purchase (once the train is the buyer's); nothing by default."""

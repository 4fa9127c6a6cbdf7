"""The operating round's train purchase: from the depot or another corporation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import IllegalAction, MalformedAction
from ..model import Corporation, Train
from .operating import OperatingRound
from .rounds import Round, Step

if TYPE_CHECKING:
    from ..game import Game


class BuyTrain(Step):
    handlers = {"buy_train": "buy_train", "pass": "pass_step"}
    offers = {"buy_train": "offer_buy_train", "pass": "offer_pass"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game):
            return []
        corp = game.corporations[entity]
        return game.rules.buy_train_actions(game, round_, corp)

    def skip(self, game: Game, round_: Round) -> None:
        assert isinstance(round_, OperatingRound)
        self.passed = True
        game.rules.skip_buy_train(game, round_, round_.corp(game))

    def pass_step(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        self.passed = True

    def offer_buy_train(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """The bank's trains it may pay for, and each other corporation's train it may buy at the lowest
        price allowed, at face value and for all its cash (the price is open between those limits)."""
        corp = game.corporations[entity]
        out: list[dict[str, Any]] = [{"train": t.id, "price": t.price, "variant": t.name}
                                     for t in game.rules.depot_trains_for(game, corp) if t.price <= corp.cash]
        if game.rules.receivership_blocks_other_trains(game, corp):
            return out
        low = game.rules.min_train_price_from_corporation(game)
        step = game.rules.train_price_multiple(game)
        for train in game.rules.other_trains(game, corp):
            seller = game.corporations[train.owner]  # type: ignore[index]
            if game.rules.may_buy_from(game, corp, seller):
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
            if train not in game.rules.depot_trains_for(game, corp):
                raise IllegalAction(f"train {train_id} is not for sale by the bank now", "train_unavailable")
            if price != train.price:
                raise IllegalAction(f"train {train_id} costs {train.price}, not {price}", "train_price")
            if purse < price:
                raise IllegalAction(f"{corp.sym} has {purse}, train {train_id} costs {price}", "cash")
            return train, None
        seller = game.corporations.get(train.owner) if isinstance(train.owner, str) else None
        if seller is None or seller is corp or not game.rules.may_buy_from(game, corp, seller):
            raise IllegalAction(f"train {train_id} cannot be bought from {train.owner}", "train_owner")
        game.rules.check_train_from_corporation(game, corp, seller, train, price, purse)
        return train, seller

    def buy_train(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        train, seller = self.check_purchase(game, round_, corp, action)
        if seller is None:
            game.buy_train_from_depot(corp, train, action["price"])
        else:
            game.move_train(train, seller, corp, action["price"])
        game.rules.after_buy_train(game, round_, corp, train)
        if not game.rules.buy_train_actions(game, round_, corp):
            self.passed = True




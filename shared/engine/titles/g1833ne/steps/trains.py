"""1833NE's train steps: buying trains choosing a card's face, the emergency purchase of a corporation that
must own a train (its forced issues, its president's cash and the sales of his choice, bankruptcy), and the
discard of a train over the limit. The corporation's finance and shopping stay open while it buys
(`steps/finance.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.operating import DiscardTrain, OperatingRound
from ....core.rounds import Round
from ....core.trains import BuyTrain
from ....errors import EngineError, IllegalAction
from ....model import Corporation, Train
from .. import constants as K
from .. import emergency
from ..finance import emergency_plan, execute_plan, forced_issues, go_bankrupt, make_forced_issues
from ..operating import Operating1833
from ..state import state
from ..stock import sell_to_market, whole_certificates
from .finance import FINANCE_HANDLERS, FINANCE_OFFERS, CorporationFinance, rules_of

if TYPE_CHECKING:
    from ....game import Game


class DiscardStep(DiscardTrain):
    """The shared step (a crowded corporation hands back a train of its choice, at any point of the turn),
    choosing among the trains that count against the limit and forgetting the card's chosen face."""

    def discard_train(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        train = next((t for t in game.rules.limit_trains(game, corp) if t.id == action.get("train")), None)
        if train is None:
            raise IllegalAction(f"{corp.sym} has no train {action.get('train')} to discard", "discard_train")
        corp.trains.remove(train)
        train.owner = None
        state(game).faces.pop(train.id, None)
        game.depot.discarded.append(train)

    def offer_discard(self, game: Game, round_: Round, entity: str) -> list[dict[str, Any]]:
        return [{"train": t.id} for t in game.rules.limit_trains(game, game.corporations[entity])]


class TrainStep(CorporationFinance, BuyTrain):
    """Buy trains choosing a card face; a corporation without trains must buy one, by emergency if needed.

    The core step's checks of a purchase (`BuyTrain.check_purchase`) hold, with 1833NE's own rules where
    they differ (digest, "Trains" and "Emergency"): the bank sells a card at the price of the side chosen
    (`check_depot_train`); an obsolete train "cannot be sold to another corporation", and a corporation that
    must buy a train it cannot pay buys it from the bank (`check_train_from_corporation`), in an emergency
    purchase (`buy_train`)."""

    handlers = {"buy_train": "buy_train", "pass": "pass_step", "bankrupt": "bankrupt", **FINANCE_HANDLERS}
    offers = {"buy_train": "offer_buy_train", "pass": "offer_pass", "bankrupt": "offer_bankrupt",
              **FINANCE_OFFERS, "sell_shares": "offer_sell_shares"}

    # -- the cards on sale ---------------------------------------------------------------------------------
    @staticmethod
    def faces(game: Game, card: str) -> list[tuple[str, int]]:
        """(face name, price) of a card; the first face is the card's own name."""
        for raw in game.defn.data.setup["trains"]:
            if raw["name"] == card:
                price = K.LAST_TRAIN_PRICE if card == "7+3" else raw["price"]
                return [(card, price)] + [(v["name"], v["price"]) for v in raw.get("variants") or []]
        return []

    @classmethod
    def depot_faces(cls, game: Game) -> list[tuple[Train, str, int]]:
        """(card, face, price) of each face of each card the bank sells now."""
        out = []
        for train in game.rules.depot_trains_for(game, None):  # type: ignore[arg-type]
            for face, price in cls.faces(game, train.name):
                out.append((train, face, price))
        return out

    @classmethod
    def affordable_faces(cls, game: Game, corp: Corporation) -> list[tuple[Train, str, int]]:
        return [f for f in cls.depot_faces(game) if f[2] <= corp.cash]

    @classmethod
    def check_depot_purchase(cls, game: Game, corp: Corporation, train: Train, price: int, variant: Any) -> str:
        """The face (`variant`) a card from the bank is bought as, refused unless on sale at that price."""
        if train not in game.rules.depot_trains_for(game, corp):
            raise IllegalAction(f"train {train.id} is not for sale by the bank now", "train_unavailable")
        faces = dict(cls.faces(game, train.name))
        face = train.name if variant is None else variant
        if face not in faces:
            raise IllegalAction(f"card {train.name} has faces {', '.join(faces)}, not {variant!r}", "train_variant")
        if price != faces[face]:
            raise IllegalAction(f"the {face} costs {faces[face]}, not {price}", "train_price")
        return face

    @staticmethod
    def must_buy_train(game: Game, corp: Corporation) -> bool:
        """A corporation left with no train but obsolete ones must buy one (the build step asks it too)."""
        return not any(not t.rusted and not t.obsolete for t in corp.trains)

    @classmethod
    def duty_faces(cls, game: Game) -> list[tuple[Train, str, int]]:
        """The faces on sale that meet the duty to own a train: an obsolete train handed back to the bank
        does not (seed: the duty counts trains left "after ... de verouderde treinen heeft verwijderd")."""
        return [f for f in cls.depot_faces(game) if not f[0].obsolete]

    @classmethod
    def cheapest(cls, game: Game) -> tuple[str, int] | None:
        """The cheaper of the train types on sale (the only one the president's money may help to buy)."""
        faces = cls.duty_faces(game)
        if not faces:
            return None
        _, face, price = min(faces, key=lambda f: f[2])
        return face, price

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, Operating1833)
        if entity != round_.current_entity(game) or entity not in game.corporations:
            return []
        corp = game.corporations[entity]
        rules = rules_of(game)
        if corp.closed:
            return []
        if self.must_buy_train(game, corp):
            cheapest = self.cheapest(game)
            if cheapest is None:
                return []
            if corp.cash >= cheapest[1]:
                return ["buy_train"] + self.finance_actions(game, round_, corp)
            plan = emergency_plan(game, corp, cheapest[1], round_.sales_this_turn())
            if plan is None:
                return ["bankrupt"]
            # when his cash falls short too, the president first sells shares of his choice
            return ["sell_shares"] if plan.sales else ["buy_train"]
        if not rules.room_for_train(game, corp):
            return []
        out: list[str] = []
        if self.affordable_faces(game, corp) or self.used_trains(game, corp):
            out.append("buy_train")
        out.extend(self.finance_actions(game, round_, corp))
        if out:
            out.extend(self.shopping_actions(game, corp))  # a corporation that must buy a train spends on nothing else
            out.append("pass")
        return out

    def skip(self, game: Game, round_: Round) -> None:
        self.passed = True

    def other_trains(self, game: Game, corp: Corporation) -> list[Train]:
        """An obsolete train is not sold to another corporation (it only runs once more for its owner)."""
        return [t for t in super().other_trains(game, corp) if not t.obsolete]

    def used_trains(self, game: Game, corp: Corporation) -> list[Train]:
        """The other corporations' trains `corp` may buy: any of them, for at least 1."""
        return self.other_trains(game, corp) if corp.cash >= 1 else []

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        """Why buying a train (or declaring bankruptcy) is closed now."""
        assert isinstance(round_, Operating1833)
        kind, sym = action["type"], action.get("entity")
        if kind not in ("buy_train", "bankrupt", "pass") or sym not in game.corporations \
                or sym != round_.current_entity(game):
            return None
        corp = game.corporations[sym]
        rules = rules_of(game)
        if kind == "pass":
            if round_.active_step(game) is self and self.must_buy_train(game, corp):
                return IllegalAction(f"{corp.sym} has no train and must buy one before its turn ends",
                                     "must_buy_train")
            return None
        if kind == "bankrupt":
            if self.must_buy_train(game, corp):
                return IllegalAction(f"{corp.sym} can still raise the money for a train (treasury, share issues, "
                                     "its president's cash and shares)", "not_bankrupt")
            return IllegalAction(f"{corp.sym} has a train: bankruptcy comes only from a train it must buy and "
                                 "cannot pay", "not_bankrupt")
        if self.passed:
            return IllegalAction(f"{corp.sym} has finished buying trains this turn", "trains_over")
        if round_.active_step(game) is not self:
            return IllegalAction(f"trains are bought after running and paying: {corp.sym} has not done so yet",
                                 "trains_later")
        if not rules.room_for_train(game, corp):
            return IllegalAction(f"{corp.sym} is at its train limit ({game.train_limit(corp)}; obsolete trains "
                                 "do not count)", "train_limit")
        cheapest = self.cheapest(game)
        if cheapest is not None and "sell_shares" in self.actions(game, round_, sym) and self.in_emergency(game, corp):
            _, lack = emergency.shortfall(game, corp, cheapest[1])
            return IllegalAction(f"{corp.sym}'s treasury, forced share issues and its president's cash fall {lack} "
                                 f"short of the {cheapest[0]}: its president first sells shares of his choice "
                                 "(sell_shares)", "emergency_sale")
        if cheapest is not None and self.must_buy_train(game, corp):
            return IllegalAction(f"{corp.sym} cannot raise {cheapest[1]} for the {cheapest[0]} (treasury, forced "
                                 "share issues, its president's cash and shares): its president must declare "
                                 "bankruptcy", "emergency")
        if cheapest is not None:
            return IllegalAction(f"{corp.sym} has {corp.cash}; the cheapest train ({cheapest[0]}) costs "
                                 f"{cheapest[1]} and no other corporation has a train to sell", "cash")
        return None

    def in_emergency(self, game: Game, corp: Corporation) -> tuple[str, int] | None:
        """The cheapest train (face, price) when `corp` must buy one and cannot pay it from its treasury."""
        cheapest = self.cheapest(game)
        if cheapest is None or not self.must_buy_train(game, corp) or corp.cash >= cheapest[1]:
            return None
        return cheapest

    def finance(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        assert isinstance(round_, Operating1833)
        if action["type"] == "sell_shares" and self.in_emergency(game, game.corporations[action["entity"]]):
            raise IllegalAction("in an emergency the corporation's issues are the forced ones, made before its "
                                "president's first sale; its president now sells shares of his own", "emergency_issue")
        super().finance(game, round_, action, trusted)

    def emergency_sell(self, game: Game, round_: Operating1833, action: dict[str, Any]) -> None:
        """The president sells shares of his choice for his corporation's train (issue 45, R3): the forced
        issues first, then his sale, moving each price once in the turn."""
        corp = round_.corp(game)
        player = game.player(action["entity"])
        cheapest = self.in_emergency(game, corp)
        if cheapest is None or round_.active_step(game) is not self \
                or "sell_shares" not in self.actions(game, round_, corp.sym):
            raise IllegalAction(f"{player.name} sells shares in an operating round only when {corp.sym}, his "
                                "corporation, must buy a train its treasury, forced issues and his cash cannot pay",
                                "emergency_sale")
        bundle = whole_certificates(game, action)
        turn = round_.sales_this_turn()
        refusal = emergency.sale_refusal(game, corp, cheapest[1], turn, player, bundle)
        if refusal is not None:
            raise refusal
        issues, _ = emergency.shortfall(game, corp, cheapest[1])
        make_forced_issues(game, corp, issues)
        sell_to_market(game, player, bundle, turn)

    def check_depot_train(self, game: Game, corp: Corporation, train: Train, price: int, purse: int,
                          action: dict[str, Any]) -> None:
        """A card is bought at the price of the face chosen (`variant`); one that would not meet the duty to
        own a train is refused to a corporation that must buy one, and a purchase the treasury cannot pay is
        an emergency purchase (`buy_train`) or refused."""
        face = self.check_depot_purchase(game, corp, train, price, action.get("variant"))
        must = self.must_buy_train(game, corp)
        if train.obsolete and must:
            raise IllegalAction(f"an obsolete train does not meet the duty to own a train: {corp.sym} must buy "
                                "one that is not obsolete", "train_obsolete")
        if purse < price and not must:
            raise IllegalAction(f"{corp.sym} has {purse}, the {face} costs {price}", "cash")

    def check_train_from_corporation(self, game: Game, buyer: Corporation, seller: Corporation, train: Train,
                                     price: int, purse: int) -> None:
        """The core's price range, after 1833NE's two refusals: an obsolete train is not sold (digest: it
        "cannot be sold to another corporation"), and the emergency purchase is the bank's."""
        if train.obsolete:
            raise IllegalAction("an obsolete train cannot be sold", "train_obsolete")
        if self.must_buy_train(game, buyer) and price > buyer.cash:
            raise IllegalAction("an emergency purchase is from the bank only", "emergency_depot")
        super().check_train_from_corporation(game, buyer, seller, train, price, purse)

    def buy_train(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        """The core step's checks (`check_purchase`), then the emergency: a corporation that must buy a train
        its treasury cannot pay makes its forced issues and takes its president's cash (`emergency_plan`)."""
        assert isinstance(round_, Operating1833)
        corp = game.corporations[action["entity"]]
        train, seller = self.check_purchase(game, round_, corp, action)
        price: int = action["price"]
        if seller is not None:
            game.move_train(train, seller, corp, price)
        else:
            variant = action.get("variant")
            face = train.name if variant is None else variant
            if corp.cash < price:  # only a corporation that must buy a train gets here (`check_depot_train`)
                cheapest = self.cheapest(game)
                assert cheapest is not None
                plan = emergency_plan(game, corp, price, round_.sales_this_turn())
                if plan is None:
                    raise IllegalAction(f"{corp.sym} cannot raise {price} for the {face}", "emergency")
                if plan.president_cash + plan.sales_total > 0 and price > cheapest[1]:
                    raise IllegalAction(f"the president's money may only buy the cheapest train "
                                        f"({cheapest[0]} at {cheapest[1]})", "emergency_cheapest")
                if plan.sales:
                    lack = emergency.shortfall(game, corp, price)[1]
                    raise IllegalAction(f"{corp.sym} is {lack} short: its president first sells shares of his "
                                        "choice (sell_shares)", "emergency_sale")
                execute_plan(game, corp, plan)
            state(game).faces[train.id] = face
            game.buy_train_from_depot(corp, train, price)
        round_.bought_trains += 1
        if not self.actions(game, round_, corp.sym) or self.actions(game, round_, corp.sym) == ["pass"]:
            self.passed = True

    def bankrupt(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        if "bankrupt" not in self.actions(game, round_, corp.sym):
            raise IllegalAction(f"{corp.sym} can still raise the money for a train", "not_bankrupt")
        # the seed's order: the treasury, then the forced issues (they fall short, so all the limits allow),
        # then the president's cash and shares; only what is still missing makes him bankrupt
        cheapest = self.cheapest(game)
        assert cheapest is not None
        make_forced_issues(game, corp, forced_issues(game, corp, cheapest[1] - corp.cash)[0])
        go_bankrupt(game, corp, round_.sales_this_turn())
        if corp.closed or not self.actions(game, round_, corp.sym):
            self.passed = True

    # -- offers --------------------------------------------------------------------------------------------
    def offer_buy_train(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """In an emergency, the cheapest face and a dearer one the treasury and the forced issues pay without
        the president's money (seed: his money may not buy the dearer type); otherwise each face the treasury
        pays (none that would not meet a duty to own a train) and, unless it must buy one, each other
        corporation's train at 1 and at all its cash (legal-actions states the range between)."""
        assert isinstance(round_, Operating1833)
        corp = game.corporations[entity]
        out: list[dict[str, Any]] = []
        cheapest = self.in_emergency(game, corp)
        if cheapest is not None:
            for train, face, price in sorted(self.duty_faces(game), key=lambda f: f[2]):
                plan = emergency_plan(game, corp, price, round_.sales_this_turn())
                if price == cheapest[1] or (plan is not None and plan.president_cash + plan.sales_total == 0):
                    out.append({"train": train.id, "price": price, "variant": face})
            return out
        must = self.must_buy_train(game, corp)
        for train, face, price in self.affordable_faces(game, corp):
            if must and train.obsolete:
                continue  # it would not meet the duty
            out.append({"train": train.id, "price": price, "variant": face})
        if not must:
            for train in self.used_trains(game, corp):
                for price in sorted({1, corp.cash}):
                    out.append({"train": train.id, "price": price})
        return out

    def offer_sell_shares(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """In an emergency, the president's sales of his choice (`emergency.sale_options`); otherwise the
        corporation's issues."""
        assert isinstance(round_, Operating1833)
        corp = game.corporations[entity]
        cheapest = self.in_emergency(game, corp)
        if cheapest is not None:
            return emergency.sale_options(game, corp, cheapest[1], round_.sales_this_turn())
        return self.offer_issue(game, round_, entity)

    def offer_bankrupt(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        return [{}]

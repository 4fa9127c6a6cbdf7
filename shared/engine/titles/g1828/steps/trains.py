"""Trains: buying them (with the president's money and emergency sales when one must be bought), trains
over the limit, a System arranging its trains between its two shells, and the bankruptcy that ends the
game when even that cannot pay for a train."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.operating import DiscardTrain, OperatingRound
from ....core.rounds import Round, Step
from ....core.shares import Bundle, parse_bundle
from ....core.trains import BuyTrain
from ....errors import IllegalAction, accepts
from ....model import POOL
from ..state import state
from ..stock import sell_to_market
from ..systems import add_to_shell, is_system, shells, shells_with_room

if TYPE_CHECKING:
    from ....game import Game
    from ....model import Corporation, Player, Train

Option = dict[str, Any]


class BuyTrain1828(BuyTrain):
    """Buying trains as in 1830: a corporation without a train that has a route must buy one; its
    president pays what the treasury lacks for the cheapest depot train, and during the step may sell
    shares whenever he and the treasury together lack money for the cheapest depot train, whether or not
    the corporation must buy (gen1828_5p_286529 index 598 sells with both shells running), no more than
    that lack needs (`sale_needed`), never the presidency of the buying corporation (rules-1828.md,
    "Emergency sales"). The sales are the round's to take (`OperatingRound1828.process`, while this step
    blocks); this step offers them (`sell_shares`)."""

    offers = {"buy_train": "offer_buy_train", "pass": "offer_pass", "sell_shares": "offer_emergency_sales"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, OperatingRound)
        if entity != round_.current_entity(game) or entity not in game.corporations:
            return []
        return self.own_actions(game, round_, game.corporations[entity])

    def own_actions(self, game: Game, round_: OperatingRound, corp: Any) -> list[str]:
        """What the operating corporation may still do here, even while another corporation discards the
        trains its purchase put over the limit (gen1828_4p_612537 index 442: NYC-NKP buys on after
        GT-CPR's discards)."""
        out = self.buy_train_actions(game, round_, corp)
        if self.must_buy(game, corp):
            return ["buy_train"]
        if not out and self.may_contribute(game, corp) and game.rules.room_for_train(game, corp):
            # a System's empty shell may be filled with the president's help; the step waits for the
            # president's decision even when no train is within reach; after a sale of his in this step
            # it waits for a train (rules-1828.md, "After an emergency sale": no pass)
            if getattr(self, "sold_unbought", False):
                return ["buy_train"]
            return ["buy_train", "pass"] if self.within_reach(game, corp) else ["pass"]
        if "buy_train" in out and not self.within_reach(game, corp, helped=False):
            # nothing affordable and no help from the president: the step has nothing to offer and the
            # turn goes on by itself (rules-1828.md, "The buy-train step ends by itself")
            rest = [kind for kind in out if kind not in ("buy_train", "pass")]
            return [*rest, "pass"] if rest else []
        return out

    def buy_train_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        if corp.kind == "minor":
            return []  # the C&P keeps its one 2-train
        return super().buy_train_actions(game, round_, corp)

    def may_buy_from(self, game: Game, buyer: Corporation, seller: Corporation) -> bool:
        return seller.kind != "minor"  # the C&P's 2-train never changes hands

    @staticmethod
    def must_buy(game: Game, corp: Any) -> bool:
        """No train while a route exists."""
        if corp.kind == "minor" or not game.depot.upcoming() or corp.trains:
            return False
        return game.rules.route_available(game, corp)

    def may_contribute(self, game: Game, corp: Any, shell: str | None = None) -> bool:
        """The president may pay towards a train when the corporation must buy one, or when a System buys
        for a shell without a train (`shell`: the one the train goes into; None: any), and only while the
        treasury cannot pay for the cheapest depot train."""
        if corp.cash >= self.cheapest(game, corp) and game.depot.upcoming():
            return False
        if self.must_buy(game, corp):
            return True
        if not is_system(game, corp) or not game.depot.upcoming():
            return False
        fleets = shells(game, corp)
        return not fleets.get(shell) if shell is not None else not all(fleets.values())

    def within_reach(self, game: Game, corp: Any, helped: bool = True) -> bool:
        """The treasury (with the president's money when `helped`) can pay for the cheapest depot train, or
        for another corporation's train."""
        president = game.rules.acting_player_for(game, corp)
        purse = corp.cash + (game.player(president).cash if helped and president is not None else 0)
        low = self.min_train_price_from_corporation(game)
        return purse >= self.cheapest(game, corp) or (purse >= low and any(
            self.may_buy_from(game, corp, game.corporations[t.owner])
            for t in self.other_trains(game, corp)))

    @staticmethod
    def cheapest(game: Game, corp: Any) -> int:
        return min((t.price for t in game.rules.depot_trains_for(game, corp)), default=0)

    def setup(self, game: Game, round_: Round) -> None:
        super().setup(game, round_)
        self.last_sold_price: int | None = None  # the share price of the president's last sale in the step
        self.sold_unbought = False  # the president has sold in this step and no train was bought since

    def sale_range(self, game: Game, corp: Any, train: Any) -> tuple[int, int] | None:
        """After the president sold shares in this step, a train from another corporation costs at least
        what the treasury and the president hold less one share of that last sale, plus $1 (the sale was
        needed), and at most its face value and what they hold (rules-1828.md, "After an emergency sale")."""
        sold = getattr(self, "last_sold_price", None)
        president = game.rules.acting_player_for(game, corp)
        if sold is None or train.owner is None or president is None:
            return None
        purse = corp.cash + game.player(president).cash
        return purse - sold + 1, min(train.price, purse)

    def check_purchase(self, game: Game, round_: OperatingRound, corp: Any, action: dict[str, Any],
                       purse: int | None = None) -> tuple[Any, Any]:
        """The shared checks, with the president's help counted in the purse, and a System's shell."""
        if is_system(game, corp):
            self.shell(game, corp, action)
        train = game.depot.by_id(str(action.get("train")))
        price = action.get("price")
        limits = self.sale_range(game, corp, train) if train is not None else None
        if limits is not None and isinstance(price, int) and not limits[0] <= price <= limits[1]:
            raise IllegalAction(f"after the sale {corp.sym} may spend only between {limits[0]} and {limits[1]} "
                                f"on {train.id}", "train_price")
        if purse is None and train is not None and isinstance(price, int) and price > corp.cash:
            shell = self.shell(game, corp, action) if is_system(game, corp) else None
            purse = corp.cash + self._contribution(game, corp, train, price, shell)
        return super().check_purchase(game, round_, corp, action, purse)

    @staticmethod
    def shell(game: Game, corp: Any, action: dict[str, Any]) -> str:
        room = shells_with_room(game, corp)
        shell = action.get("shell") or (room[0] if room else None)
        if shell not in room:
            raise IllegalAction(f"{corp.sym}'s shell {shell} has no room for a train", "train_limit")
        return shell

    def buy_train(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        train, _ = self.check_purchase(game, round_, corp, action)
        shell = self.shell(game, corp, action) if is_system(game, corp) else None
        price = action["price"]
        if price > corp.cash:
            president = game.player(game.rules.acting_player_for(game, corp))
            game.pay(president, corp, price - corp.cash)
        super().buy_train(game, round_, action, trusted)
        self.sold_unbought = False
        # whether the step outlives discards is judged before the new train takes its shell's place
        goes_on = self.open_after_purchase(game, corp)
        if shell is not None:
            add_to_shell(game, corp, shell, train.id)
        # trains over a limit are discarded first; a step still open is asked again after the discards, when
        # a shell they emptied may take another train (rules-1828.md, "After the discards")
        if round_.crowded(game):
            self.passed = not goes_on
        else:
            self.passed = not self.own_actions(game, round_, corp)

    def after_buy_train(self, game: Game, round_: OperatingRound, corp: Corporation, train: Train) -> None:
        """A founding private closes at its corporation's (or System's) first train; the first train of a
        kind fires its events; the last D sold brings another (D trains are unlimited)."""
        rules: Any = game.rules  # Rules1828 (the package's rules.py imports this module)
        rules.close_at_first_train(game, state(game).systems.get(corp.sym, [corp.sym]))
        done = state(game).events_done
        if train.name not in done:
            done.append(train.name)
            for event in train.events:
                rules.fire_event(game, event["type"] if isinstance(event, dict) else str(event))
        if train.name == "D" and not game.depot.upcoming():
            rules.add_diesel(game)

    def open_after_purchase(self, game: Game, corp: Any) -> bool:
        """At a purchase that forces discards: the step stays open when a shell had room under the new limit
        before the bought train was placed and the treasury can pay the cheapest train on offer (another
        major's at $1), or when a System's shell is empty (rules-1828.md, "After the discards")."""
        others = any(c.trains for c in game.corporations.values() if c is not corp and c.kind == "major"
                     and not c.closed)
        least = 1 if others else self.cheapest(game, corp)
        if not is_system(game, corp):
            # 1828.Games 23366 index 306: NYH, $340 left after its 3+D, buys NYC's 3 for $280 once NYC discarded
            return game.rules.room_for_train(game, corp) and corp.cash >= least
        if any(not trains for trains in shells(game, corp).values()):
            return True
        return bool(shells_with_room(game, corp)) and corp.cash >= least

    def _contribution(self, game: Game, corp: Any, train: Any, price: int, shell: str | None = None) -> int:
        """What the president must pay towards `price`, or why they may not."""
        if not self.may_contribute(game, corp, shell):
            raise IllegalAction(f"{corp.sym} has {corp.cash}, train {train.id} costs {price}; its president "
                                "pays only for a train it must have (a System: for a shell without one)", "cash")
        if train.owner is None and price != self.cheapest(game, corp):
            raise IllegalAction("with the president's money only the cheapest train may be bought", "ebuy_cheapest")
        if train.owner is not None and price > train.price:
            raise IllegalAction("with the president's money a train is bought at most at face value", "train_price")
        president = game.player(game.rules.acting_player_for(game, corp))
        need = price - corp.cash
        if president.cash < need:
            raise IllegalAction(f"{president.name} has {president.cash}, {need} is needed", "cash")
        return need

    def emergency_sell(self, game: Game, round_: OperatingRound, action: dict[str, Any]) -> None:
        player, sold, bundle = self.check_emergency_sale(game, round_, action)
        price = game.share_price(sold)
        assert price is not None
        value = price * bundle.percent // 10
        sell_to_market(game, bundle, player.id)
        game.pay(None, player, value)
        self.last_sold_price = price
        self.sold_unbought = True
        game.rules.after_sell_shares(game, sold, bundle)

    def check_emergency_sale(self, game: Game, round_: OperatingRound, action: dict[str, Any]
                             ) -> tuple[Player, Corporation, Bundle]:
        """Every refusal of an emergency sale (`emergency_sell`), asked without selling: the seller, the
        corporation sold and the bundle. Past these checks the sale goes through (`sell_to_market` refuses
        only a president's certificate nobody can take over, checked here over the same players), so the
        offers ask this instead of trying each sale on a copy."""
        corp = round_.corp(game)
        player = game.player(action["entity"])
        if player.id != game.rules.acting_player_for(game, corp):
            raise IllegalAction(f"only {corp.sym}'s president may sell shares now", "not_your_turn")
        bundle = parse_bundle(game.corporations, action.get("shares"), action.get("percent"))
        sold = bundle.corporation
        if any(s.owner != player.id for s in bundle.shares):
            raise IllegalAction(f"{player.name} does not hold all of {action.get('shares')}", "sell_not_owned")
        if not sold.ipoed or game.share_price(sold) is None:
            # a share of a corporation not yet started (M&H's exchange) has no price: it cannot be sold
            raise IllegalAction(f"{sold.sym} has no share price yet", "sell_shares")
        if bundle.includes_president:
            # another corporation's certificate may go when another player can take the presidency over
            # (gen1828_3p_544675 index 344); the train buyer's presidency is kept below
            others = max((sold.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
            if sold is corp or others < sold.shares[0].percent:
                raise IllegalAction("a president's certificate goes only to a player who can take it over",
                                    "sell_shares")
        if not self.sale_needed(game, corp, player, bundle):
            raise IllegalAction(f"{player.name} and {corp.sym} need no more money for the cheapest train "
                                f"(${self.cheapest(game, corp)}) than a smaller sale brings", "sell_shares")
        if sold.percent_owned_by(POOL) + bundle.percent > game.rules.market_share_limit(game):
            raise IllegalAction(f"the market may hold at most {game.rules.market_share_limit(game)}% of {sold.sym}",
                                "sell_shares")
        if sold is corp:
            others = max((sold.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
            if sold.percent_owned_by(player.id) - bundle.percent < others:
                raise IllegalAction(f"{player.name} may not give up the presidency of {corp.sym}", "sell_shares")
        return player, sold, bundle


    def sale_needed(self, game: Game, corp: Any, player: Any, bundle: Bundle) -> bool:
        """A sale in the train step must be needed: without the bundle's cheapest certificate it would not
        make up what the treasury and the president lack for the cheapest depot train (rules-1828.md,
        "Emergency sales"; a part of a president's certificate counts as that certificate, so such a part
        is nearly always needed: gen1828_egp_4p_263517 index 801)."""
        price = game.share_price(bundle.corporation)
        if price is None:
            return False
        lack = self.cheapest(game, corp) - corp.cash - player.cash
        smallest = min(price * s.percent // 10 for s in bundle.shares)
        return price * bundle.percent // 10 - smallest < lack

    # -- the concrete moves ---------------------------------------------------------------------------------
    def offer_buy_train(self, game: Game, round_: OperatingRound, entity: str) -> list[Option]:
        """Depot trains the treasury pays for, the cheapest one with the president's help, and other
        corporations' trains at their meaningful prices (lowest, face value, all the money there is), each
        into every shell with room for a System; only what `check_purchase` lets through."""
        corp = game.corporations[entity]
        president = game.rules.acting_player_for(game, corp)
        helps = self.may_contribute(game, corp) and president is not None
        purse = corp.cash + (game.player(president).cash if helps else 0)
        cheapest = self.cheapest(game, corp)
        options: list[Option] = []
        for train in game.rules.depot_trains_for(game, corp):
            if train.price <= corp.cash or (train.price == cheapest and train.price <= purse):
                options.append({"train": train.id, "price": train.price})
        low = self.min_train_price_from_corporation(game)
        for train in self.other_trains(game, corp):
            seller = game.corporations[train.owner]  # type: ignore[index]
            if not self.may_buy_from(game, corp, seller):
                continue
            prices = {low, min(train.price, corp.cash), corp.cash}
            if helps:
                prices.add(min(train.price, purse))
            limits = self.sale_range(game, corp, train)
            if limits is not None:  # after an emergency sale (rules-1828.md, "After an emergency sale")
                prices = {p for p in prices | set(limits) if limits[0] <= p <= limits[1]}
            options.extend({"train": train.id, "price": p} for p in sorted(prices) if low <= p <= max(corp.cash, purse))
        if is_system(game, corp):
            options = [dict(o, shell=shell) for o in options for shell in shells_with_room(game, corp)]
        return [o for o in options if self.purchase_allowed(game, round_, corp, o)]

    def purchase_allowed(self, game: Game, round_: OperatingRound, corp: Corporation, option: Option) -> bool:
        """The step's own checks, asked without playing the purchase."""
        return accepts(self.check_purchase, game, round_, corp, {"type": "buy_train", "entity": corp.sym, **option})

    def offer_emergency_sales(self, game: Game, round_: OperatingRound, entity: str) -> list[Option]:
        """What the president may sell in the corporation's train step (the round opens it,
        `may_sell_in_emergency`, and hands the sale to `emergency_sell` with nothing checked before): the
        bundles he could name (`sale_candidates`) that the money rule lets through (`needed_sales`) and the
        other sale rules accept (`check_emergency_sale`, the handler's own checks, so no copy is needed)."""
        corp = game.corporations[entity]
        president = game.rules.acting_player_for(game, corp)
        if president is None:
            return []
        return [dict(o, entity=president, entity_type="player") for o in needed_sales(game, self, corp, president)
                if accepts(self.check_emergency_sale, game, round_, {"type": "sell_shares", "entity": president, **o})]


def sale_candidates(game: Game, president: int) -> list[Option]:
    """Every bundle the president could name: one to all of each corporation's ordinary certificates he
    holds, and with his president's certificate part or all of its percent (a new president, or the market,
    hands ordinary certificates back)."""
    options = []
    for other in game.corporations.values():
        held = [s for s in other.shares if s.owner == president and not s.president]
        for n in range(1, len(held) + 1):
            options.append({"shares": [s.id for s in held[:n]], "percent": sum(s.percent for s in held[:n])})
        chair = next((s for s in other.shares if s.owner == president and s.president), None)
        if chair is not None:
            unit = min((s.percent for s in other.shares if not s.president), default=10) or 10
            for n in range(len(held) + 1):
                for part in range(unit, chair.percent + 1, unit):
                    options.append({"shares": [s.id for s in held[:n]] + [chair.id],
                                    "percent": sum(s.percent for s in held[:n]) + part})
    return options


def needed_sales(game: Game, step: BuyTrain1828, corp: Corporation, president: int) -> list[Option]:
    """The candidate bundles the money rule lets through (`BuyTrain1828.sale_needed`), by arithmetic only."""
    player = game.player(president)
    return [o for o in sale_candidates(game, president)
            if step.sale_needed(game, corp, player, parse_bundle(game.corporations, o["shares"], o["percent"]))]


def may_sell_in_emergency(game: Game, round_: OperatingRound, corp: Corporation) -> bool:
    """In its train step the corporation's president may sell while he and the treasury lack money for the
    cheapest depot train, as far as the sale is needed (rules-1828.md, "Emergency sales")."""
    step = round_.active_step(game)
    if not isinstance(step, BuyTrain1828) or corp.kind == "minor":
        return False
    president = game.rules.acting_player_for(game, corp)
    return president is not None and bool(needed_sales(game, step, corp, president))


def discardable(game: Game, corp: Any) -> list[Any]:
    """The trains a corporation over its limit may discard. A System is over it when a shell is, and then
    discards any of its trains until no shell is (gen1828_4p_612537 index 440: GT-CPR, its CPR shell one
    over, discards GT's only train first, then one of CPR's)."""
    crowded = game.rules.limit_trains(game, corp)
    if is_system(game, corp) and len(crowded) > game.train_limit(corp):
        return [t for shell in shells(game, corp).values() for t in shell]
    return crowded


class DiscardTrain1828(DiscardTrain):
    """Trains over the limit leave the game (they do not return to the depot); a System discards from
    its crowded shell."""

    def crowded(self, game: Game) -> list[Corporation]:
        if getattr(game.round, "ignore_train_limit", False):
            return []  # a System arranging its trains between shells (SwapTrain) mends a crowded shell itself
        return super().crowded(game)

    def discard_train(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        crowded = discardable(game, corp)
        train = next((t for t in crowded if t.id == action.get("train")), None)
        if train is None:
            raise IllegalAction(f"{corp.sym} has no train {action.get('train')} over the limit", "discard_train")
        corp.trains.remove(train)
        train.owner = None
        train.rusted = True

    def offer_discard(self, game: Game, round_: Round, entity: str) -> list[Option]:
        """Only a train over the limit goes (a System's from its crowded shell)."""
        return [{"train": t.id} for t in discardable(game, game.corporations[entity])]


class Bankrupt(Step):
    """A president whose corporation, own cash and sellable shares cannot pay for the cheapest depot train
    may declare bankruptcy on the corporation's turn: the shares that can be sold are sold, the cash goes
    to the bank and the game ends at once. The step never blocks; the round offers it beside the others."""

    handlers = {"bankrupt": "bankrupt"}
    offers = {"bankrupt": "offer_pass"}  # one move, nothing to choose

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        return []

    @staticmethod
    def sales_open(game: Game) -> bool:
        """Shares count and are sold only where an emergency sale is open: in the corporation's buy-train
        step. Declared before it (track, station, run, arranging trains), the president sells nothing and
        only the treasury and his cash count (rules-1828.md, "What a bankrupt president sells")."""
        round_ = game.round
        return isinstance(round_, OperatingRound) and isinstance(round_.active_step(game), BuyTrain1828)

    def bankruptcy_sales(self, game: Game, player: Any, corp: Any) -> None:
        """What a bankrupt president sells: corporation by corporation in the operating order as it stands
        when he declares (rules-1828.md, "What a bankrupt president sells"), each time the largest bundle an
        emergency sale allows (`bankruptcy_bundle`), until none is left of that corporation; nothing when
        no emergency sale is open (`sales_open`)."""
        if not self.sales_open(game):
            return
        need = BuyTrain1828.cheapest(game, corp)
        held = [c for c in game.corporations.values() if c.share_cell is not None and not c.closed
                and any(s.owner == player.id for s in c.shares)]
        for other in game.rules.sorted_by_price(game, held):  # type: ignore[attr-defined]
            while (bundle := self.bankruptcy_bundle(game, player, other, corp, need)) is not None:
                value = (game.share_price(other) or 0) * bundle.percent // 10
                sell_to_market(game, bundle, player.id)
                game.pay(None, player, value)
                game.rules.after_sell_shares(game, other, bundle)

    @staticmethod
    def bankruptcy_bundle(game: Game, player: Any, other: Any, corp: Any, need: int) -> Bundle | None:
        """The largest bundle of `other` the bankrupt player may still sell, as in an emergency: the
        president's certificate (whole or in part) only to another player who can take it over, never the
        bankrupt corporation's presidency, no more than the market can hold, and only while the sale is
        needed: without its last certificate the bundle would not cover what `corp` and he still lack for
        the cheapest depot train (`need`)."""
        price = game.share_price(other) or 0
        mine = sorted((s for s in other.shares if s.owner == player.id), key=lambda s: (s.president, s.percent))
        bundles: list[Bundle] = []
        for n in range(1, len(mine) + 1):
            bundles.append(Bundle(other, mine[:n], sum(s.percent for s in mine[:n])))
        if mine and mine[-1].president:
            unit = min((s.percent for s in other.shares if not s.president), default=10) or 10
            full = bundles[-1].percent
            bundles += [Bundle(other, mine, full - unit * k) for k in range(1, mine[-1].percent // unit)]
        others = max((other.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
        lacking = need - corp.cash - player.cash
        allowed = []
        for bundle in bundles:
            if bundle.includes_president and others < other.shares[0].percent:
                continue
            if other.percent_owned_by(POOL) + bundle.percent > game.rules.market_share_limit(game):
                continue
            if other is corp and other.percent_owned_by(player.id) - bundle.percent < others:
                continue
            value = price * bundle.percent // 10
            if value - min(price * s.percent // 10 for s in bundle.shares) >= lacking:
                continue
            allowed.append(bundle)
        return max(allowed, key=lambda b: b.percent, default=None)

    def buying_power(self, game: Game, player: Any, corp: Any) -> int:
        """The treasury, the president's cash and, of each corporation, the largest bundle he could sell
        in an emergency (`bankruptcy_bundle`, asked at today's prices); the shares only where an emergency
        sale is open (`sales_open`)."""
        need = BuyTrain1828.cheapest(game, corp)
        total = corp.cash + player.cash
        if not self.sales_open(game):
            return total
        for other in game.corporations.values():
            if other.share_cell is None or other.closed:
                continue
            bundle = self.bankruptcy_bundle(game, player, other, corp, need)
            total += (game.share_price(other) or 0) * bundle.percent // 10 if bundle is not None else 0
        return total

    def may_go_bankrupt(self, game: Game, corp: Any) -> bool:
        president = game.rules.acting_player_for(game, corp)
        if corp.kind == "minor" or president is None:
            return False
        return self.buying_power(game, game.player(president), corp) < BuyTrain1828.cheapest(game, corp)

    def bankrupt(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        assert isinstance(round_, OperatingRound)
        corp = round_.corp(game)
        if not self.may_go_bankrupt(game, corp):
            raise IllegalAction(f"{corp.sym} and its president can still raise the price of the cheapest train",
                                "bankrupt")
        player = game.player(game.rules.acting_player_for(game, corp))
        self.bankruptcy_sales(game, player, corp)
        game.pay(player, None, player.cash)
        player.bankrupt = True
        game.end_game("bankrupt")


class SwapTrain(Step):
    """After paying, a System may move trains between its two shells (each holds up to the train limit)."""

    handlers = {"swap_train": "swap_train", "pass": "pass_step"}
    offers = {"swap_train": "offer_swap", "pass": "offer_pass"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        if entity != round_.current_entity(game) or entity not in game.corporations:
            return []
        corp = game.corporations[entity]
        if not is_system(game, corp) or not corp.trains:
            return []
        limit = game.train_limit(corp)
        crowded = any(len(trains) > limit for trains in shells(game, corp).values())
        return ["swap_train"] if crowded else ["swap_train", "pass"]

    def offer_swap(self, game: Game, round_: Round, entity: str) -> list[Option]:
        """Any running train may move to the other shell."""
        corp = game.corporations[entity]
        return [{"train": t.id} for t in corp.trains if not t.rusted] if is_system(game, corp) else []

    def swap_train(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        train_id = action.get("train")
        table = state(game).shells[corp.sym]
        current = next((name for name, ids in table.items() if train_id in ids
                        and any(t.id == train_id for t in corp.trains)), None)
        if current is None:
            raise IllegalAction(f"{corp.sym} has no train {train_id}", "swap_train")
        other = next(name for name in table if name != current)
        add_to_shell(game, corp, other, train_id)
        # once a train was moved, no train-limit discard is asked while the arranging lasts: an over-full
        # shell is mended by moving, and "done" waits for it (rules-1828.md, "Arranging trains")
        round_.ignore_train_limit = True  # type: ignore[attr-defined]

    def pass_step(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        self.passed = True
        round_.ignore_train_limit = False  # type: ignore[attr-defined]

"""1833NE operating round: finance (issue / buy back / buy privates / ferries) mixed into the build step,
two tile lays of which at most one upgrade, two stations, runs with bonuses, full / half / withheld
dividends, double-sided train cards and the emergency train purchase.

Each step can list its concrete options (`options`) so legal actions and the random-play soak need no
knowledge of the rules beyond what the steps already say.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from ...core.operating import DiscardTrain, OperatingRound
from ...core.rounds import Round, Step
from ...core.runs import Dividend, RunRoutes
from ...core.shares import parse_bundle
from ...core.track import TrackAndToken
from ...core.trains import BuyTrain
from ...errors import EngineError, IllegalAction, MalformedAction
from ...model import POOL, Corporation, Train
from . import bonuses, emergency
from . import constants as K
from . import tables as T
from .finance import (
    buy_back,
    buyback_price,
    emergency_plan,
    execute_plan,
    forced_issues,
    go_bankrupt,
    issue,
    issue_limit,
    issue_price,
    make_forced_issues,
)
from .state import state
from .stock import sell_to_market

if TYPE_CHECKING:
    from ...game import Game
    from .protocol import Rules


def _rules(game: Game) -> Rules:
    return game.rules  # type: ignore[return-value]


def operating_order(game: Game) -> list[str]:
    """The launched corporations by share price: lowest first in the first operating round, highest first
    after it, ties by launch order (asked by the round, and by the rules to see a stalled game)."""
    launched: list[str] = state(game).launch_order
    corps = [game.corporations[s] for s in launched if not game.corporations[s].closed]
    first = game.turn == 1 and getattr(game.round, "round_num", 1) == 1
    sign = 1 if first else -1
    corps.sort(key=lambda c: (sign * (game.share_price(c) or 0), launched.index(c.sym)))
    return [c.sym for c in corps]


class Operating1833(OperatingRound):
    """Adds the per-turn state 1833NE needs: whether the corporation used its one finance action."""

    def __init__(self, steps: list[Step], round_num: int) -> None:
        super().__init__(steps, round_num)
        self.financed = False
        self.p3_lays = 0
        self.bought_trains = 0
        self.pending_lay: str | None = None  # the hex being paid for, so P2's free lay can be recognised
        self.turn_sales: dict[str, int] = {}  # the president's emergency sales this turn (`sell_to_market`)

    def current_entity(self, game: Game) -> Any:
        """A corporation pushed over its train limit by another's purchase discards before play goes on."""
        if not self.done:
            for corp in game.corporations.values():
                if not corp.closed and len(game.rules.limit_trains(game, corp)) > game.train_limit(corp):
                    return corp.sym
        return super().current_entity(game)

    def operating_order(self, game: Game) -> list[str]:
        return operating_order(game)

    def place_home_token(self, game: Game, corp: Corporation, at_round_start: bool) -> None:
        """A home token is never lost: if its city filled up meanwhile it takes an extra slot there."""
        try:
            super().place_home_token(game, corp, at_round_start)
        except IllegalAction:
            city = game.board.home_city(corp.sym, corp.home, corp.home_city_index)
            h = game.board.hex(corp.home)
            ci = int(city.rpartition("-")[2])
            game.board.place_token(corp.sym, city, len(h.tokens[ci]))
            corp.tokens_placed += 1

    def start_operating(self, game: Game, corp: Corporation) -> None:
        self.reset_turn()

    def reset_turn(self) -> None:
        self.financed = False
        self.p3_lays = 0
        self.bought_trains = 0
        self.turn_sales = {}

    def sales_this_turn(self) -> dict[str, int]:
        return self.__dict__.setdefault("turn_sales", {})  # (a round pickled mid-turn before it had them)

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        """A player's sale while a corporation operates is its president's emergency sale: the train step takes
        it (and refuses it, in the words of the rule, when no emergency sale is open)."""
        entity = action.get("entity")
        if action.get("type") == "sell_shares" and isinstance(entity, int) and not isinstance(entity, bool) \
                and not self.done and any(p.id == entity for p in game.players):
            step = next(s for s in self.steps if isinstance(s, TrainStep))
            step.emergency_sell(game, self, action)
            self.after_process(game, action)
            return
        super().process(game, action, trusted)


# -- finance actions shared by the build and train steps ------------------------------------------------
def finance_actions(game: Game, round_: Operating1833, corp: Corporation) -> list[str]:
    out: list[str] = []
    if round_.financed:
        return out
    if issue_limit(game, corp) > 0 and issue_price(game, corp) > 0:
        out.append("sell_shares")
    if corp.percent_owned_by(POOL) and corp.cash >= buyback_price(game, corp):
        out.append("buy_shares")
    return out


def finance_options(game: Game, round_: Operating1833, corp: Corporation) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    kinds = finance_actions(game, round_, corp)
    if "sell_shares" in kinds:
        treasury = [s for s in corp.shares if s.owner == corp.sym]
        for n in range(1, issue_limit(game, corp) + 1):
            out.append({"type": "sell_shares", "entity": corp.sym, "shares": [s.id for s in treasury[:n]],
                        "percent": 10 * n})
    if "buy_shares" in kinds:
        pool = [s for s in corp.shares if s.owner == POOL]
        price = buyback_price(game, corp)
        for n in range(1, len(pool) + 1):
            if n * price > corp.cash:
                break
            out.append({"type": "buy_shares", "entity": corp.sym, "shares": [s.id for s in pool[:n]],
                        "percent": 10 * n})
    return out


def do_finance(game: Game, round_: Operating1833, action: dict[str, Any]) -> None:
    corp = game.corporations[action["entity"]]
    if round_.financed:
        raise IllegalAction(f"{corp.sym} already issued or bought back shares this turn", "finance_once")
    ids = action.get("shares")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise MalformedAction("'shares' must list certificates like 'CV_3'", "shares_shape")
    shares = []
    for sid in ids:
        sym, _, idx = sid.rpartition("_")
        if sym != corp.sym or not idx.isdigit() or int(idx) >= len(corp.shares):
            raise MalformedAction(f"{sid!r} is not a {corp.sym} certificate", "share_id")
        shares.append(corp.shares[int(idx)])
    if len(set(ids)) != len(ids):
        raise MalformedAction("a certificate is listed twice", "share_id")
    total = sum(s.percent for s in shares)
    if action.get("percent") not in (None, total):  # whole certificates only, as a player's sale
        raise MalformedAction(f"percent {action.get('percent')!r} does not match the certificates' {total}%",
                              "shares_percent")
    if action["type"] == "sell_shares":
        issue(game, corp, shares)
    else:
        buy_back(game, corp, shares)
    round_.financed = True


def ferry_refusal(game: Game, corp: Corporation) -> IllegalAction | None:
    tables = T.of(game)
    if game.phase.name not in tables.ferry_phases:
        return IllegalAction(f"ferries are sold only in phases {', '.join(tables.ferry_phases)}", "ferry")
    if corp.cash < tables.ferry_price:
        return IllegalAction(f"{corp.sym} has {corp.cash}, a ferry costs {tables.ferry_price}", "cash")
    if not any(owner is None for owner in state(game).ferries.values()):
        return IllegalAction("every ferry has been sold", "ferry")
    return None


def shopping_actions(game: Game, corp: Corporation) -> list[str]:
    """Privates and ferries may be bought, and P5's ferry chosen, at any point of the corporation's turn (the
    seed sets no moment)."""
    rules = _rules(game)
    out = []
    if rules.buyable_privates(game, corp):
        out.append("buy_company")
    if rules.buyable_ferries(game, corp):
        out.append("special_buy")
    if bonuses.luxury_choices(game, corp):
        out.append("choose")
    return out


def shopping_options(game: Game, corp: Corporation, kinds: Collection[str]) -> list[dict[str, Any]]:
    rules = _rules(game)
    out: list[dict[str, Any]] = []
    if "buy_company" in kinds:
        for company in rules.buyable_privates(game, corp):
            for price in sorted({1, company.value // 2, company.value}):
                extra = K.P6_BANK_FEE if company.sym == K.P6 else 0
                if price + extra <= corp.cash:
                    out.append({"type": "buy_company", "entity": corp.sym, "company": company.sym, "price": price})
    if "special_buy" in kinds:
        for ferry in rules.buyable_ferries(game, corp):
            out.append({"type": "special_buy", "entity": corp.sym, "description": ferry,
                        "cost": T.of(game).ferry_price})
    if "choose" in kinds:
        out.extend({"type": "choose", "entity": corp.sym, "choice": f} for f in bonuses.luxury_choices(game, corp))
    return out


# -- build step -----------------------------------------------------------------------------------------
class BuildStep(TrackAndToken):
    """Lay up to two tiles (one may be an upgrade), place the second station, and run the corporation's
    finances: issue or buy back, buy a private from its president, buy a ferry."""

    handlers = {
        "lay_tile": "lay_tile", "place_token": "place_token", "pass": "pass_step",
        "sell_shares": "finance", "buy_shares": "finance", "buy_company": "buy_company",
        "special_buy": "special_buy", "choose": "choose",
    }

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, Operating1833)
        if entity != round_.current_entity(game) or entity not in game.corporations:
            return []
        corp = game.corporations[entity]
        rules = _rules(game)
        out: list[str] = []
        if self.may_build(game, corp) and corp.cash >= K.TILE_COST and (
                self.next_lay(game, round_) is not None or rules.p3_lays_left(game, corp)):
            out.append("lay_tile")
        if self.can_place_token(game, round_, corp):
            out.append("place_token")
        out.extend(finance_actions(game, round_, corp))
        out.extend(shopping_actions(game, corp))
        if out:
            out.append("pass")
        return out

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        """Why a track, station, private or ferry move is closed now, in the words of the rule."""
        assert isinstance(round_, Operating1833)
        kind, sym = action["type"], action.get("entity")
        if sym not in game.corporations or sym != round_.current_entity(game):
            return None
        corp = game.corporations[sym]
        rules = _rules(game)
        if kind in ("buy_company", "special_buy") and self.passed and rules.must_buy_train(game, corp):
            return IllegalAction(f"{corp.sym} has no train and must buy one before anything else", "must_buy_train")
        if kind == "buy_company":
            return rules.refuse_private(game, corp, action)
        if kind == "special_buy":
            return ferry_refusal(game, corp)
        if kind == "choose":
            return bonuses.luxury_refusal(game, corp, action)
        if kind not in ("lay_tile", "place_token"):
            return None
        if kind == "lay_tile" and action.get("ability") != K.P3:
            if not self.may_build(game, corp):
                return IllegalAction("the Boston & Lowell lays no track in phase I until a corporation has bought "
                                     "the Lowell Merchants (P2)", "may_not_build")
            if not round_.laid_hexes and corp.cash < K.TILE_COST:
                return IllegalAction(f"{corp.sym} has {corp.cash}; every tile costs at least {K.TILE_COST}", "cash")
        if self.passed:
            return IllegalAction(f"{corp.sym} has finished building this turn: track and its station come "
                                 "before running trains", "build_over")
        if kind == "lay_tile":
            if self.next_lay(game, round_) is None:
                return IllegalAction("no more track this turn: one yellow tile and a second yellow tile or one "
                                     "upgrade", "tile_lays")
            if corp.cash < K.TILE_COST:
                return IllegalAction(f"{corp.sym} has {corp.cash}; every tile costs at least {K.TILE_COST}", "cash")
            return None
        if round_.tokened:
            return IllegalAction(f"{corp.sym} has already placed a station this turn", "token")
        if corp.next_token_price() is None:
            return IllegalAction(f"{corp.sym} has both its stations (home and one more) on the map", "token")
        if not game.board.reachable_token_cities(corp.sym):
            return IllegalAction(f"{corp.sym} reaches no city with a free station slot", "token")
        return IllegalAction(f"{corp.sym} has {corp.cash}; a station costs {K.STATION_PRICE} "
                             f"(the Boston & Worcester's in Worcester {K.WORCESTER_PRICE})", "cash")

    def next_lay(self, game: Game, round_: OperatingRound) -> dict[str, Any] | None:
        count = len(round_.laid_hexes)
        if count >= 2:
            return None
        return {"lay": True, "upgrade": not round_.upgraded}

    def can_place_token(self, game: Game, round_: OperatingRound, corp: Corporation) -> bool:
        if round_.tokened or corp.next_token_price() is None:
            return False
        return bool(_rules(game).token_options(game, corp))

    def may_build(self, game: Game, corp: Corporation) -> bool:
        """The Boston & Lowell lays no track in phase I until a corporation has bought P2."""
        return not (corp.sym == "B&L" and not state(game).p2_bought and game.phase.name == "I")

    def pay_for_track(self, game: Game, round_: OperatingRound, corp: Corporation, cost: int) -> None:
        """Every tile costs its price on top of the terrain; P2's buyer lays its first tile in Lowell free."""
        total = K.TILE_COST + cost
        hex_id = getattr(round_, "pending_lay", None)
        if hex_id == K.LOWELL and state(game).p2_free == (corp.sym, game.turn, round_.round_num):
            total = 0
        if total > corp.cash:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, the tile costs {total}", "cash")
        game.pay(corp, None, total)

    def after_lay_tile(self, game: Game, round_: OperatingRound, corp: Corporation, hex_id: str) -> None:
        if isinstance(round_, Operating1833):
            round_.pending_lay = None
        if hex_id == K.LOWELL and state(game).p2_free and state(game).p2_free[0] == corp.sym:
            state(game).p2_free = None
        _rules(game).tile_placed(game, hex_id)

    def lay_tile(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        assert isinstance(round_, Operating1833)
        corp = game.corporations[action["entity"]]
        rules = _rules(game)
        if action.get("ability") == K.P3:
            rules.lay_p3_tile(game, round_, corp, action)
            return
        if not self.may_build(game, corp):
            raise IllegalAction(f"{corp.sym} may not lay track now", "may_not_build")
        round_.pending_lay = action.get("hex") if isinstance(action.get("hex"), str) else None
        try:
            super().lay_tile(game, round_, action, trusted)
        finally:
            round_.pending_lay = None

    def place_token(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        city, slot = action.get("city"), action.get("slot")
        if not isinstance(city, str) or not isinstance(slot, int):
            raise MalformedAction("place_token needs city and slot", "place_token_shape")
        if round_.tokened:
            raise IllegalAction(f"{corp.sym} already placed a station this turn", "token")
        if corp.next_token_price() is None:
            raise IllegalAction(f"{corp.sym} has both its stations on the map", "token")
        game.board.check_token(corp.sym, city, slot, must_connect=not trusted)
        price = _rules(game).station_price(game, corp, city)
        if price > corp.cash:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, the station costs {price}", "cash")
        game.pay(corp, None, price)
        game.board.place_token(corp.sym, city, slot)
        corp.tokens_placed += 1
        round_.tokened = True

    def finance(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        assert isinstance(round_, Operating1833)
        do_finance(game, round_, action)

    def buy_company(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        _rules(game).corporation_buys_private(game, game.corporations[action["entity"]], action)

    def special_buy(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        _rules(game).buy_ferry(game, game.corporations[action["entity"]], action)

    def choose(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        bonuses.choose_luxury(game, action)

    def options(self, game: Game, round_: Round, entity: Any,
                kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        assert isinstance(round_, Operating1833)
        kinds = self.actions(game, round_, entity)
        if not kinds:
            return []
        corp = game.corporations[entity]
        rules = _rules(game)
        out: list[dict[str, Any]] = []
        if "lay_tile" in kinds:
            lay = self.next_lay(game, round_) if self.may_build(game, corp) else None
            out.extend(rules.lay_options(game, round_, corp, lay))
        if "place_token" in kinds:
            for city, slot in rules.token_options(game, corp):
                out.append({"type": "place_token", "entity": entity, "city": city, "slot": slot})
        out.extend(finance_options(game, round_, corp))
        out.extend(shopping_options(game, corp, kinds))
        out.append({"type": "pass", "entity": entity})
        return out


# -- running --------------------------------------------------------------------------------------------
class RunStep(RunRoutes):
    """Run, then obsolete trains leave (they run once more after becoming obsolete)."""

    def run_routes(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        _rules(game).check_route_restrictions(game, corp, action.get("routes"))
        super().run_routes(game, round_, action, trusted)
        _rules(game).remove_obsolete(game, corp)

    def skip(self, game: Game, round_: Round) -> None:
        assert isinstance(round_, OperatingRound)
        self.passed = True
        _rules(game).remove_obsolete(game, round_.corp(game))

    def route_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        if corp.sym == "B&L" and not state(game).p2_bought and game.board.hex(K.BOSTON).tile.preprinted:
            return []
        return super().route_actions(game, round_, corp)

    def extra_revenue(self, game: Game, round_: OperatingRound, corp: Corporation) -> int:
        return bonuses.extra_revenue(game, round_.routes, corp)

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        assert isinstance(round_, OperatingRound)
        sym = action.get("entity")
        if action["type"] != "run_routes" or sym not in game.corporations or sym != round_.current_entity(game):
            return None
        corp = game.corporations[sym]
        if self.passed:
            return IllegalAction(f"{corp.sym} has already run this turn", "run_over")
        if not any(not t.rusted for t in corp.trains):
            return IllegalAction(f"{corp.sym} has no train to run", "no_train")
        if corp.sym == "B&L" and not state(game).p2_bought and game.board.hex(K.BOSTON).tile.preprinted:
            return IllegalAction("the Boston & Lowell runs no routes while Boston is not upgraded, until a "
                                 "corporation has bought the Lowell Merchants (P2)", "bl_no_run")
        return None

    def options(self, game: Game, round_: Round, entity: Any,
                kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        if "run_routes" not in self.actions(game, round_, entity):
            return []
        corp = game.corporations[entity]
        return [{"type": "run_routes", "entity": entity, "routes": _rules(game).auto_routes(game, corp)}]


class DividendStep(Dividend):
    """Full, half or withheld dividends; treasury and market shares pay the corporation; the price moves by
    what a share was paid, and a corporation at $0 closes."""

    def dividend_kinds(self, game: Game, corp: Corporation) -> list[str]:
        return ["payout", "half", "withhold"]

    def distribute(self, game: Game, round_: OperatingRound, corp: Corporation, kind: str, amount: Any) -> None:
        revenue = max(round_.revenue, 0)
        if kind == "payout":
            per_share = revenue // 10
        elif kind == "half":
            per_share = revenue // 20
        else:
            per_share = 0
        paid = 0
        for player in game.players:
            pct = corp.percent_owned_by(player.id)
            if pct and per_share:
                game.pay(None, player, per_share * pct // 10)
                paid += per_share * pct // 10
        # treasury shares receive dividends; so do market shares (as in 1846, gap): both go to the treasury
        game.pay(None, corp, revenue - paid)
        rules = _rules(game)
        rules.move_price(game, corp, per_share)
        round_.routes = []
        rules.check_price_close(game, corp)

    def options(self, game: Game, round_: Round, entity: Any,
                kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        if "dividend" not in self.actions(game, round_, entity):
            return []
        return [{"type": "dividend", "entity": entity, "kind": k}
                for k in self.dividend_kinds(game, game.corporations[entity])]


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

    def options(self, game: Game, round_: Round, entity: Any,
                kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        if "discard_train" not in self.actions(game, round_, entity):
            return []
        corp = game.corporations[entity]
        return [{"type": "discard_train", "entity": entity, "train": t.id} for t in game.rules.limit_trains(game, corp)]


# -- buying trains --------------------------------------------------------------------------------------
class TrainStep(BuyTrain):
    """Buy trains choosing a card face; a corporation without trains must buy one, by emergency if needed."""

    handlers = {"buy_train": "buy_train", "pass": "pass_step", "sell_shares": "finance",
                "buy_shares": "finance", "bankrupt": "bankrupt", "buy_company": "buy_company",
                "special_buy": "special_buy", "choose": "choose"}

    @staticmethod
    def duty_faces(game: Game) -> list[tuple[Train, str, int]]:
        """The faces on sale that meet the duty to own a train: an obsolete train handed back to the bank
        does not (seed: the duty counts trains left "after ... de verouderde treinen heeft verwijderd")."""
        return [f for f in _rules(game).depot_faces(game) if not f[0].obsolete]

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
        rules = _rules(game)
        if corp.closed:
            return []
        if rules.must_buy_train(game, corp):
            cheapest = self.cheapest(game)
            if cheapest is None:
                return []
            if corp.cash >= cheapest[1]:
                return ["buy_train"] + finance_actions(game, round_, corp)
            plan = emergency_plan(game, corp, cheapest[1], round_.sales_this_turn())
            if plan is None:
                return ["bankrupt"]
            # when his cash falls short too, the president first sells shares of his choice
            return ["sell_shares"] if plan.sales else ["buy_train"]
        if not rules.room_for_train(game, corp):
            return []
        out: list[str] = []
        if rules.affordable_faces(game, corp) or rules.buyable_used_trains(game, corp):
            out.append("buy_train")
        out.extend(finance_actions(game, round_, corp))
        if out:
            out.extend(shopping_actions(game, corp))  # a corporation that must buy a train spends on nothing else
            out.append("pass")
        return out

    def skip(self, game: Game, round_: Round) -> None:
        self.passed = True

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        """Why buying a train (or declaring bankruptcy) is closed now."""
        assert isinstance(round_, Operating1833)
        kind, sym = action["type"], action.get("entity")
        if kind not in ("buy_train", "bankrupt", "pass") or sym not in game.corporations \
                or sym != round_.current_entity(game):
            return None
        corp = game.corporations[sym]
        rules = _rules(game)
        if kind == "pass":
            if round_.active_step(game) is self and rules.must_buy_train(game, corp):
                return IllegalAction(f"{corp.sym} has no train and must buy one before its turn ends",
                                     "must_buy_train")
            return None
        if kind == "bankrupt":
            if rules.must_buy_train(game, corp):
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
        if cheapest is not None and rules.must_buy_train(game, corp):
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
        if cheapest is None or not _rules(game).must_buy_train(game, corp) or corp.cash >= cheapest[1]:
            return None
        return cheapest

    def finance(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        assert isinstance(round_, Operating1833)
        if action["type"] == "sell_shares" and self.in_emergency(game, game.corporations[action["entity"]]):
            raise IllegalAction("in an emergency the corporation's issues are the forced ones, made before its "
                                "president's first sale; its president now sells shares of his own", "emergency_issue")
        do_finance(game, round_, action)

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
        bundle = parse_bundle(game.corporations, action.get("shares"), action.get("percent"))
        if bundle.percent != sum(s.percent for s in bundle.shares):
            raise MalformedAction("1833NE sells whole certificates", "shares_percent")
        turn = round_.sales_this_turn()
        refusal = emergency.sale_refusal(game, corp, cheapest[1], turn, player, bundle)
        if refusal is not None:
            raise refusal
        issues, _ = emergency.shortfall(game, corp, cheapest[1])
        make_forced_issues(game, corp, issues)
        sell_to_market(game, player, bundle, turn)

    def buy_company(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        _rules(game).corporation_buys_private(game, game.corporations[action["entity"]], action)

    def special_buy(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        _rules(game).buy_ferry(game, game.corporations[action["entity"]], action)

    def choose(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        bonuses.choose_luxury(game, action)

    def buy_train(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        rules = _rules(game)
        train_id, price = action.get("train"), action.get("price")
        if not isinstance(train_id, str) or not isinstance(price, int):
            raise MalformedAction("buy_train needs train and price", "buy_train_shape")
        train = game.depot.by_id(train_id)
        if train is None:
            raise MalformedAction(f"unknown train {train_id!r}", "train_id")
        if not rules.room_for_train(game, corp):
            raise IllegalAction(f"{corp.sym} is at its train limit ({game.train_limit(corp)})", "train_limit")
        if train.owner is not None:
            rules.buy_used_train(game, corp, train, price)
        else:
            face = rules.check_depot_purchase(game, corp, train, price, action.get("variant"))
            if train.obsolete and rules.must_buy_train(game, corp):
                raise IllegalAction(f"an obsolete train does not meet the duty to own a train: {corp.sym} must buy "
                                    "one that is not obsolete", "train_obsolete")
            if corp.cash < price:
                if not rules.must_buy_train(game, corp):
                    raise IllegalAction(f"{corp.sym} has {corp.cash}, the {face} costs {price}", "cash")
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
        assert isinstance(round_, Operating1833)
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

    def options(self, game: Game, round_: Round, entity: Any,
                kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        assert isinstance(round_, Operating1833)
        kinds = self.actions(game, round_, entity)
        if not kinds:
            return []
        corp = game.corporations[entity]
        rules = _rules(game)
        out: list[dict[str, Any]] = []
        if "bankrupt" in kinds:
            return [{"type": "bankrupt", "entity": entity}]
        cheapest = self.in_emergency(game, corp)
        if cheapest is not None and "sell_shares" in kinds:
            return emergency.sale_options(game, corp, cheapest[1], round_.sales_this_turn())
        if "buy_train" in kinds:
            must = rules.must_buy_train(game, corp)
            if cheapest is not None:
                # the cheapest face, and a dearer one the treasury and the forced issues pay without the
                # president's money (seed: his money may not buy the dearer type)
                for train, face, price in sorted(self.duty_faces(game), key=lambda f: f[2]):
                    plan = emergency_plan(game, corp, price, round_.sales_this_turn())
                    if price == cheapest[1] or (plan is not None and plan.president_cash + plan.sales_total == 0):
                        out.append({"type": "buy_train", "entity": entity, "train": train.id, "price": price,
                                    "variant": face})
            else:
                for train, face, price in rules.affordable_faces(game, corp):
                    if must and train.obsolete:
                        continue  # it would not meet the duty
                    out.append({"type": "buy_train", "entity": entity, "train": train.id, "price": price,
                                "variant": face})
                if not rules.must_buy_train(game, corp):
                    # another corporation's train goes at any price from 1 to all the buyer's cash: offered at
                    # both ends, which legal-actions states as the range (min, step, max)
                    for train in rules.buyable_used_trains(game, corp):
                        for price in sorted({1, corp.cash}):
                            out.append({"type": "buy_train", "entity": entity, "train": train.id, "price": price})
        out.extend(o for o in finance_options(game, round_, corp) if o["type"] in kinds)
        out.extend(shopping_options(game, corp, kinds))
        if "pass" in kinds:
            out.append({"type": "pass", "entity": entity})
        return out


__all__ = ["BuildStep", "DiscardStep", "DividendStep", "Operating1833", "RunStep", "TrainStep", "Train"]

"""The rounds of 1840's fixed round bar.

Each round is a small state machine over the shared `Round` interface: `options` names the action
types the current entity may take (the same answer `process` enforces), `handlers` maps each type to a
method, and `settle` moves on to whoever must act next. Company rounds come in three stages (routes and
dividends; tram purchases; line acquisition); line rounds are the tramway operating rounds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...board.hexes import invert
from ...board.routes import DefaultRouteRules, Route, RouteContext, evaluate, lookup_train, resolve_route
from ...board.tiles import NODE_BASE, parse_tile_id
from ...core.rounds import Round
from ...core.stock import BuySellParShares, StockRound
from ...errors import EngineError, IllegalAction, MalformedAction
from ...model import POOL, Corporation, Train
from .rules import CITY, LINE, MAJOR, Rules1840

if TYPE_CHECKING:
    from ...game import Game

ORANGE = "#ffa500"
REMOVE_TOKEN_COST = 40  # a line clears a Stadtbahn station off an orange-framed city (seen in play)
LINE_MIN_BID, LINE_BID_STEP = 20, 5  # line auctions open at 20 and rise in steps of 5
MAX_LINES = 3  # lines one Tram Company may own


def rules_of(game: Game) -> Rules1840:
    rules = game.rules
    assert isinstance(rules, Rules1840)
    return rules


def need_int(action: dict[str, Any], key: str) -> int:
    value = action.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedAction(f"{action.get('type')} needs an integer {key}", key)
    return value


class FlowRound(Round):
    """A round whose current entity and open actions are computed from its own state."""

    handlers: dict[str, str] = {}

    def __init__(self, round_num: int = 1) -> None:
        super().__init__([], round_num)

    def options(self, game: Game) -> list[str]:
        raise NotImplementedError

    def settle(self, game: Game) -> None:
        """After an action: skip entities with nothing to do, end the round when nobody is left."""

    def actions_for(self, game: Game, entity: Any) -> list[str]:
        if self.done or entity != self.current_entity(game):
            return []
        return self.options(game)

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        entity = action.get("entity")
        kind = action["type"]
        if kind == "choose_ability" and entity in game.companies:
            sell_company(game, action)
            return
        current = self.current_entity(game)
        if entity != current:
            if self._entity_unknown(game, entity):
                raise MalformedAction(f"unknown entity {entity!r}", "entity")
            raise IllegalAction(f"it is not {entity}'s turn: {current} must act now ({self.kind} round)",
                                "not_your_turn")
        offered = self.options(game)
        if kind not in offered:
            raise IllegalAction(f"{entity} cannot {kind} now; allowed: {', '.join(offered) or 'nothing'}",
                                "wrong_action_now")
        getattr(self, self.handlers[kind])(game, action, trusted)
        self.settle(game)

    def after_process(self, game: Game, action: dict[str, Any]) -> None:
        self.settle(game)


def sell_company(game: Game, action: dict[str, Any]) -> None:
    """A private may be sold to the bank for its face value at any time by its owner."""
    company = game.companies[action["entity"]]
    choice = action.get("choice")
    if not isinstance(choice, dict) or choice.get("type") != "sell":
        raise MalformedAction("choose_ability needs choice {'type': 'sell'}", "choice")
    if company.closed or company.owner is None:
        raise IllegalAction(f"{company.sym} has no owner to sell it", "sell_company")
    owner = company.owner
    if isinstance(owner, int):
        player = game.player(owner)
        game.pay(None, player, company.value)
        player.companies.remove(company.sym)
    else:
        corp = game.corporations[owner]
        game.pay(None, corp, company.value)
        corp.companies.remove(company.sym)
    company.owner = None
    company.closed = True


# -- the private auction ---------------------------------------------------------------------------------
class AuctionRound(FlowRound):
    """Players bid on any private (minimum its printed value, +5 steps); the others bid or drop out."""

    kind = "Auction"
    handlers = {"bid": "bid", "pass": "pass_"}

    def start(self, game: Game) -> None:
        self.entities = list(game.player_order)
        self.index = 0
        self.companies = [c.sym for c in sorted(game.companies.values(), key=lambda c: c.value)]
        self.cheapest = self.companies[0] if self.companies else None
        self.discount: dict[str, int] = {}
        self.passed: set[int] = set()
        self.auctioning: str | None = None
        self.bids: list[tuple[int, int]] = []
        self.bidders: list[int] = []
        self.triggerer: int | None = None
        self.done = not self.companies

    def current_entity(self, game: Game) -> Any:
        if self.done:
            return None
        if self.auctioning is not None and self.bids:
            high = self.bids[-1][0]
            return self.bidders[(self.bidders.index(high) + 1) % len(self.bidders)]
        return self.entities[self.index]

    def options(self, game: Game) -> list[str]:
        return ["bid", "pass"]

    def min_bid(self, game: Game, sym: str) -> int:
        if self.auctioning == sym and self.bids:
            return self.bids[-1][1] + int(rules_of(game).rule(game, "MIN_BID_INCREMENT", 5))
        return game.companies[sym].value - self.discount.get(sym, 0)

    def bid(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        pid = action["entity"]
        player = game.player(pid)
        sym = action.get("company")
        price = need_int(action, "price")
        if sym not in self.companies:
            raise IllegalAction(f"{sym!r} is not up for auction", "bid_company")
        if self.auctioning is not None and sym != self.auctioning:
            raise IllegalAction(f"{self.auctioning} is being auctioned, not {sym}", "bid_company")
        if price < self.min_bid(game, sym):
            raise IllegalAction(f"the lowest bid for {sym} is {self.min_bid(game, sym)}", "bid_price")
        if price > player.cash:
            raise IllegalAction(f"{player.name} has only {player.cash}", "bid_price")
        self.passed.discard(pid)
        if self.auctioning is None:
            self.auctioning = sym
            self.triggerer = pid
            self.bidders = list(self.entities)
            self.bids = [(pid, price)]
        else:
            self.bids.append((pid, price))
        self.drop_unable(game, pid)

    def drop_unable(self, game: Game, bidder: int) -> None:
        """Players who cannot pay the next lowest bid leave the auction; the last one left wins."""
        assert self.auctioning is not None
        least = self.min_bid(game, self.auctioning)
        self.bidders = [p for p in self.bidders if p == bidder or game.player(p).cash >= least]
        self.bids = [b for b in self.bids if b[0] in self.bidders]
        if len(self.bidders) == 1:
            self.resolve(game)

    def pass_(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        pid = action["entity"]
        if self.auctioning is not None:
            self.bidders.remove(pid)
            if len(self.bidders) == 1:
                self.resolve(game)
            self.next_entity()
            return
        self.passed.add(pid)
        if len(self.passed) == len(self.entities):
            self.all_passed(game)
        self.next_entity()

    def resolve(self, game: Game) -> None:
        winner, price = self.bids[-1]
        assert self.auctioning is not None
        self.award(game, winner, self.auctioning, price)
        self.auctioning = None
        self.bids = []
        self.bidders = []
        self.passed.clear()
        assert self.triggerer is not None
        self.index = self.entities.index(self.triggerer)

    def award(self, game: Game, pid: int, sym: str, price: int) -> None:
        player = game.player(pid)
        company = game.companies[sym]
        game.pay(player, None, price)
        company.owner = pid
        player.companies.append(sym)
        self.companies.remove(sym)
        if not self.companies:
            self.done = True

    def all_passed(self, game: Game) -> None:
        if self.cheapest in self.companies:
            assert self.cheapest is not None
            self.discount[self.cheapest] = self.discount.get(self.cheapest, 0) + 5
            if self.min_bid(game, self.cheapest) <= 0:
                self.index = (self.index + 1) % len(self.entities)
                self.award(game, self.entities[self.index], self.cheapest, 0)
        else:
            game.rules.pay_private_income(game)
        self.passed.clear()

    def next_entity(self) -> None:
        if self.done:
            return
        for _ in range(len(self.entities)):
            self.index = (self.index + 1) % len(self.entities)
            if self.entities[self.index] not in self.passed:
                return


# -- choosing the seating order -----------------------------------------------------------------------------
class ChoicesRound(FlowRound):
    """Poorest player first, each picks a position in the first stock round's order."""

    kind = "Choices"
    handlers = {"choose": "choose"}

    def start(self, game: Game) -> None:
        current = list(game.player_order)
        self.entities = sorted(current, key=lambda pid: (game.player(pid).cash, current.index(pid)))
        self.index = 0
        self.left = list(range(len(self.entities)))
        if len(self.left) <= 1:
            self._finish(game)

    def options(self, game: Game) -> list[str]:
        return ["choose"]

    def choose(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        choice = need_int(action, "choice")
        if choice not in self.left:
            raise IllegalAction(f"position {choice} is not free; free: {self.left}", "choice")
        self.left.remove(choice)
        game.extra["order_choice"][str(action["entity"])] = choice
        self.index += 1
        if len(self.left) == 1:
            self._finish(game)

    def _finish(self, game: Game) -> None:
        if self.left:
            game.extra["order_choice"][str(self.entities[-1])] = self.left.pop()
        self.done = True


# -- stock round ------------------------------------------------------------------------------------------
class BuySellParShares1840(BuySellParShares):
    """Every player must start a Tram Company before anyone may pass or buy ordinary shares."""

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, StockRound)
        if round_.bought():
            return []  # sell, then buy: a purchase ends the turn
        out = super().actions(game, round_, entity)
        if not rules_of(game).all_majors_started(game) and "pass" in out:
            out.remove("pass")
        return out

    def pass_turn(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        if not rules_of(game).all_majors_started(game) and not trusted:
            raise IllegalAction("every Tram Company must be started before anyone passes", "must_par")
        super().pass_turn(game, round_, action, trusted)

    def can_buy(self, game: Game, round_: StockRound, player: Any, share: Any) -> str | None:
        corp = game.corporations[share.corporation]
        if corp.kind == LINE:
            return "lines are owned by Tram Companies"
        if share.owner == corp.sym and not rules_of(game).all_majors_started(game):
            return "all Tram Companies must be started first"
        if share.president and corp.kind == CITY and share.owner == corp.sym:
            share.president = False
        return super().can_buy(game, round_, player, share)

    def share_cost(self, game: Game, corp: Corporation, share: Any) -> int:
        price = game.share_price(corp)
        assert price is not None
        return price * share.percent // 10

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        if action["type"] == "pass" and not rules_of(game).all_majors_started(game):
            return IllegalAction("every Tram Company must be started before anyone passes", "must_par")
        return super().refusal(game, round_, action)

    def par(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        super().par(game, round_, action, trusted)
        rules_of(game).mark_arrival(game, game.corporation(action.get("corporation")))

    def parable(self, game: Game, round_: StockRound, player: Any) -> list[Corporation]:
        if any(c.president == player.id for c in rules_of(game).majors(game)):
            return []
        return super().parable(game, round_, player)


# -- route evaluation -------------------------------------------------------------------------------------
class Route1840(DefaultRouteRules):
    """Lines count their own stations and every town; Stadtbahnen count their own stations; landmark
    privates of the owning major add 20 per visited hex; routes keep to their own kind of track."""

    def __init__(self, game: Game, corp: Corporation) -> None:
        self.game = game
        self.corp = corp
        rules = rules_of(game)
        self.bonus: dict[str, int] = {}
        if corp.kind == LINE:
            major = rules.owner_major(game, corp)
            for sym in (major.companies if major else []):
                company = game.companies[sym]
                if company.closed:
                    continue
                for ability in company.abilities:
                    if ability.get("type") == "hex_bonus":
                        for hex_id in ability.get("hexes") or []:
                            self.bonus[hex_id] = self.bonus.get(hex_id, 0) + int(ability.get("amount") or 0)

    def needs_token(self, ctx: RouteContext, routes: list[Route], i: int) -> bool:
        return self.corp.kind != CITY

    def check_blocking(self, ctx: RouteContext, route: Route) -> bool:
        return self.corp.kind != CITY  # Stadtbahnen run through the lines' stations on their own track

    def check_title(self, ctx: RouteContext, routes: list[Route], i: int) -> None:
        route = routes[i]
        want = "narrow" if self.corp.kind == CITY else "broad"
        for hex_id, pi in route.paths:
            h = ctx.board.hexes[hex_id]
            if h.tile.rpaths[h.rotation][pi].track != want:
                raise IllegalAction(f"train {route.train_id}: {self.corp.sym} may only use {want} track ({hex_id})",
                                    "route_track_type")
        red = rules_of(self.game).extras(self.game)["red_tiles"]["hexes"]
        for hex_id, _ in route.stops:
            if hex_id in red and ctx.board.hexes[hex_id].tile.preprinted:
                raise IllegalAction(f"train {route.train_id}: {hex_id} has no red tile yet", "route_red")

    def stop_value(self, ctx: RouteContext, route: Route, stop: tuple[str, int]) -> int:
        node = ctx.node(stop)
        if node.is_city and not ctx.tokened(stop):
            return 0
        return node.revenue_for(ctx.colors, ctx.phase_name)

    def revenue(self, ctx: RouteContext, routes: list[Route], i: int, kind: Any) -> int:
        route = routes[i]
        total = sum(self.stop_value(ctx, route, s) for s in route.stops)
        if self.bonus:
            stop_hexes = {s[0] for s in route.stops if ctx.board.hexes[s[0]].tile.cities
                          or ctx.board.hexes[s[0]].tile.towns}
            total += sum(self.bonus.get(h, 0) for h in stop_hexes)
        return total


def route_revenue(game: Game, corp: Corporation, records: Any) -> int:
    """Validate the declared routes of `corp` and return their summed revenue (before multipliers)."""
    if not isinstance(records, list):
        raise MalformedAction("run_routes needs a list of routes", "routes_shape")
    own = {t.id for t in corp.trains}
    kinds = rules_of(game).train_kinds(game)
    used: set[Any] = set()
    routes = []
    seen: set[str] = set()
    for record in records:
        if not isinstance(record, dict) or not isinstance(record.get("train"), str):
            raise MalformedAction("each route names its train", "routes_shape")
        train_id = record["train"]
        if train_id not in own:
            raise IllegalAction(f"{corp.sym} does not own train {train_id}", "route_train")
        if train_id in seen:
            raise IllegalAction(f"train {train_id} runs twice", "route_train")
        seen.add(train_id)
        kind = lookup_train(kinds, train_id.rsplit("-", 1)[0]) if train_id.rsplit("-", 1)[0] in kinds \
            else lookup_train(kinds, train_id)
        try:
            route = resolve_route(game.board, record, kind, used)
        except IllegalAction:
            # the reference lists a Stadtbahn's connections out of travel order: chain them up first
            chains = chain_order(record.get("connections"))
            if chains is None:
                raise
            route = resolve_route(game.board, {"train": train_id, "connections": chains}, kind, used)
        used.update(route.keys)
        routes.append(route)
    ctx = RouteContext(game.board, corp.sym, tuple(game.phase.tiles), game.phase.name)
    evaluate(ctx, routes, Route1840(game, corp))
    return sum(r.revenue for r in routes)


def chain_order(raw: Any) -> list[list[str]] | None:
    """Order hex chains into one travel sequence (each chain joins the previous one at a hex)."""
    if not isinstance(raw, list) or not raw or not all(isinstance(c, list) and c for c in raw):
        return None
    rest = [list(c) for c in raw[1:]]
    path = [list(raw[0])]
    while rest:
        head, tail = path[0][0], path[-1][-1]
        for i, c in enumerate(rest):
            if c[0] == tail:
                path.append(c)
            elif c[-1] == tail:
                path.append(c[::-1])
            elif c[-1] == head:
                path.insert(0, c)
            elif c[0] == head:
                path.insert(0, c[::-1])
            else:
                continue
            rest.pop(i)
            break
        else:
            return None
    return path


def route_possible(game: Game, corp: Corporation) -> bool:
    """Some track of the company's kind joins one of its stations to another stop."""
    if not corp.trains:
        return False
    board = game.board
    allowed = board.allowed_track.get(corp.sym)
    for start in board.reach(corp.sym).token_nodes:
        stack = [start]
        seen = {start}
        while stack:
            hex_id, end = stack.pop()
            h = board.hexes[hex_id]
            paths = h.tile.rpaths[h.rotation]
            for pi in h.tile.by_end[h.rotation].get(end, ()):
                path = paths[pi]
                if allowed is not None and path.track not in allowed:
                    continue
                other = path.other(end)
                if other >= NODE_BASE:
                    if (hex_id, other) != start:
                        return True
                    continue
                nb = h.neighbors.get(other)
                if nb is not None and (nb, invert(other)) not in seen:
                    seen.add((nb, invert(other)))
                    stack.append((nb, invert(other)))
    return False


# -- the company round -------------------------------------------------------------------------------------
class CompanyRound(FlowRound):
    """Stage "routes": majors collect their lines' revenue and pay a chosen dividend, Stadtbahnen run and
    pay out. Stage "trains": majors buy, scrap and reassign trams."""

    kind = "Company"
    handlers = {"dividend": "dividend", "run_routes": "run_routes", "buy_train": "buy_train",
                "scrap_train": "scrap_train", "pass": "pass_", "reassign_trains": "reassign"}

    def __init__(self, stage: str) -> None:
        super().__init__(1)
        self.stage = stage
        self.sub = ""

    def start(self, game: Game) -> None:
        rules = rules_of(game)
        if self.stage == "routes":
            rules.pay_private_income(game)
        self.entities = company_round_order(game, fix=self.stage == "routes")
        if self.stage == "routes":
            cities = [c for c in game.corporations.values() if c.kind == CITY and not c.closed]
            self.entities += [c.sym for c in operating_order(game, cities)]
        self.index = 0
        self.begin(game)

    def corp(self, game: Game) -> Corporation:
        return game.corporations[self.entities[self.index]]

    def begin(self, game: Game) -> None:
        """Start the current entity's turn, doing automatically whatever needs no decision."""
        rules = rules_of(game)
        while self.index < len(self.entities):
            corp = self.corp(game)
            if self.stage == "routes":
                if corp.kind == MAJOR:
                    revenue = sum(line.cash for line in rules.lines_of(game, corp))
                    if revenue > 0:
                        self.sub = "dividend"
                        return
                    rules.move_by_dividend(game, corp, 0)
                else:
                    if route_possible(game, corp):
                        self.sub = "route"
                        return
                    rules.move_by_dividend(game, corp, 0)
            else:
                self.sub = "buy"
                if self.options(game):
                    return
                self.sub = "reassign"
                if self.options(game):
                    return
            self.index += 1
        self.done = True

    def next_entity(self, game: Game) -> None:
        self.index += 1
        self.begin(game)

    def options(self, game: Game) -> list[str]:
        corp = self.corp(game)
        if self.sub == "dividend":
            return ["dividend"]
        if self.sub == "route":
            return ["run_routes"]
        if self.sub == "buy":
            return tram_buy_options(game, corp)
        if self.sub == "reassign":
            return ["reassign_trains", "pass"] if may_reassign(game, corp) else []
        return []

    def dividend(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = self.corp(game)
        rules = rules_of(game)
        lines = rules.lines_of(game, corp)
        revenue = sum(line.cash for line in lines)
        if action.get("kind") != "variable":
            raise IllegalAction("1840 dividends are 'variable' with an amount", "dividend_kind")
        amount = need_int(action, "amount")
        if amount < 0 or amount > revenue or amount % 10:
            raise IllegalAction(f"pay a multiple of 10 between 0 and {revenue}", "dividend_amount")
        for line in lines:
            game.pay(line, None, line.cash)  # the revenue boxes empty into the bank, which pays it all out
        pay_shareholders(game, corp, amount)
        game.pay(None, corp, revenue - amount)
        rules.move_by_dividend(game, corp, amount)
        self.next_entity(game)

    def run_routes(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = self.corp(game)
        rules = rules_of(game)
        revenue = route_revenue(game, corp, action.get("routes")) * rules.cr_multiplier(game)
        pay_shareholders(game, corp, revenue)
        rules.move_by_dividend(game, corp, revenue)
        self.next_entity(game)

    def buy_train(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        buy_tram(game, self.corp(game), action)
        if "buy_train" not in self.options(game):
            self.sub = "reassign"
            if not self.options(game):
                self.next_entity(game)

    def scrap_train(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        scrap_tram(game, self.corp(game), action)

    def pass_(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        if self.sub == "buy":
            self.sub = "reassign"
            if self.options(game):
                return
        self.next_entity(game)

    def reassign(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        reassign_trams(game, self.corp(game), action)
        self.next_entity(game)


def pay_shareholders(game: Game, corp: Corporation, amount: int) -> None:
    """Each player gets their percentage of `amount`; shares in the market pay the company itself."""
    for player in game.players:
        pct = corp.percent_owned_by(player.id)
        if pct:
            game.pay(None, player, amount * pct // 100)
    pooled = corp.percent_owned_by(POOL)
    if pooled:
        game.pay(None, corp, amount * pooled // 100)


def company_round_order(game: Game, fix: bool = False) -> list[str]:
    """The majors' order for a whole company round is fixed when it starts, before prices move."""
    if fix or "cr_order" not in game.extra:
        game.extra["cr_order"] = [c.sym for c in operating_order(game, rules_of(game).majors(game))]
    return list(game.extra["cr_order"])


def operating_order(game: Game, corps: list[Corporation]) -> list[Corporation]:
    """Highest share price first; on equal prices the cell further right, then higher up, then the company
    that reached the cell first, goes first."""
    rules = rules_of(game)

    def key(c: Corporation) -> tuple[int, int, int, int]:
        cell = c.share_cell or (0, 0)
        return (-(game.share_price(c) or 0), -cell[1], cell[0], rules.arrival(game, c))

    return sorted(corps, key=key)


def may_reassign(game: Game, major: Corporation) -> bool:
    """The major has lines, unless its single line already holds the only tram (nothing to decide)."""
    lines = rules_of(game).lines_of(game, major)
    if not lines:
        return False
    return not (len(lines) == 1 and lines[0].trains and not major.trains)


def scrappable(game: Game, major: Corporation) -> list[Train]:
    out = list(major.trains)
    for line in rules_of(game).lines_of(game, major):
        out.extend(line.trains)
    return out


def buyable_trams(game: Game) -> list[tuple[Train, str, int]]:
    """(card, variant, price) for the first unsold card of every kind on sale this company round."""
    rules = rules_of(game)
    open_variants = rules.buyable_variants(game)
    out = []
    seen: set[str] = set()
    for train in game.depot.upcoming():
        base = rules.base_name(game, train)
        if base in seen or base == "City":
            continue
        seen.add(base)
        for variant, price in game.extra["variants"][base].items():
            if variant in open_variants:
                out.append((train, variant, price))
    return out


def tram_buy_options(game: Game, major: Corporation) -> list[str]:
    out = []
    owned = scrappable(game, major)
    if owned:
        out.append("scrap_train")
    room = len(owned) < game.phase.train_limit
    offers = buyable_trams(game) if room else []
    if offers and (any(p <= major.cash for _, _, p in offers) or not owned):
        out.append("buy_train")
    if out and (owned or "buy_train" not in out):
        out.append("pass")
    return out


def buy_tram(game: Game, major: Corporation, action: dict[str, Any]) -> None:
    rules = rules_of(game)
    train_id, variant = action.get("train"), action.get("variant")
    price = need_int(action, "price")
    if len(scrappable(game, major)) >= game.phase.train_limit:
        raise IllegalAction(f"{major.sym} already has {game.phase.train_limit} trams", "train_limit")
    offer = next(((t, v, p) for t, v, p in buyable_trams(game) if t.id == train_id
                  and (variant in (None, v))), None)
    if offer is None:
        raise IllegalAction(f"tram {train_id} ({variant}) is not for sale now", "train_unavailable")
    train, variant_name, cost = offer
    if price != cost:
        raise IllegalAction(f"{variant_name} costs {cost}, not {price}", "train_price")
    if major.cash < cost:
        if scrappable(game, major):
            raise IllegalAction(f"{major.sym} has {major.cash}, the tram costs {cost}", "cash")
        director = game.player(major.president)
        rules.take_loans(game, director, cost - major.cash)
        game.pay(director, major, cost - major.cash)
    game.pay(major, None, cost)
    train.name = variant_name
    train.price = cost
    train.owner = major.sym
    major.trains.append(train)
    rules.after_tram_bought(game, train)


def scrap_tram(game: Game, major: Corporation, action: dict[str, Any]) -> None:
    train = next((t for t in scrappable(game, major) if t.id == action.get("train")), None)
    if train is None:
        raise IllegalAction(f"{major.sym} has no tram {action.get('train')}", "scrap_train")
    holder = game.corporations[train.owner] if isinstance(train.owner, str) else major
    holder.trains.remove(train)
    train.owner = None
    train.rusted = True


def reassign_trams(game: Game, major: Corporation, action: dict[str, Any]) -> None:
    """Distribute the major's trams among itself and its lines; a line runs at most one tram."""
    rules = rules_of(game)
    targets = {major.sym: major, **{line.sym: line for line in rules.lines_of(game, major)}}
    trams = {t.id: t for t in scrappable(game, major)}
    assignments = action.get("assignments")
    if not isinstance(assignments, list):
        raise MalformedAction("reassign_trains needs a list of assignments", "assignments")
    plan: dict[str, str] = {}
    for entry in assignments:
        if not isinstance(entry, dict):
            raise MalformedAction("each assignment is {train, corporation}", "assignments")
        tid, sym = entry.get("train"), entry.get("corporation")
        if tid not in trams:
            raise IllegalAction(f"{major.sym} has no tram {tid}", "reassign")
        if sym not in targets:
            raise IllegalAction(f"{sym} is neither {major.sym} nor one of its lines", "reassign")
        plan[str(tid)] = str(sym)
    final = {tid: plan.get(tid, t.owner) for tid, t in trams.items()}
    for sym in targets:
        if sym != major.sym and sum(1 for s in final.values() if s == sym) > 1:
            raise IllegalAction(f"line {sym} may run only one tram", "reassign")
    for tid, sym in plan.items():
        train = trams[tid]
        if train.owner == sym:
            continue
        game.corporations[str(train.owner)].trains.remove(train)
        train.owner = sym
        targets[sym].trains.append(train)


# -- acquisition of lines -------------------------------------------------------------------------------
class AcquisitionRound(FlowRound):
    """Majors in share-price order pick an offered line and auction it among themselves (20, +5); the
    winner may buy and reassign trams at once. New lines come from the reserve at the end."""

    kind = "Acquisition"
    handlers = {"merge": "merge", "bid": "bid", "pass": "pass_", "buy_train": "buy_train",
                "scrap_train": "scrap_train", "reassign_trains": "reassign"}

    def start(self, game: Game) -> None:
        self.entities = company_round_order(game)
        self.index = 0
        self.passed: set[str] = set()
        self.auctioning: str | None = None
        self.bids: list[tuple[str, int]] = []
        self.bidders: list[str] = []
        self.triggerer: str | None = None
        self.interrupt: list[tuple[str, str]] = []  # (major, "buy" / "reassign")
        self.restocked = False
        self.bought: set[str] = set()
        self.full_skip(game)

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        """A Tram Company with three lines may neither open a line auction nor bid (before the turn check,
        so the refusal names the rule rather than the turn)."""
        entity = action.get("entity")
        major = game.corporations.get(entity) if isinstance(entity, str) else None
        if action["type"] in ("merge", "bid") and major is not None and major.kind == MAJOR \
                and len(rules_of(game).lines_of(game, major)) >= MAX_LINES:
            raise IllegalAction(f"{major.sym} already owns {MAX_LINES} lines", "line_limit")
        super().process(game, action, trusted)

    def full_skip(self, game: Game) -> None:
        """Majors with three lines take no part."""
        rules = rules_of(game)
        for sym in self.entities:
            if len(rules.lines_of(game, game.corporations[sym])) >= MAX_LINES:
                self.passed.add(sym)
        if len(self.passed) == len(self.entities):
            # every major is full: the round is skipped, nobody buys or reassigns trams
            self.bought.update(self.entities)
            self.all_passed(game)
        elif self.entities[self.index] in self.passed:
            self.next_entity(game)

    def current_entity(self, game: Game) -> Any:
        if self.done:
            return None
        if self.interrupt:
            return self.interrupt[0][0]
        if self.auctioning is not None and self.bids:
            high = self.bids[-1][0]
            return self.bidders[(self.bidders.index(high) + 1) % len(self.bidders)]
        return self.entities[self.index]

    def options(self, game: Game) -> list[str]:
        if self.interrupt:
            major, what = self.interrupt[0]
            corp = game.corporations[major]
            if what == "buy":
                return tram_buy_options(game, corp)
            return ["reassign_trains", "pass"]
        if self.auctioning is None:
            if game.corporations[self.entities[self.index]].cash < LINE_MIN_BID:
                return ["pass"]  # cannot open an auction it could not bid in
            return ["merge", "pass"]
        if not self.bids:
            return ["bid"]
        return ["bid", "pass"]

    def settle(self, game: Game) -> None:
        while self.interrupt:
            major, what = self.interrupt[0]
            corp = game.corporations[major]
            if what == "buy" and not tram_buy_options(game, corp):
                self.interrupt[0] = (major, "reassign")
                continue
            if what == "reassign" and not may_reassign(game, corp):
                self.interrupt.pop(0)
                continue
            return

    def merge(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        sym = action.get("corporation")
        if sym not in game.extra["lines_offered"]:
            raise IllegalAction(f"line {sym!r} is not offered", "merge")
        major = game.corporations[action["entity"]]
        if major.cash < LINE_MIN_BID:
            raise IllegalAction(f"{major.sym} has {major.cash}, less than the lowest bid {LINE_MIN_BID}", "merge_cash")
        self.auctioning = str(sym)

    def bid(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        major = game.corporations[action["entity"]]
        price = need_int(action, "price")
        if action.get("corporation") != self.auctioning:
            raise IllegalAction(f"{self.auctioning} is being auctioned", "bid")
        least = self.bids[-1][1] + LINE_BID_STEP if self.bids else LINE_MIN_BID
        if price < least:
            raise IllegalAction(f"the lowest bid is {least}", "bid_price")
        if price > major.cash:
            raise IllegalAction(f"{major.sym} has only {major.cash}", "bid_price")
        if not self.bids:
            self.triggerer = major.sym
            self.bidders = [s for s in self.entities if s not in self.passed]
            self.bids = [(major.sym, price)]
        else:
            self.bids.append((major.sym, price))
        # majors that cannot pay the next lowest bid leave the auction; the last one left wins
        least = price + LINE_BID_STEP
        self.bidders = [s for s in self.bidders if s == major.sym or game.corporations[s].cash >= least]
        self.bids = [b for b in self.bids if b[0] in self.bidders]
        if len(self.bidders) == 1:
            self.resolve(game)

    def pass_(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        sym = action["entity"]
        if self.interrupt:
            major, what = self.interrupt[0]
            if what == "buy":
                self.interrupt[0] = (major, "reassign")
            else:
                self.interrupt.pop(0)
            self.after_interrupt(game)
            return
        if self.auctioning is not None:
            self.bidders.remove(sym)
            if len(self.bidders) == 1:
                self.resolve(game)
            return
        self.passed.add(sym)
        if len(self.passed) == len(self.entities):
            self.all_passed(game)
            return
        self.next_entity(game)

    def after_interrupt(self, game: Game) -> None:
        self.settle(game)
        if len(self.passed) == len(self.entities):
            self.all_passed(game)

    def resolve(self, game: Game) -> None:
        winner_sym, price = self.bids[-1]
        winner = game.corporations[winner_sym]
        line = game.corporations[str(self.auctioning)]
        game.pay(winner, None, price)
        line.ipoed = True
        line.floated = True
        for share in line.shares:
            line.give(share, POOL)
        game.extra["owned_lines"][winner_sym].append(line.sym)
        game.extra["lines_offered"].remove(line.sym)
        self.auctioning = None
        self.bids = []
        self.bidders = []
        self.passed.add(winner_sym)
        self.bought.add(winner_sym)
        self.interrupt.append((winner_sym, "buy"))
        assert self.triggerer is not None
        self.index = self.entities.index(self.triggerer)
        if self.triggerer in self.passed:
            self.next_entity(game)
        self.settle(game)
        if len(self.passed) == len(self.entities):
            self.all_passed(game)

    def next_entity(self, game: Game) -> None:
        if len(self.passed) == len(self.entities):
            return
        for _ in range(len(self.entities)):
            self.index = (self.index + 1) % len(self.entities)
            if self.entities[self.index] not in self.passed:
                return

    def all_passed(self, game: Game) -> None:
        """Bidding is over: refill the offer (or close the unsold lines); then every major that won no line
        may still buy, scrap and reassign trams, in turn order."""
        if not self.restocked:
            self.restocked = True
            self.interrupt += [(sym, "buy") for sym in self.entities if sym not in self.bought]
            self.restock(game)
            self.settle(game)
        self.done = not self.interrupt

    def restock(self, game: Game) -> None:
        rules = rules_of(game)
        extra = game.extra
        if all(len(rules.lines_of(game, m)) >= MAX_LINES for m in rules.majors(game)):
            owned = {s for lines in extra["owned_lines"].values() for s in lines}
            for sym in extra["lines_offered"] + extra["lines_reserve"]:
                if sym not in owned:
                    game.corporations[sym].closed = True
            extra["lines_offered"] = []
            extra["lines_reserve"] = []
        else:
            count = len(game.players) + 1
            drawn = game.rng.shuffle(extra["lines_reserve"])[:count]
            extra["lines_offered"] = extra["lines_offered"] + drawn
            extra["lines_reserve"] = [s for s in extra["lines_reserve"] if s not in drawn]

    def buy_train(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        buy_tram(game, corp, action)
        if "buy_train" not in tram_buy_options(game, corp):
            self.interrupt[0] = (corp.sym, "reassign")
            self.after_interrupt(game)

    def scrap_train(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        scrap_tram(game, game.corporations[action["entity"]], action)

    def reassign(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        reassign_trams(game, game.corporations[action["entity"]], action)
        self.interrupt.pop(0)
        self.after_interrupt(game)


# -- line rounds ----------------------------------------------------------------------------------------
class LineRound(FlowRound):
    """Lines in number order: track (one ordinary and one orange-framed lay, plus the extra lay or free
    station an orange yellow tile grants), a station, then trams run into the line's revenue box."""

    kind = "Line"
    handlers = {"lay_tile": "lay_tile", "place_token": "place_token", "remove_token": "remove_token",
                "pass": "pass_", "run_routes": "run_routes", "buy_company": "buy_company",
                "scrap_train": "scrap_train"}

    def start(self, game: Game) -> None:
        owned = [s for lines in game.extra["owned_lines"].values() for s in lines]
        self.entities = sorted((s for s in owned if not game.corporations[s].closed), key=int)
        self.index = 0
        self.begin(game)

    def corp(self, game: Game) -> Corporation:
        return game.corporations[self.entities[self.index]]

    def major(self, game: Game) -> Corporation:
        major = rules_of(game).owner_major(game, self.corp(game))
        assert major is not None
        return major

    def begin(self, game: Game) -> None:
        while self.index < len(self.entities):
            corp = self.corp(game)
            self.stage = "track"
            self.normal_laid = False
            self.orange_laid = False
            self.tokened = False
            self.pending: list[str] = []  # extra lay colours or "token"
            self.removed: str | None = None
            if not corp.tokens_placed:
                place_line_home(game, corp)
            return
        self.done = True

    def options(self, game: Game) -> list[str]:
        if self.pending:
            if self.pending[0] == "home":
                return ["place_token"]
            return ["place_token", "pass"] if self.pending[0] == "token" else ["lay_tile", "pass"]
        if self.stage == "track":
            out = ["lay_tile"]
            if not self.tokened:
                out.append("place_token")
            out += ["remove_token", "pass"]
            if "can_buy_companies" in game.phase.status and self.companies_for_sale(game):
                out.insert(0, "buy_company")
            return out
        if self.stage == "route":
            return ["run_routes", "scrap_train"]
        if self.stage == "company":
            return ["buy_company", "pass"]
        return []

    def next_stage(self, game: Game) -> None:
        corp = self.corp(game)
        if self.stage == "track":
            self.stage = "route"
            if corp.trains:
                return
        if self.stage == "route":
            self.stage = "company"
            if "can_buy_companies" in game.phase.status and self.companies_for_sale(game):
                return
        self.index += 1
        self.begin(game)

    def companies_for_sale(self, game: Game) -> list[str]:
        """Privates the owning major may buy from their player owners and can afford."""
        cash = self.major(game).cash
        return [c.sym for c in game.companies.values()
                if isinstance(c.owner, int) and not c.closed and c.min_price <= cash]

    def lay_tile(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = self.corp(game)
        major = self.major(game)
        hex_id, tile_id, rotation = action.get("hex"), action.get("tile"), action.get("rotation")
        if not isinstance(hex_id, str) or not isinstance(tile_id, str) or not isinstance(rotation, int):
            raise MalformedAction("lay_tile needs hex, tile and rotation", "lay_tile_shape")
        h = game.board.hex(hex_id)
        orange_hex = h.preprinted.stripes == ORANGE or getattr(h.preprinted, "frame", None) == ORANGE \
            or is_orange(game, hex_id)
        if self.pending:
            self.special_lay(game, corp, hex_id, tile_id, rotation, trusted)
            return
        if orange_hex:
            if self.orange_laid:
                raise IllegalAction(f"{corp.sym} already laid an orange-framed tile", "tile_lays")
        elif self.normal_laid:
            raise IllegalAction(f"{corp.sym} already laid its tile", "tile_lays")
        colors = list(game.phase.tiles)
        result = game.board.check_lay(corp.sym, hex_id, tile_id, rotation, colors,
                                      must_connect=not trusted and not orange_hex)
        game.pay(major, None, result.cost)
        had_home = hex_id == corp.home and h.tile.preprinted and len(h.tile.cities) > 1 and corp.sym in [e for sl in h.tokens for e in sl]
        game.board.lay(hex_id, tile_id, rotation)
        if had_home:
            # the home station sat on a city without track: it is placed anew on the tile
            for slots in h.tokens:
                for i, owner in enumerate(slots):
                    if owner == corp.sym:
                        slots[i] = None
            game.board._changed()
            corp.tokens_placed -= 1
            self.pending.insert(0, "home")
        if orange_hex:
            self.orange_laid = True
            if result.color == "yellow":
                icon = orange_icon(game, hex_id)
                if icon:
                    self.pending.append(icon)
        else:
            self.normal_laid = True

    def special_lay(self, game: Game, corp: Corporation, hex_id: str, tile_id: str, rotation: int,
                    trusted: bool) -> None:
        """The extra lay an orange yellow tile grants: red centre tiles and purple tiles go on their own
        hexes in any rotation; a yellow or green one is an ordinary connected lay of that colour."""
        self.check_special_lay(game, corp, hex_id, tile_id, rotation, trusted)
        self.pending.pop(0)
        game.board.lay(hex_id, tile_id, rotation)

    def check_special_lay(self, game: Game, corp: Corporation, hex_id: str, tile_id: str, rotation: int,
                          trusted: bool = False) -> None:
        """Refuse an extra lay `special_lay` would not make; changes nothing."""
        color = self.pending[0]
        extras = rules_of(game).extras(game)
        board = game.board
        h = board.hex(hex_id)
        name, copy = parse_tile_id(tile_id)
        tile = board.catalogue.get(name)
        if tile is None:
            raise MalformedAction(f"unknown tile {name!r}", "tile_id")
        if not 0 <= rotation <= 5:
            raise MalformedAction(f"rotation {rotation!r} is not 0-5", "rotation")
        if is_orange(game, hex_id):
            raise IllegalAction("the extra lay may not go on an orange-framed hex", "special_lay")
        if color in ("red", "purple"):
            problem = board.supply.check_copy(name, copy)
            if problem:
                raise IllegalAction(problem, "tile_supply")
            if tile.color != color:
                raise IllegalAction(f"the extra lay must be a {color} tile", "special_lay")
            if color == "red":
                if hex_id not in extras["red_tiles"]["hexes"] or h.tile.color != "red":
                    raise IllegalAction(f"red tiles go on {extras['red_tiles']['hexes']}", "special_lay")
            else:
                if h.tile.color != "purple":
                    raise IllegalAction("purple tiles go on purple hexes", "special_lay")
                special = extras["purple_special_tiles"].get(hex_id)
                fixed = extras["tiles_fixed_rotation"]
                if special is not None and (name not in special or rotation != 0):
                    raise IllegalAction(f"{hex_id} takes only {special}, unrotated", "special_lay")
                if special is None and name in fixed:
                    raise IllegalAction(f"tile {name} belongs on another hex", "special_lay")
        else:
            board.check_lay(corp.sym, hex_id, tile_id, rotation, [color], must_connect=not trusted)

    def place_token(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = self.corp(game)
        major = self.major(game)
        city, slot = action.get("city"), action.get("slot")
        if not isinstance(city, str) or not isinstance(slot, int):
            raise MalformedAction("place_token needs city and slot", "place_token_shape")
        free = bool(self.pending) and self.pending[0] in ("token", "home")
        home = bool(self.pending) and self.pending[0] == "home"
        price = 0 if free else corp.next_token_price()
        if price is None:
            raise IllegalAction(f"{corp.sym} has no stations left", "token")
        if home and game.board.city_hex(city) != corp.home:
            raise IllegalAction(f"{corp.sym}'s home station goes on {corp.home}", "home")
        game.board.check_token(corp.sym, city, slot, must_connect=not trusted and not home)
        game.pay(major, None, price)
        game.board.place_token(corp.sym, city, slot)
        corp.tokens_placed += 1
        if free:
            self.pending.pop(0)
        else:
            self.tokened = True

    def remove_token(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        city, slot = action.get("city"), action.get("slot")
        if not isinstance(city, str) or not isinstance(slot, int):
            raise MalformedAction("remove_token needs city and slot", "remove_token_shape")
        h, ci = game.board._city(city)
        if h.id in rules_of(game).extras(game)["no_token_remove_hexes"]:
            raise IllegalAction(f"tokens on {h.id} stay", "remove_token")
        if slot >= len(h.tokens[ci]) or h.tokens[ci][slot] is None:
            raise IllegalAction(f"no token in {city} slot {slot}", "remove_token")
        owner = h.tokens[ci][slot]
        if owner not in game.corporations or game.corporations[owner].kind != CITY:
            raise IllegalAction("only Stadtbahn tokens may be removed", "remove_token")
        game.pay(self.major(game), None, REMOVE_TOKEN_COST)
        h.tokens[ci][slot] = None
        game.board._changed()
        self.removed = h.id

    def pass_(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        if self.pending:
            self.pending.pop(0)
            return
        self.next_stage(game)

    def run_routes(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        corp = self.corp(game)
        rules = rules_of(game)
        records = action.get("routes")
        revenue = route_revenue(game, corp, records)
        if records:
            revenue += rules.maintenance_of(game, corp)  # running no route at all costs no maintenance
        if revenue >= 0:
            game.pay(None, corp, revenue)
        else:
            major = self.major(game)
            need = -revenue
            if major.cash < need:
                director = game.player(major.president)
                rules.take_loans(game, director, need - major.cash)
                game.pay(director, major, need - major.cash)
            game.pay(major, None, need)
        self.next_stage(game)

    def buy_company(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        major = self.major(game)
        company = game.company(action.get("company"))
        price = need_int(action, "price")
        if company.sym not in self.companies_for_sale(game):
            raise IllegalAction(f"{company.sym} is not for sale", "buy_company")
        if not company.min_price <= price <= company.max_price:
            raise IllegalAction(f"price must be between {company.min_price} and {company.max_price}",
                                "company_price")
        seller = game.player(company.owner)
        game.pay(major, seller, price)
        seller.companies.remove(company.sym)
        company.owner = major.sym
        major.companies.append(company.sym)

    def scrap_train(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        """A line may scrap its tram (to shed maintenance) instead of running it."""
        corp = self.corp(game)
        if action.get("train") not in {t.id for t in corp.trains}:
            raise IllegalAction(f"{corp.sym} has no tram {action.get('train')}", "scrap_train")
        scrap_tram(game, self.major(game), action)
        if not route_possible(game, corp):
            self.next_stage(game)


def is_orange(game: Game, hex_id: str) -> bool:
    raw = orange_codes(game)
    return hex_id in raw


def orange_codes(game: Game) -> dict[str, str]:
    cached = game.defn.__dict__.get("_orange_1840")
    if cached is None:
        cached = {}
        for h in game.defn.data.map.get("hexes") or []:
            code = h.get("code") or ""
            if ORANGE in code:
                icon = ""
                if "icon=image:1840/" in code:
                    icon = code.split("icon=image:1840/")[1].split(";")[0].split("_")[0]
                cached[h["id"]] = icon
        game.defn.__dict__["_orange_1840"] = cached
    return cached


def orange_icon(game: Game, hex_id: str) -> str:
    return orange_codes(game).get(hex_id, "")


def place_line_home(game: Game, corp: Corporation) -> None:
    """A line's first station goes on its home stop when it first operates (free)."""
    home = corp.home
    if not isinstance(home, str):
        return
    h = game.board.hex(home)
    for ci, slots in enumerate(h.tokens):
        reserved = h.reservations[ci] if ci < len(h.reservations) else []
        for si, owner in enumerate(slots):
            if owner is None and (si >= len(reserved) or reserved[si] in (None, corp.sym)):
                game.board.place_token(corp.sym, game.board.city_id(home, ci), si)
                corp.tokens_placed += 1
                return


__all__ = ["AcquisitionRound", "AuctionRound", "ChoicesRound", "CompanyRound", "LineRound", "NODE_BASE", "MAJOR"]


# -- what the engine does by itself ------------------------------------------------------------------------
def automatic_action(game: Game) -> dict[str, Any] | None:
    """The next action nobody decides: a Stadtbahn's best run, or handing a major's only tram to its only
    line. Recorded games carry these as the triggering action's `auto_actions`."""
    round_ = game.round
    if round_.done:
        return None
    if isinstance(round_, CompanyRound) and round_.index < len(round_.entities):
        corp = round_.corp(game)
        if round_.sub == "route" and corp.kind == CITY:
            return {"type": "run_routes", "entity": corp.sym, "entity_type": "corporation",
                    "routes": best_run(game, corp), "extra_revenue": 0, "subsidy": 0}
        if round_.sub == "reassign":
            return only_tram_to_only_line(game, corp)
    if isinstance(round_, AcquisitionRound) and round_.interrupt and round_.interrupt[0][1] == "reassign":
        return only_tram_to_only_line(game, game.corporations[round_.interrupt[0][0]])
    return None


def best_run(game: Game, corp: Corporation) -> list[dict[str, Any]]:
    """The best run of a company's trams over its own kind of track (any number of stops)."""
    kinds = rules_of(game).train_kinds(game)
    trains = {t.id: lookup_train(kinds, t.name) for t in corp.trains}
    stops = len(game.board.reach(corp.sym).nodes)  # the City tram runs any distance: allow every stop
    return game.board.best_routes(corp.sym, trains, game.phase.tiles, game.phase.name,
                                  rules=Route1840(game, corp), max_stops=max(stops, 2))


def only_tram_to_only_line(game: Game, major: Corporation) -> dict[str, Any] | None:
    lines = rules_of(game).lines_of(game, major)
    if len(lines) != 1 or len(scrappable(game, major)) != 1 or not major.trains:
        return None
    return {"type": "reassign_trains", "entity": major.sym, "entity_type": "corporation",
            "assignments": [{"train": major.trains[0].id, "corporation": lines[0].sym}]}

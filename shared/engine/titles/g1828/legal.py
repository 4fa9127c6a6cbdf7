"""The concrete actions open in 1828's rounds (`legal_actions` asks through `Rules1828.legal_options`).

1828 enumerates every type itself: where its steps are the shared ones (stock purchases and sales, pars
in the stock round, track, stations, routes, dividends) the shared enumerators of engine/legal.py do the
work; the title adds what its own steps open: bids and the founding par in the waterfall auction, Mohawk &
Hudson's share exchange, starting a merger and its choices, a System's partner and its trains' shells,
coal markers, privates bought by corporations and the tiles and stations they lay, train purchases with
the president's money and the emergency share sales that raise it, and bankruptcy.

Train purchases are filtered by the buying step's own checks (`check_purchase`, asked without playing
them); options whose acceptance depends on more than such a check (a private's lay, an emergency sale) are
tried on a copy of the game, so what is offered is accepted.
"""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from ...errors import IllegalAction, accepts
from ...model import POOL
from . import coal, privates
from .auction import AuctionRound
from .operating import (
    BuyCompany,
    BuyTrain1828,
    OperatingRound1828,
    RunRoutes1828,
    coalfield_cities,
    company_ability,
    discardable,
    minor_network,
    own_cities,
    pending_company,
    stops_by_tile,
    track_ability,
)
from .privates import _in_track_step
from .stock import BuySellParShares1828, StockRound1828, merge_candidate
from .systems import is_system, shells_with_room

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Company, Corporation

Option = dict[str, Any]
ROTATIONS = range(6)


def enumerates_itself(game: Game, kind: str) -> bool:
    return isinstance(game.round, (AuctionRound, StockRound1828, OperatingRound1828))


def legal_options(game: Game, kind: str, entity: Any) -> list[Option]:
    round_ = game.round
    if isinstance(round_, AuctionRound):
        return _auction(game, round_, kind, entity)
    if isinstance(round_, StockRound1828):
        return _stock(game, round_, kind, entity)
    if isinstance(round_, OperatingRound1828):
        return _operating(game, round_, kind, entity)
    return []


def _shared(game: Game, kind: str, entity: Any) -> list[Option]:
    from ...legal import shared_options

    return shared_options(game, kind, entity)


def _accepted(game: Game, kind: str, entity: Any, options: list[Option]) -> list[Option]:
    """The options `process` accepts, each tried on a copy of the game."""
    blob = pickle.dumps(game, pickle.HIGHEST_PROTOCOL)
    return [o for o in options if accepts(pickle.loads(blob).process, {"type": kind, "entity": entity, **o})]


def _discard_train(game: Game, entity: Any) -> list[Option]:
    """Only a train over the limit goes (a System's from its crowded shell)."""
    corp = game.corporations[entity]
    return [{"train": t.id} for t in discardable(game, corp)]


# -- the waterfall auction ---------------------------------------------------------------------------------
def _auction(game: Game, round_: AuctionRound, kind: str, entity: Any) -> list[Option]:
    if kind == "pass":
        return [{}]
    if kind == "par":
        company = game.companies[round_.pending_par[0]]
        ability = next(a for a in company.abilities if a.get("type") == "shares")
        target = ability["shares"][0].rpartition("_")[0]
        return [{"corporation": target, "share_price": cell.id} for cell in game.rules.par_cells(game)]
    return round_.bid_options(game, entity) if kind == "bid" else []


# -- the stock round ---------------------------------------------------------------------------------------
def _stock(game: Game, round_: StockRound1828, kind: str, entity: Any) -> list[Option]:
    merger = round_.merger
    if kind == "choose":
        if merger is not None:
            choice = merger.choice
            if not choice or choice.chooser != entity:
                return []
            good = [label for label in choice.labels if _answer_completes(game, entity, label)]
            return [{"choice": label} for label in good or choice.labels]
        corps = [c for c in game.corporations.values() if c.kind == "major"]
        # an unstarted corporation may start a merger but never complete one, and a merger that would
        # fail can only be taken back: neither is offered
        return [{"choice": c.sym} for c in corps if c.ipoed
                if any(merge_candidate(game, round_, entity, c, other)
                       and _merger_completes(game, entity, c.sym, other.sym) for other in corps)]
    if kind == "failed_merge":  # a declared failure (a turn's purchase); never the answer to a real one
        if merger is not None:
            return []
        corps = [c for c in game.corporations.values() if c.kind == "major"]
        return [{"corporations": [c.sym, other.sym]} for c in corps for other in corps
                if merge_candidate(game, round_, entity, c, other)]
    if kind == "merge":
        if merger is None:
            return []
        initiator = game.corporations[merger.initiator]
        return [{"entity": initiator.sym, "entity_type": "corporation", "corporation": c.sym}
                for c in game.corporations.values()
                if merge_candidate(game, round_, merger.acting_player, initiator, c)
                and _merger_completes(game, None, initiator.sym, c.sym)]
    if kind == "buy_shares":
        return _buy_shares(game, round_, entity)
    if kind == "discard_train":
        return _discard_train(game, entity)
    return _shared(game, kind, entity)


def _answer_completes(game: Game, player: Any, label: str) -> bool:
    """Would the merger still complete after this answer (later questions answered with their first offer)?"""
    return _merger_completes(game, None, "", "", first={"type": "choose", "entity": player, "choice": label})


def _merger_completes(game: Game, player: Any, initiator: str, target: str,
                      first: dict[str, Any] | None = None) -> bool:
    """Play the merger out on a copy, each question answered with its first offer: does it complete? A
    merger that fails can only be taken back, so the offers steer clear of it."""
    trial = pickle.loads(pickle.dumps(game, pickle.HIGHEST_PROTOCOL))
    try:
        if first is not None:
            trial.process(first)
        else:
            if player is not None:
                trial.process({"type": "choose", "entity": player, "choice": initiator})
            trial.process({"type": "merge", "entity": initiator, "corporation": target})
        for _ in range(50):
            state = getattr(trial.round, "merger", None)
            if state is None or state.choice is None:
                break
            trial.process({"type": "choose", "entity": state.choice.chooser, "choice": state.choice.labels[0]})
    except IllegalAction:
        return False
    state = getattr(trial.round, "merger", None)
    return state is None


def _buy_shares(game: Game, round_: StockRound1828, entity: Any) -> list[Option]:
    """The shared purchases, and Mohawk & Hudson's exchange for a treasury or market share (the private acts)."""
    out = _shared(game, "buy_shares", entity)
    step = next(s for s in round_.steps if isinstance(s, BuySellParShares1828))
    company = step.exchange_company(game, entity) if not round_.bought() else None
    if company is None:
        return out
    for corp in game.corporations.values():
        if not corp.ipoed or corp.closed:
            continue
        for holder in (corp.sym, POOL):
            share = next((s for s in corp.shares if s.owner == holder and not s.president), None)
            if share is not None:
                out.append({"entity": company.sym, "entity_type": "company", "shares": [share.id],
                            "percent": share.percent})
    return out


# -- the operating round -----------------------------------------------------------------------------------
def _operating(game: Game, round_: OperatingRound1828, kind: str, entity: Any) -> list[Option]:
    company = pending_company(game, entity)
    if company is not None:
        return _company_turn(game, round_, kind, company)
    options = _corporation_turn(game, round_, kind, entity)
    # The C&P minor and the majors of the founding privates share their names with privates: the moves name
    # them as the minor or corporation they are, or a record would have the private act (which the
    # reference refuses: 'Blocking step Lay/Upgrade Track cannot process action lay_tile').
    own_type = "minor" if game.corporations[entity].kind == "minor" else "corporation"
    for option in options:
        option.setdefault("entity_type", own_type)
    return options


def _corporation_turn(game: Game, round_: OperatingRound1828, kind: str, entity: Any) -> list[Option]:
    corp = game.corporations[entity]
    if kind == "lay_tile":
        return _lay_tile(game, round_, corp) + _private_lays(game, round_, corp)
    if kind == "buy_train":
        return _buy_train(game, round_, corp)
    if kind == "sell_shares":
        return _emergency_sales(game, round_, corp)
    if kind == "buy_company":
        return _buy_company(game, corp)
    if kind == "discard_train":
        return _discard_train(game, entity)
    if kind == "swap_train":
        return [{"train": t.id} for t in corp.trains if not t.rusted] if is_system(game, corp) else []
    if kind == "bankrupt":
        return [{}]
    if kind == "run_routes":
        return _run_routes(game, corp)
    if kind == "place_token":  # never the coalfields, never a second station in a city
        closed = coalfield_cities(game) | own_cities(game, entity)
        return [o for o in _shared(game, kind, entity) if o.get("city") not in closed]
    return _shared(game, kind, entity)


class _AvoidCoalfields:
    """The board's route rules, refusing routes into the coalfields (for a corporation without a marker)."""

    def __init__(self, base: Any, coalfields: str) -> None:
        self.base = base
        self.coalfields = coalfields

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)

    def check_title(self, ctx: Any, routes: list[Any], i: int) -> None:
        if any(self.coalfields in chain for chain in routes[i].chains):
            raise IllegalAction(f"a route to {self.coalfields} needs a coal marker", "coal_marker")
        self.base.check_title(ctx, routes, i)


def _run_routes(game: Game, corp: Corporation) -> list[Option]:
    """The best run there is (around the coalfields without a coal marker), if it is accepted."""
    trains = game.rules.route_trains(game, game.round, corp)
    kinds = game.rules.train_kinds(game)
    by_id = {t.id: kinds[t.name] for t in trains}
    limits: dict[str, Any] = {}
    if not coal.has_marker(game, corp):
        base = game.board.rules.route_rules
        limits["rules"] = _AvoidCoalfields(base, coal.coalfields(game))
    if corp.kind == "minor":
        with minor_network(game, corp):
            routes = game.board.best_routes(corp.sym, by_id, game.rules.revenue_colors(game), game.phase.name,
                                            **limits) if by_id else []
        laid = game.round.laid_hexes[:1] if isinstance(game.round, OperatingRound1828) else []
        served = stops_by_tile(game, laid[0]) if laid else set()
        routes = [r for r in routes if served & set(r["nodes"])]
    else:
        routes = game.board.best_routes(corp.sym, by_id, game.rules.revenue_colors(game), game.phase.name,
                                        **limits) if by_id else []
    option = {"routes": routes, "extra_revenue": 0, "subsidy": 0}
    round_ = game.round
    assert isinstance(round_, OperatingRound1828)
    step = next(s for s in round_.steps if isinstance(s, RunRoutes1828))
    return [option] if accepts(step.check_run, game, round_, corp, {"type": "run_routes", "entity": corp.sym,
                                                                    **option}) else []


def _lay_tile(game: Game, round_: OperatingRound1828, corp: Corporation) -> list[Option]:
    """The shared lays; a lay with its own price (B&M's and NYH's $40 extra) is tried on a copy."""
    if not _track_step_open(game, round_):
        return []
    lays = _shared(game, "lay_tile", corp.sym)
    lay_rules = game.rules.tile_lays(game)
    index = len(round_.laid_hexes)
    if index < len(lay_rules) and int(lay_rules[index].get("cost") or 0):
        lays = _accepted(game, "lay_tile", corp.sym, lays)
    return lays


def _track_step_open(game: Game, round_: OperatingRound1828) -> bool:
    step = next((s for s in round_.steps if type(s).__name__ == "Track1828"), None)
    return step is not None and round_.active_step(game) is step


def _company_turn(game: Game, round_: OperatingRound1828, kind: str, company: Company) -> list[Option]:
    if game.extra.get("pending_token") == [company.sym]:
        if kind == "pass":
            return [{}]
        if kind != "place_token":
            return []
        h = game.board.hex(game.extra["pending_token_hex"])
        # the station is the owning corporation's: the move names it as the tokener, as records do
        options = [{"city": game.board.city_id(h.id, index), "slot": slot, "tokener": company.owner}
                   for index, slots in enumerate(h.tokens) for slot in range(len(slots))]
        return _accepted(game, kind, company.sym, options)
    if kind == "lay_tile" and company.sym in game.extra.get("pending_lays", []):
        ability = next(a for a in company.abilities if a.get("type") == "tile_lay" and a.get("when") == "sold")
        return _ability_lays(game, company, ability)
    return []


def _ability_lays(game: Game, company: Company, ability: dict[str, Any]) -> list[Option]:
    """A private's lays on its named hexes, or anywhere its corporation may build when it names none, as
    far as the private's own checks (`privates.check_lay`) allow."""
    assert isinstance(company.owner, str)
    names = list(dict.fromkeys(ability.get("tiles", [])))  # the data's order: options never depend on hashing
    if ability.get("hexes"):
        candidates = [(hex_id, name, rotation) for hex_id in ability["hexes"] for name in names
                      for rotation in ROTATIONS]
    else:
        candidates = [(hex_id, name, rotation)
                      for hex_id, name, rotation, _ in game.board.legal_lay_results(company.owner, game.phase.tiles)
                      if name in names]
    round_ = game.round
    assert isinstance(round_, OperatingRound1828)
    options = []
    for hex_id, name, rotation in candidates:
        copy = game.board.supply.free_copy(name)
        if copy is None:
            continue
        option = {"hex": hex_id, "tile": f"{name}-{copy}", "rotation": rotation}
        if accepts(privates.check_lay, game, round_, company, {"type": "lay_tile", **option}):
            options.append(dict(option, entity=company.sym, entity_type="company"))
    return options


def _private_lays(game: Game, round_: OperatingRound1828, corp: Corporation) -> list[Option]:
    """Lays by the corporation's privates: E&K's extra yellow tile in the track step, C&St.L's free tile
    at any time, D&H's tile on F20 (the corporation's own lay, so in the track step)."""
    out: list[Option] = []
    for sym in corp.companies:
        company = game.companies[sym]
        if company.closed:
            continue
        ability = company_ability(game, company, "owning_corp_or_turn")
        if ability is None and company is track_ability(game, corp) and _in_track_step(game, round_):
            ability = company_ability(game, company, "track")
        teleport = next((a for a in company.abilities if a.get("type") == "teleport"), None)
        if ability is None and teleport is not None and _in_track_step(game, round_) \
                and f"{sym}/teleport" not in game.extra.get("used_abilities", []):
            ability = teleport
        if ability is not None:
            out.extend(_ability_lays(game, company, ability))
    return out


def _buy_train(game: Game, round_: OperatingRound1828, corp: Corporation) -> list[Option]:
    """Depot trains the treasury pays for, the cheapest one with the president's help, and other
    corporations' trains at their meaningful prices (lowest, face value, all the money there is)."""
    step = next(s for s in round_.steps if isinstance(s, BuyTrain1828))
    president = game.rules.acting_player_for(game, corp)
    helps = step.may_contribute(game, corp) and president is not None
    purse = corp.cash + (game.player(president).cash if helps else 0)
    cheapest = step.cheapest(game, corp)
    options: list[Option] = []
    for train in game.rules.depot_trains_for(game, corp):
        if train.price <= corp.cash or (train.price == cheapest and train.price <= purse):
            options.append({"train": train.id, "price": train.price})
    low = game.rules.min_train_price_from_corporation(game)
    for train in game.rules.other_trains(game, corp):
        seller = game.corporations[train.owner]  # type: ignore[index]
        if not game.rules.may_buy_from(game, corp, seller):
            continue
        prices = {low, min(train.price, corp.cash), corp.cash}
        if helps:
            prices.add(min(train.price, purse))
        limits = step.sale_range(game, corp, train)
        if limits is not None:  # after an emergency sale (rules-1828.md, "After an emergency sale")
            prices = {p for p in prices | set(limits) if limits[0] <= p <= limits[1]}
        options.extend({"train": train.id, "price": p} for p in sorted(prices) if low <= p <= max(corp.cash, purse))
    if is_system(game, corp):
        options = [dict(o, shell=shell) for o in options for shell in shells_with_room(game, corp)]
    return [o for o in options if _purchase_allowed(game, round_, step, corp, o)]


def _purchase_allowed(game: Game, round_: OperatingRound1828, step: BuyTrain1828, corp: Corporation,
                      option: Option) -> bool:
    """The step's own checks, asked without playing the purchase."""
    return accepts(step.check_purchase, game, round_, corp, {"type": "buy_train", "entity": corp.sym, **option})


def _emergency_sales(game: Game, round_: OperatingRound1828, corp: Corporation) -> list[Option]:
    """What the president may sell to pay for the train the corporation must buy."""
    president = game.rules.acting_player_for(game, corp)
    if president is None:
        return []
    options = []
    for other in game.corporations.values():
        held = [s for s in other.shares if s.owner == president and not s.president]
        for n in range(1, len(held) + 1):
            options.append({"shares": [s.id for s in held[:n]], "percent": sum(s.percent for s in held[:n])})
        # with the president's certificate, part or all of its percent (a new president, or the market,
        # hands ordinary certificates back): which of these the sale rules allow, the trial below says
        chair = next((s for s in other.shares if s.owner == president and s.president), None)
        if chair is not None:
            unit = min((s.percent for s in other.shares if not s.president), default=10) or 10
            for n in range(len(held) + 1):
                for part in range(unit, chair.percent + 1, unit):
                    options.append({"shares": [s.id for s in held[:n]] + [chair.id],
                                    "percent": sum(s.percent for s in held[:n]) + part})
    return [dict(o, entity=president, entity_type="player")
            for o in _accepted(game, "sell_shares", president, options)]


def _buy_company(game: Game, corp: Corporation) -> list[Option]:
    out = []
    for company in BuyCompany.purchasable(game):
        prices = {company.min_price, company.max_price, corp.cash}
        out.extend({"company": company.sym, "price": p} for p in sorted(prices)
                   if company.min_price <= p <= min(company.max_price, corp.cash))
    return out

"""The concrete actions open in 1840's own rounds (`legal_actions` asks through `Rules1840.legal_options`).

Candidates are generated from the round's state. Where the handler's checks can be made without acting
(`CHECKED_ON_THE_SPOT`) the generator makes them itself; every other candidate is tried on a copy of the
game. Either way an offered action is one `process` accepts (the random-play soak checks this). Ranges are
offered at their meaningful points: a bid at the lowest allowed amount, a private's price at its minimum and
maximum. Dividends are every multiple of 10 up to the revenue; tram reassignments every distribution with
at most one tram per line.
"""

from __future__ import annotations

import itertools
import pickle
from typing import TYPE_CHECKING, Any

from ...board.tiles import NODE_BASE
from ...errors import EngineError, accepts
from .acquisition import AcquisitionRound
from .auction import AuctionRound, ChoicesRound
from .company import CompanyRound
from .flow import LINE_BID_STEP, LINE_MIN_BID, REMOVE_TOKEN_COST, FlowRound, rules_of
from .line import (
    LineRound,
    check_extends_stadtbahn,
    check_hex_reservation,
    framed_tiles,
    is_orange,
    lifted_entry,
    station_spots,
)
from .routes import best_run, stadtbahn_run
from .rules import CITY
from .trams import buyable_trams, manned_first, scrappable

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Corporation

Option = dict[str, Any]


def accepted(game: Game, kind: str, entity: Any, option: Option) -> bool:
    """Would `process` take this action now? Tried on a copy; the game itself is untouched."""
    trial = pickle.loads(pickle.dumps(game, pickle.HIGHEST_PROTOCOL))
    return accepts(trial.process, {"type": kind, "entity": entity, **option})


def legal_options(game: Game, kind: str, entity: Any) -> list[Option]:
    round_ = game.round
    if not isinstance(round_, FlowRound) or round_.done:
        return []
    make = OPTIONS.get(kind)
    if make is None:
        return []
    options = make(game, round_, entity)
    if kind in CHECKED_ON_THE_SPOT:
        return options
    return [o for o in options if accepted(game, kind, entity, o)]


# -- shared shapes -----------------------------------------------------------------------------------------
def _pass(game: Game, round_: Any, entity: Any) -> list[Option]:
    return [{}]


def _scrap(game: Game, round_: Any, entity: Any) -> list[Option]:
    corp = game.corporations[entity]
    if isinstance(round_, LineRound):
        return [{"train": t.id} for t in corp.trains]
    return [{"train": t.id} for t in scrappable(game, corp)]


def _buy_train(game: Game, round_: Any, entity: Any) -> list[Option]:
    """Trams on sale now: a major that has trams must afford them; one without borrows if it must."""
    major = game.corporations[entity]
    if len(scrappable(game, major)) >= game.phase.train_limit:
        return []
    cash = major.cash if scrappable(game, major) else None
    return [{"train": t.id, "price": price, "variant": variant} for t, variant, price in buyable_trams(game)
            if cash is None or price <= cash]


def _reassign(game: Game, round_: Any, entity: Any) -> list[Option]:
    """Every distribution of the major's trams over itself and its lines, at most one per line."""
    major = game.corporations[entity]
    lines = [c.sym for c in rules_of(game).lines_of(game, major)]
    trams = scrappable(game, major)
    out = []
    for targets in itertools.product([major.sym, *lines], repeat=len(trams)):
        if any(targets.count(sym) > 1 for sym in lines) or not manned_first(major.sym, lines, list(targets)):
            continue
        out.append({"assignments": [{"train": t.id, "corporation": sym} for t, sym in zip(trams, targets, strict=True)]})
    return out


def _bid(game: Game, round_: Any, entity: Any) -> list[Option]:
    if isinstance(round_, AuctionRound):
        cash = game.player(entity).cash
        syms = [round_.auctioning] if round_.auctioning else list(round_.companies)
        return [{"company": sym, "price": round_.min_bid(game, sym)} for sym in syms
                if sym is not None and round_.min_bid(game, sym) <= cash]
    assert isinstance(round_, AcquisitionRound)
    least = round_.bids[-1][1] + LINE_BID_STEP if round_.bids else LINE_MIN_BID
    if least > game.corporations[entity].cash:
        return []
    return [{"corporation": round_.auctioning, "price": least}]


def _choose(game: Game, round_: Any, entity: Any) -> list[Option]:
    assert isinstance(round_, ChoicesRound)
    return [{"choice": position} for position in round_.left]


def _merge(game: Game, round_: Any, entity: Any) -> list[Option]:
    """A major short of the opening bid may name a line, but then cannot go on (rules-1840 *Naming a
    line*): never offered."""
    if game.corporations[entity].cash < LINE_MIN_BID:
        return []
    return [{"corporation": sym} for sym in game.extra["lines_offered"]]


def _dividend(game: Game, round_: Any, entity: Any) -> list[Option]:
    major = game.corporations[entity]
    revenue = sum(line.cash for line in rules_of(game).lines_of(game, major))
    return [{"kind": "variable", "amount": amount} for amount in range(0, revenue + 1, 10)]


def _run_routes(game: Game, round_: Any, entity: Any) -> list[Option]:
    corp = game.corporations[entity]
    best = stadtbahn_run(game, corp) if corp.kind == CITY else best_run(game, corp)
    options = [{"routes": best, "extra_revenue": 0, "subsidy": 0}]
    if corp.kind != CITY and best:
        options.append({"routes": [], "extra_revenue": 0, "subsidy": 0})  # a line may decline to run
    return options


# -- line rounds --------------------------------------------------------------------------------------------
def _lay_tile(game: Game, round_: Any, entity: Any) -> list[Option]:
    """Candidates from the hexes the lay could use, each checked by the handler's own check
    (`LineRound.check_own_lay` / `check_special_lay`), cheap connection test first."""
    assert isinstance(round_, LineRound)
    board = game.board
    extras = rules_of(game).extras(game)
    pending = round_.pending[0] if round_.pending else None
    colors = [pending] if pending else list(game.phase.tiles)
    corp = game.corporations[entity]
    reach = board.reach(entity)
    candidates: list[tuple[str, str]] = []
    stadtbahn_open: dict[str, bool] = {}
    if pending in ("red", "purple"):
        hexes = extras["red_tiles"]["hexes"] if pending == "red" else \
            [h.id for h in board.hexes.values() if h.tile.color == "purple"]
        names = sorted(n for n, t in board.catalogue.items() if t.color == pending)
        candidates = [(hex_id, name) for hex_id in hexes for name in names]
    else:
        hexes = set(reach.edges)
        if pending is None:
            hexes |= {h.id for h in board.hexes.values() if is_orange(game, h.id)}
        for hex_id in sorted(hexes):
            h = board.hexes[hex_id]
            for name in sorted(board.upgrade_targets(h)):
                tile = board.catalogue.get(name)
                if tile is not None and tile.color in colors:
                    candidates.append((hex_id, name))
    out = []
    track_exits = extras["stadtbahn"]["track_exits"]
    framed = framed_tiles(game)
    for hex_id, name in candidates:
        copy = board.supply.free_copy(name)
        if copy is None:
            continue
        orange = is_orange(game, hex_id)
        if pending not in ("red", "purple") and orange != (name in framed):
            continue  # `check_frame`, before any rotation
        stadtbahn = pending is None and orange and board.catalogue[name].color == "yellow"
        if pending is None and not accepts(round_.check_lay_allowed, corp, orange, stadtbahn):
            continue
        if stadtbahn and hex_id not in stadtbahn_open:
            stadtbahn_open[hex_id] = accepts(check_extends_stadtbahn, game, hex_id)
        if stadtbahn and not stadtbahn_open[hex_id]:
            continue
        needed = set(track_exits.get(hex_id) or []) if stadtbahn else set()
        for rotation in range(6):
            option = {"hex": hex_id, "tile": f"{name}-{copy}", "rotation": rotation}
            if stadtbahn and not needed <= set(board.catalogue[name].rexits[rotation]):
                continue  # `check_stadtbahn_exits`
            if pending not in ("red", "purple") and not stadtbahn and \
                    not board.catalogue[name].rexits[rotation] & reach.edges.get(hex_id, set()):
                continue  # not connected: the cheap part of `check_lay` first
            try:
                if pending is not None:
                    round_.check_special_lay(game, corp, hex_id, option["tile"], rotation)
                else:
                    round_.check_own_lay(game, corp, hex_id, option["tile"], rotation, stadtbahn_checked=True)
            except EngineError:
                continue
            out.append(option)
    return out


def _place_token(game: Game, round_: Any, entity: Any) -> list[Option]:
    """The checks `LineRound.place_token` makes, without placing: a free slot, a connected city (not for the
    home station), a station left and the money for it."""
    assert isinstance(round_, LineRound)
    corp: Corporation = game.corporations[entity]
    board = game.board
    pending = round_.pending[0] if round_.pending else None
    lifted = lifted_entry(pending) if pending else None
    if lifted is not None:  # another company's station lifted by this line's tile
        owner = game.corporations[lifted[0]]
        return [{"city": city, "slot": si} for city, si in station_spots(game, owner, lifted[1])
                if accepts(check_hex_reservation, game, owner, lifted[1])]
    if pending == "home" and isinstance(corp.home, str):
        h = board.hex(corp.home)
        cities = [(ci, False) for ci in range(len(h.tokens))]
        hex_cities = [(corp.home, ci, connect) for ci, connect in cities]
    else:
        hex_cities = []
        for hex_id, code in sorted(board.reach(entity).nodes):
            node = board.hexes[hex_id].tile.nodes[code - NODE_BASE]
            if node.is_city:
                hex_cities.append((hex_id, node.index, True))
    if corp.next_token_price() is None and pending != "home":
        return []  # no station left: not even a granted extra one (rules-1840 *Extra station*)
    price = 0 if pending in ("token", "home") else corp.next_token_price()
    if price is None or price > round_.major(game).cash:
        return []
    out = []
    for hex_id, ci, connect in hex_cities:
        city = board.city_id(hex_id, ci)
        for si in range(len(board.hexes[hex_id].tokens[ci])):
            try:
                board.check_token(entity, city, si, must_connect=connect)
                check_hex_reservation(game, corp, hex_id)
            except EngineError:
                continue
            out.append({"city": city, "slot": si})
    return out


def _remove_token(game: Game, round_: Any, entity: Any) -> list[Option]:
    """Stadtbahn stations outside the protected hexes, if the owning major can pay for the removal."""
    assert isinstance(round_, LineRound)
    if round_.major(game).cash < REMOVE_TOKEN_COST:
        return []
    board = game.board
    protected = set(rules_of(game).extras(game)["no_token_remove_hexes"])
    out = []
    for h in board.hexes.values():
        if h.id in protected:
            continue
        for ci, slots in enumerate(h.tokens):
            for si, owner in enumerate(slots):
                if owner in game.corporations and game.corporations[owner].kind == CITY:
                    out.append({"city": board.city_id(h.id, ci), "slot": si})
    return out


def _buy_company(game: Game, round_: Any, entity: Any) -> list[Option]:
    assert isinstance(round_, LineRound)
    out = []
    for sym in round_.companies_for_sale(game):
        company = game.companies[sym]
        for price in sorted({company.min_price, min(company.max_price, round_.major(game).cash)}):
            out.append({"company": sym, "price": price})
    return out


# generated with the handlers' own checks, no trial on a copy (only a run is tried: its routes are searched)
CHECKED_ON_THE_SPOT = {"pass", "choose", "merge", "dividend", "bid", "lay_tile", "place_token", "remove_token",
                       "buy_train", "scrap_train", "reassign_trains", "buy_company"}

OPTIONS = {
    "pass": _pass, "bid": _bid, "choose": _choose, "merge": _merge, "dividend": _dividend,
    "run_routes": _run_routes, "buy_train": _buy_train, "scrap_train": _scrap, "reassign_trains": _reassign,
    "lay_tile": _lay_tile, "place_token": _place_token, "remove_token": _remove_token,
    "buy_company": _buy_company,
}

__all__ = ["CompanyRound", "legal_options"]

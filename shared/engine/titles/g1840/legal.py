"""The concrete actions open in 1840's own rounds (`legal_actions` asks through `Rules1840.legal_options`).

Candidates are generated from the round's state and each is then tried on a copy of the game, so an
offered action is always one `process` accepts. Ranges are offered at their meaningful points: a bid at
the lowest allowed amount, a private's price at its minimum and maximum. Dividends are every multiple of
10 up to the revenue; tram reassignments every distribution with at most one tram per line.
"""

from __future__ import annotations

import itertools
import pickle
from typing import TYPE_CHECKING, Any

from ...errors import EngineError
from .rounds import (
    CITY,
    NODE_BASE,
    ORANGE,
    AcquisitionRound,
    AuctionRound,
    ChoicesRound,
    CompanyRound,
    FlowRound,
    LineRound,
    best_run,
    buyable_trams,
    is_orange,
    rules_of,
    scrappable,
)

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Corporation

Option = dict[str, Any]


def accepted(game: Game, kind: str, entity: Any, option: Option) -> bool:
    """Would `process` take this action now? Tried on a copy; the game itself is untouched."""
    trial = pickle.loads(pickle.dumps(game, pickle.HIGHEST_PROTOCOL))
    try:
        trial.process({"type": kind, "entity": entity, **option})
    except EngineError:
        return False
    return True


def legal_options(game: Game, kind: str, entity: Any) -> list[Option]:
    round_ = game.round
    if not isinstance(round_, FlowRound) or round_.done:
        return []
    make = OPTIONS.get(kind)
    if make is None:
        return []
    options = make(game, round_, entity)
    if kind == "lay_tile":
        return options  # checked on the spot (a copy per candidate tile would be slow)
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
    return [{"train": t.id, "price": price, "variant": variant} for t, variant, price in buyable_trams(game)]


def _reassign(game: Game, round_: Any, entity: Any) -> list[Option]:
    """Every distribution of the major's trams over itself and its lines, at most one per line."""
    major = game.corporations[entity]
    lines = [c.sym for c in rules_of(game).lines_of(game, major)]
    trams = scrappable(game, major)
    out = []
    for targets in itertools.product([major.sym, *lines], repeat=len(trams)):
        if any(targets.count(sym) > 1 for sym in lines):
            continue
        out.append({"assignments": [{"train": t.id, "corporation": sym} for t, sym in zip(trams, targets, strict=True)]})
    return out


def _bid(game: Game, round_: Any, entity: Any) -> list[Option]:
    if isinstance(round_, AuctionRound):
        syms = [round_.auctioning] if round_.auctioning else list(round_.companies)
        return [{"company": sym, "price": round_.min_bid(game, sym)} for sym in syms if sym is not None]
    assert isinstance(round_, AcquisitionRound)
    least = round_.bids[-1][1] + 5 if round_.bids else 20
    return [{"corporation": round_.auctioning, "price": least}]


def _choose(game: Game, round_: Any, entity: Any) -> list[Option]:
    assert isinstance(round_, ChoicesRound)
    return [{"choice": position} for position in round_.left]


def _merge(game: Game, round_: Any, entity: Any) -> list[Option]:
    return [{"corporation": sym} for sym in game.extra["lines_offered"]]


def _dividend(game: Game, round_: Any, entity: Any) -> list[Option]:
    major = game.corporations[entity]
    revenue = sum(line.cash for line in rules_of(game).lines_of(game, major))
    return [{"kind": "variable", "amount": amount} for amount in range(0, revenue + 1, 10)]


def _run_routes(game: Game, round_: Any, entity: Any) -> list[Option]:
    corp = game.corporations[entity]
    best = best_run(game, corp)
    options = [{"routes": best, "extra_revenue": 0, "subsidy": 0}]
    if corp.kind != CITY and best:
        options.append({"routes": [], "extra_revenue": 0, "subsidy": 0})  # a line may decline to run
    return options


# -- line rounds --------------------------------------------------------------------------------------------
def _lay_tile(game: Game, round_: Any, entity: Any) -> list[Option]:
    assert isinstance(round_, LineRound)
    board = game.board
    extras = rules_of(game).extras(game)
    pending = round_.pending[0] if round_.pending else None
    colors = [pending] if pending else list(game.phase.tiles)
    candidates: list[tuple[str, str]] = []
    if pending in ("red", "purple"):
        hexes = extras["red_tiles"]["hexes"] if pending == "red" else \
            [h.id for h in board.hexes.values() if h.tile.color == "purple"]
        names = sorted(n for n, t in board.catalogue.items() if t.color == pending)
        candidates = [(hex_id, name) for hex_id in hexes for name in names]
    else:
        hexes = set(board.reach(entity).edges)
        if pending is None:
            hexes |= {h.id for h in board.hexes.values() if is_orange(game, h.id)
                      or h.preprinted.stripes == ORANGE}
        for hex_id in sorted(hexes):
            h = board.hexes[hex_id]
            for name in sorted(board.upgrade_targets(h)):
                tile = board.catalogue.get(name)
                if tile is not None and tile.color in colors:
                    candidates.append((hex_id, name))
    out = []
    cash = round_.major(game).cash
    for hex_id, name in candidates:
        copy = board.supply.free_copy(name)
        if copy is None:
            continue
        for rotation in range(6):
            option = {"hex": hex_id, "tile": f"{name}-{copy}", "rotation": rotation}
            if pending in ("red", "purple"):
                if accepted(game, "lay_tile", entity, option):
                    out.append(option)
                continue
            # the checks `LineRound.lay_tile` makes, without laying: one ordinary and one orange-framed
            # lay (orange ones need no connection), extra lays of their colour off the orange hexes
            orange = is_orange(game, hex_id) or board.hexes[hex_id].preprinted.stripes == ORANGE
            if pending is not None and is_orange(game, hex_id):
                continue
            if pending is None and (round_.orange_laid if orange else round_.normal_laid):
                continue
            try:
                result = board.check_lay(entity, hex_id, option["tile"], rotation, colors,
                                         must_connect=pending is not None or not orange)
            except EngineError:
                continue
            if result.cost <= cash:
                out.append(option)
    return out


def _place_token(game: Game, round_: Any, entity: Any) -> list[Option]:
    assert isinstance(round_, LineRound)
    corp: Corporation = game.corporations[entity]
    board = game.board
    if round_.pending and round_.pending[0] == "home" and isinstance(corp.home, str):
        h = board.hex(corp.home)
        return [{"city": board.city_id(corp.home, ci), "slot": si}
                for ci, slots in enumerate(h.tokens) for si, owner in enumerate(slots) if owner is None]
    out = []
    for hex_id, code in sorted(board.reach(entity).nodes):
        h = board.hexes[hex_id]
        node = h.tile.nodes[code - NODE_BASE]
        if node.is_city:
            out += [{"city": board.city_id(hex_id, node.index), "slot": si}
                    for si, owner in enumerate(h.tokens[node.index]) if owner is None]
    return out


def _remove_token(game: Game, round_: Any, entity: Any) -> list[Option]:
    board = game.board
    out = []
    for h in board.hexes.values():
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


OPTIONS = {
    "pass": _pass, "bid": _bid, "choose": _choose, "merge": _merge, "dividend": _dividend,
    "run_routes": _run_routes, "buy_train": _buy_train, "scrap_train": _scrap, "reassign_trains": _reassign,
    "lay_tile": _lay_tile, "place_token": _place_token, "remove_token": _remove_token,
    "buy_company": _buy_company,
}

__all__ = ["CompanyRound", "legal_options"]

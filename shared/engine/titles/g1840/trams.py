"""Trams: which are on sale, buying (with the director's loans), scrapping and reassigning them among a
Tram Company and its lines (a line runs at most one tram). Used by the company and acquisition rounds,
which both give a major its tram turn (`TramTurnOffers`: the concrete moves of that turn)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from ...errors import IllegalAction, MalformedAction
from ...model import Corporation, Train
from .flow import need_int, rules_of

if TYPE_CHECKING:
    from ...game import Game


def variant_prices(game: Game) -> dict[str, dict[str, int]]:
    """Tram kind -> {variant: price}, the kind itself among them (the train roster of the board data; fixed
    for the game's definition, so kept with it and not in the game state)."""
    cached = game.defn.__dict__.get("_variants_1840")
    if cached is None:
        cached = {}
        for raw in game.defn.data.setup["trains"]:
            cached[raw["name"]] = {raw["name"]: raw["price"],
                                   **{v["name"]: v["price"] for v in raw.get("variants") or []}}
        game.defn.__dict__["_variants_1840"] = cached
    return cached


def base_of(game: Game) -> dict[str, str]:
    """Variant name -> the tram kind it is a variant of (each kind its own base)."""
    cached = game.defn.__dict__.get("_base_of_1840")
    if cached is None:
        cached = {variant: kind for kind, variants in variant_prices(game).items() for variant in variants}
        game.defn.__dict__["_base_of_1840"] = cached
    return cached


def may_reassign(game: Game, major: Corporation) -> bool:
    """The major has lines, unless its single line already holds the only tram (nothing to decide). A major
    with lines but no tram still gets the step (the reference asks it, recorded as an empty reassignment)."""
    lines = rules_of(game).lines_of(game, major)
    if not lines:
        return False
    return not (len(lines) == 1 and lines[0].trains and not major.trains)


def reassign_actions(game: Game, major: Corporation) -> list[str]:
    """The reassignment step that follows a major's purchases: distribute its trams; an empty reassignment
    keeps them as they are. It has no pass (rules-1840 *Tram turn*)."""
    return ["reassign_trains"] if may_reassign(game, major) else []


def keeps_buying(game: Game, major: Corporation) -> bool:
    """After a purchase the purchase step goes on (scrap, buy, pass) while the major has room for another
    tram and its cash covers the cheapest variant, open or not, of a tram kind on sale this company round;
    otherwise it ends by itself (rules-1840 *Tram turn*; the reference's measure, see conflicts-1840)."""
    rules = rules_of(game)
    if len(scrappable(game, major)) >= game.phase.train_limit:
        return False
    kinds = {rules.base_name(game, train) for train, _, _ in buyable_trams(game)}
    prices = [p for kind in kinds for p in variant_prices(game)[kind].values()]
    return bool(prices) and major.cash >= min(prices)


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
        for variant, price in variant_prices(game)[base].items():
            if variant in open_variants:
                out.append((train, variant, price))
    return out


def tram_buy_actions(game: Game, major: Corporation) -> list[str]:
    """The tram purchase step: scrap any tram, buy while there is room and a tram it can pay (a major with
    no tram at all must buy one, its director lending the difference), pass unless it must buy."""
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


def buy_offers(game: Game, major: Corporation) -> list[dict[str, Any]]:
    """Trams on sale now, at their price (the checks of `buy_tram`): a major that has trams must afford
    them; one without any borrows from its director if it must."""
    if len(scrappable(game, major)) >= game.phase.train_limit:
        return []
    cash = major.cash if scrappable(game, major) else None
    return [{"train": t.id, "price": price, "variant": variant} for t, variant, price in buyable_trams(game)
            if cash is None or price <= cash]


def reassign_offers(game: Game, major: Corporation) -> list[dict[str, Any]]:
    """Every distribution of the major's trams over itself and its lines that `reassign_trams` accepts: at
    most one per line, and the major keeps one only when each line has one."""
    lines = [c.sym for c in rules_of(game).lines_of(game, major)]
    trams = scrappable(game, major)
    out = []
    for targets in itertools.product([major.sym, *lines], repeat=len(trams)):
        if any(targets.count(sym) > 1 for sym in lines) or not manned_first(major.sym, lines, list(targets)):
            continue
        out.append({"assignments": [{"train": t.id, "corporation": sym}
                                    for t, sym in zip(trams, targets, strict=True)]})
    return out


class TramTurnOffers:
    """The concrete moves of a major's tram turn, for the rounds that give one (company, acquisition)."""

    def offer_buy_train(self, game: Game, entity: Any) -> list[dict[str, Any]]:
        return buy_offers(game, game.corporations[entity])

    def offer_scrap_train(self, game: Game, entity: Any) -> list[dict[str, Any]]:
        return [{"train": t.id} for t in scrappable(game, game.corporations[entity])]

    def offer_reassign_trains(self, game: Game, entity: Any) -> list[dict[str, Any]]:
        return reassign_offers(game, game.corporations[entity])


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
    if not manned_first(major.sym, list(targets), list(final.values())):
        raise IllegalAction(f"{major.sym} may keep a tram only when each of its lines has one", "reassign")
    for tid, sym in plan.items():
        train = trams[tid]
        if train.owner == sym:
            continue
        game.corporations[str(train.owner)].trains.remove(train)
        train.owner = sym
        targets[sym].trains.append(train)


def manned_first(major: str, targets: list[str], holders: list[str]) -> bool:
    """A Tram Company keeps a tram for itself only when every one of its lines runs one (rules-1840
    *Tram turn*, reassignment step): `holders` names who holds each tram after the reassignment."""
    return major not in holders or all(sym in holders for sym in targets if sym != major)


def only_tram_to_only_line(game: Game, major: Corporation) -> dict[str, Any] | None:
    lines = rules_of(game).lines_of(game, major)
    if len(lines) != 1 or len(scrappable(game, major)) != 1 or not major.trains:
        return None
    return {"type": "reassign_trains", "entity": major.sym, "entity_type": "corporation",
            "assignments": [{"train": major.trains[0].id, "corporation": lines[0].sym}]}

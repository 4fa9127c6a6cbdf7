"""1833NE route bonuses and ferries: what a corporation's runs earn on top of the stops the board pays.

The seed's rules (a bonus for a route joining two places, P4 doubling A6-Boston bonuses in I-III, A12 paying
only through Montreal, ferries adding value to routes that reach their town, a "New" bonus that moves to the
newest ferry, P5 doubling one ferry) with the values of tables.json, most of them provisional.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import EngineError, IllegalAction, MalformedAction
from . import constants as K
from . import tables as T
from .state import state

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Corporation


# -- ferries --------------------------------------------------------------------------------------------------
def buyable_ferries(game: Game, corp: Corporation) -> list[str]:
    tables = T.of(game)
    if game.phase.name not in tables.ferry_phases or corp.cash < tables.ferry_price:
        return []
    return [f for f, owner in state(game).ferries.items() if owner is None]


def buy_ferry(game: Game, corp: Corporation, action: dict[str, Any]) -> None:
    ferry = action.get("description")
    if ferry not in buyable_ferries(game, corp):
        raise IllegalAction(f"ferry {ferry!r} is not for sale to {corp.sym} now", "ferry")
    price = T.of(game).ferry_price
    if action.get("cost") not in (None, price):
        raise IllegalAction(f"a ferry costs {price}", "ferry_price")
    game.pay(corp, None, price)
    state(game).ferries[ferry] = corp.sym
    state(game).ferry_order.append(ferry)


def luxury_choices(game: Game, corp: Corporation) -> list[str]:
    """The ferries P5's owner may choose for P5 to double: its own, until one is chosen (seed: "kan niet
    opnieuw worden toegewezen"; our reading: the owner chooses, once)."""
    company = game.companies.get(K.P5)
    if state(game).luxury is not None or company is None or company.closed or K.P5 not in corp.companies:
        return []
    return [f for f in state(game).ferry_order if state(game).ferries.get(f) == corp.sym]


def luxury_refusal(game: Game, corp: Corporation, action: dict[str, Any]) -> EngineError | None:
    """Why P5's owner may not choose this ferry for P5 (our reading: the owner chooses, once)."""
    choice = action.get("choice")
    if not isinstance(choice, str):
        return MalformedAction("'choice' names the ferry P5 doubles, like 'F1'", "choice")
    if K.P5 not in corp.companies:
        return IllegalAction(f"{corp.sym} does not own the Luxury Ferry Service (P5)", "luxury")
    chosen = state(game).luxury
    if chosen is not None:
        return IllegalAction(f"P5 doubles {chosen}: its ferry is chosen once and never reassigned", "luxury")
    ferries = luxury_choices(game, corp)
    if choice not in ferries:
        return IllegalAction(f"P5 doubles one of {corp.sym}'s ferries ({', '.join(ferries) or 'none yet'}), "
                             f"not {choice}", "luxury")
    return None


def choose_luxury(game: Game, action: dict[str, Any]) -> None:
    refusal = luxury_refusal(game, game.corporations[action["entity"]], action)
    if refusal is not None:
        raise refusal
    state(game).luxury = action["choice"]


# -- routes ---------------------------------------------------------------------------------------------------
def route_hexes(route: dict[str, Any]) -> list[str]:
    """The hexes a route record stops at, end to end (the ends of its connection chains)."""
    chains = route.get("connections") or []
    if not chains:
        return []
    if len(chains) == 1:
        return [chains[0][0], chains[0][-1]]
    out = []
    prev_end: str | None = None
    for chain in chains:
        a, b = chain[0], chain[-1]
        if prev_end is None:
            nxt = chains[1]
            start, end = (a, b) if b in (nxt[0], nxt[-1]) else (b, a)
            out.extend([start, end])
        else:
            end = b if a == prev_end else a
            out.append(end)
        prev_end = out[-1]
    return out


def extra_revenue(game: Game, routes: list[dict[str, Any]], corp: Corporation) -> int:
    """Bonuses, ferries and the A12 rule, on top of the stops the board paid."""
    phase = game.phase.name
    tables = T.of(game)
    total = 0
    visited: set[str] = set()
    for route in routes:
        hexes = set(route_hexes(route))
        visited |= hexes
        bonus = 0
        for entry in tables.bonuses:
            if hexes & entry.a and hexes & entry.b:
                bonus += entry.value_in(phase)
        if K.P4 in corp.companies and phase in K.P4_DOUBLES_IN and K.P4_HEX in hexes and K.BOSTON in hexes:
            bonus *= 2
        if K.P6_HEX in hexes and K.MONTREAL not in hexes:
            node = game.board.hex(K.P6_HEX).tile.nodes[0]
            bonus -= node.revenue_for(game.phase.tiles, phase)
        total += bonus
    newest = state(game).ferry_order[-1] if state(game).ferry_order else None
    # the marker on the newest ferry reads "New" while a ferry is for sale, "Last" once none is (provisional)
    marker = tables.last_bonus if None not in state(game).ferries.values() else tables.new_bonus
    for ferry, owner in state(game).ferries.items():
        if owner != corp.sym:
            continue
        spec = tables.ferry(ferry)
        if spec.hex not in visited:
            continue
        amount = spec.value + (marker if ferry == newest else 0)
        if state(game).luxury == ferry and K.P5 in corp.companies:
            amount *= 2
        total += amount
    return total


__all__ = ["buy_ferry", "choose_luxury", "buyable_ferries", "extra_revenue", "luxury_choices", "luxury_refusal", "route_hexes"]

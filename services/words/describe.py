"""Actions in words, for the page's log and the labels of its action buttons.

A record action names its entity by id; the page prints player names. Unknown types still read sensibly
("Alice: choose_ability"), so a new action kind never breaks the log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shared.engine.titles.base import TitleRules

Namer = Callable[[Any], str]


def plural(count: int, word: str, many: str | None = None) -> str:
    """"1 update", "2 updates": a count with its noun as a reader says it."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def _shares(action: dict[str, Any]) -> str:
    shares = action.get("shares") or []
    corp = str(shares[0]).rsplit("_", 1)[0] if shares else action.get("corporation", "?")
    pct = action.get("percent")
    return f"{pct}% of {corp}" if pct else f"{plural(len(shares), 'share')} of {corp}"


def bid_range(action: dict[str, Any], money: Callable[[Any], str] = str) -> str | None:
    """The amounts a bid offer allows, as legal-actions states them (`min`, `step`, `max`, `multiple_of`,
    shared/engine/ranges.py): the lowest bid, the highest, and the smallest raise — or, where the title
    wants every bid a multiple of the step, that. None for an offer without a range."""
    if action.get("min") is None:
        return None
    top = f" to {money(action['max'])}" if action.get("max") is not None else " up"
    if action.get("multiple_of"):
        return f"any multiple of {money(action['multiple_of'])} from {money(action['min'])}{top}"
    text = f"any amount from {money(action['min'])}{top}"
    return text + (f"; raises of at least {money(action['step'])}" if action.get("step") else "")


def _route_path(route: dict[str, Any]) -> str:
    """A route's stops: the record's own words, its hexes, or the hexes of its nodes ("G22-0" is on G22)."""
    if route.get("revenue_str"):
        return str(route["revenue_str"])
    hexes = list(route.get("hexes") or [])
    if not hexes:
        for node in route.get("nodes") or []:
            hex_ = str(node).rsplit("-", 1)[0]
            if not hexes or hexes[-1] != hex_:
                hexes.append(hex_)
    return "-".join(hexes)


def _routes(action: dict[str, Any]) -> str:
    """A run, with the revenue where the action carries it (a move posted without revenues, which the engine
    computes, reads as the trains and their stops alone, never "(None)")."""
    routes = action.get("routes") or []
    known = all(r.get("revenue") is not None for r in routes)
    parts = [f"{r.get('train')}: {_route_path(r) or 'no stops'}" + (f" ({r['revenue']})" if known else "")
             for r in routes]
    if not known:
        return ("runs " + "; ".join(parts)) if parts else "runs no trains"
    total = sum(int(r.get("revenue") or 0) for r in routes) + int(action.get("extra_revenue") or 0)
    return f"runs for {total}" + (f" — {'; '.join(parts)}" if parts else "")


PHRASES: dict[str, Callable[[dict[str, Any]], str]] = {
    "pass": lambda a: "passes",
    "bid": lambda a: f"bids {a.get('price')} on {a.get('company') or a.get('corporation') or a.get('minor')}",
    "par": lambda a: f"starts {a.get('corporation')} at {str(a.get('share_price', '')).split(',')[0]}",
    "buy_shares": lambda a: f"buys {_shares(a)}",
    "sell_shares": lambda a: f"sells {_shares(a)}",
    "buy_company": lambda a: f"buys {a.get('company')} for {a.get('price')}",
    "lay_tile": lambda a: f"lays tile {a.get('tile')} on {a.get('hex')} (rotation {a.get('rotation')})",
    "place_token": lambda a: f"places a token in {a.get('city')}",
    "run_routes": _routes,
    "dividend": lambda a: {"payout": "pays a dividend", "withhold": "withholds"}.get(str(a.get("kind")),
                                                                                    f"dividend: {a.get('kind')}"),
    "buy_train": lambda a: f"buys train {a.get('train')} for {a.get('price')}",
    "discard_train": lambda a: f"discards train {a.get('train')}",
    "undo": lambda a: "undoes" + (f" back to action {a['action_id']}" if a.get("action_id") else " the last action"),
    "redo": lambda a: "redoes the undone action",
    "message": lambda a: f"says: {a.get('message')}",
    "program_disable": lambda a: f"standing order ends ({a.get('reason')})",
    "program_share_pass": lambda a: "sets a standing order to pass in stock rounds",
    "program_buy_shares": lambda a: f"sets a standing order to buy {a.get('corporation')} shares"
                                    + (f" until {a['until_condition']}" if a.get("until_condition") else ""),
    "sell_company": lambda a: f"sells {a.get('company')} for {a.get('price')}",
    "choose": lambda a: f"chooses {a.get('choice')}",
    "merge": lambda a: f"merges with {a.get('corporation')}",
    "remove_token": lambda a: f"removes the token in {a.get('city')}",
    "scrap_train": lambda a: f"scraps train {a.get('train')}",
    "swap_train": lambda a: f"swaps train {a.get('train')} to its other shell",
    "bankrupt": lambda a: "declares bankruptcy",
    "end_game": lambda a: "ends the game",
    "reassign_trains": lambda a: "assigns trains: " + (", ".join(
        f"{x.get('train')} to {x.get('corporation')}" for x in a.get("assignments") or []) or "none"),
    "choose_ability": lambda a: f"uses an ability ({(a.get('choice') or {}).get('type', a.get('choice'))})"
                                if isinstance(a.get("choice"), dict) else f"uses an ability ({a.get('choice')})",
    "failed_merge": lambda a: "declares the merger failed",
    "special_buy": lambda a: (f"buys {a.get('description') or a.get('item') or 'a special item'}"
                              + (f" for {a['cost']}" if a.get("cost") is not None else "")),
}


END_REASONS = {
    "bank": "the bank ran out of money",
    "stock_market": "a share price reached the end of the stock market",
    "bankrupt": "a bankruptcy ended it",
    "fixed_round": "the last of the title's fixed rounds was played",
    "final_phase": "the last phase's final set of rounds was played",
    "dnf": "the turn limit was reached before the game ended by its rules",
    "manually_ended": "the players agreed to end it",
    "stalled": "no one could move any more",
}


def end_words(reason: str | None) -> str:
    """Why the game is over, in words (the engine's reason codes are no reading for a player)."""
    if reason is None:
        return "the game is over"
    return END_REASONS.get(reason, reason.replace("_", " "))


def _noted(line: str, namer: Namer, note: dict[str, Any]) -> str:
    """The line with what the state knew when the action was played (shared/engine/history.py): who sold
    the train, who went bankrupt, and why the game ended there."""
    if note.get("seller") is not None:
        seller = str(note["seller"])
        president = note.get("seller_president")
        line += f" from {seller}" + (f" (president {namer(president)})" if president is not None else "")
    fallen = [namer(p) for p in note.get("bankrupt") or []]
    if fallen:
        line += f"; {' and '.join(fallen)} {'goes' if len(fallen) == 1 else 'go'} bankrupt"
    if note.get("ended"):
        line += f". The game ends: {end_words(str(note['ended']))}"
    return line


def describe(action: dict[str, Any], namer: Namer, rules: TitleRules | None = None,
             note: dict[str, Any] | None = None) -> str:
    """One sentence: who did what (`rules`: the title's own words for its special purchases; `note`: what the
    game kept of the action's moment, `Game.history_notes[action id]`)."""
    line = _described(action, namer, rules)
    return _noted(line, namer, note) if note else line


def _described(action: dict[str, Any], namer: Namer, rules: TitleRules | None) -> str:
    kind = str(action.get("type"))
    # undo, redo and chat are the sender's: records name the acting player as their `entity` and whoever
    # clicked as `user`, so the log reads "Alice undoes ..." for the sender, never "None undoes ..."
    actor = action.get("entity") if action.get("entity") is not None else action.get("user")
    if kind in ("undo", "redo", "message") and action.get("user") is not None:
        actor = action.get("user")
    who = namer(actor) if actor is not None else "A player"
    phrase = PHRASES.get(kind)
    if kind == "special_buy" and rules is not None:
        own = rules.special_buy_phrase(action)
        if own is not None:
            return f"{who} {own}"
    if phrase is None:
        extras = ", ".join(f"{k} {v}" for k, v in action.items()
                           if k not in ("type", "entity", "entity_type", "id", "created_at", "user", "auto_actions"))
        return f"{who}: {kind.replace('_', ' ')}" + (f" ({extras})" if extras else "")
    return f"{who} {phrase(action)}"


def stood_in(text: str, action: dict[str, Any], for_player: Any, namer: Namer) -> str:
    """A move a stand-in made for an absent seat (the event's `for_player`, the action's `user`) as the
    history says it: "Bob for Ann: Ann buys ..."."""
    if for_player is None or action.get("user") is None:
        return text
    return f"{namer(action['user'])} for {namer(for_player)}: {text}"


def describe_choice(action: dict[str, Any]) -> str:
    """A legal action as the label of its button (the actor is the reader, so it is left out)."""
    kind = str(action.get("type"))
    phrase = PHRASES.get(kind)
    text = phrase(action) if phrase else kind.replace("_", " ")
    return text[:1].upper() + text[1:]

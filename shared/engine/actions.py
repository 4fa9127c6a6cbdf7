"""The action types the engine takes and the fields each has: the one declaration of what an action may
carry. Here the shared 18xx types (`GAME_ACTIONS`) and the table's own (`TABLE_ACTIONS`: undo, redo, chat,
taken by the session); a title's own types are declared in its package (`TitleRules.title_actions`), so a
new title adds its moves without editing this file. `Game.process` takes the shared types and its title's
own (`action_types`); the gateway refuses a submitted action with a field its type does not have
(`unknown_fields`, with every registered title's own: `titles.registered_actions`), so a typo (`"rotaton"`)
is named instead of silently ignored. The titles' own come in as an argument: this module stays below the
game and the titles (no import circle).

Fields are those of 18xx.games' actions (the records the engine replays) and of the engine's own offers:
what `legal-actions` lists posts back as it is, range hints and a dead end's `reason` included."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from .records import RANGE_HINTS

# every action: what it is, who acts, and what a record adds (its id, sender, time, the engine's follow-ups)
COMMON = frozenset({"type", "entity", "entity_type", "id", "user", "created_at", "auto_actions", "original_id"})
# what an offer states beside the move and a client may send back with it (dropped from the record)
# (`needs_consent`: the players a proposal waits for, services/play/legal.py; the door drops it)
OFFER_NOTES = RANGE_HINTS | {"reason", "needs_consent"}

# the types every title may use (a round's step or the game itself takes them)
GAME_ACTIONS: dict[str, frozenset[str]] = {kind: frozenset(fields) for kind, fields in {
    "bid": ("company", "corporation", "minor", "price"),
    "buy_company": ("company", "price"),
    "sell_company": ("company", "price"),
    "choose": ("choice",),
    "par": ("corporation", "share_price"),
    "buy_shares": ("shares", "percent"),
    "sell_shares": ("shares", "percent"),
    "lay_tile": ("hex", "tile", "rotation", "ability"),
    "place_token": ("city", "slot", "tokener"),
    "run_routes": ("routes", "extra_revenue", "subsidy"),
    "dividend": ("kind", "amount"),
    "buy_train": ("train", "price", "variant", "shell"),
    "discard_train": ("train",),
    "merge": ("corporation",),
    "special_buy": ("description", "cost"),
    "bankrupt": (),
    "pass": (),
    "end_game": (),
    "program_buy_shares": ("corporation", "until_condition", "from_market", "auto_pass_after"),
    "program_share_pass": ("unconditional", "indefinite"),
    "program_disable": ("reason", "original_type"),
}.items()}

# the table's own, taken by the session (`GameSession.submit`), never by a round
TABLE_ACTIONS: dict[str, frozenset[str]] = {
    "undo": frozenset({"action_id"}),
    "redo": frozenset(),
    "message": frozenset({"message"}),
}


# a title's own types, each with its fields (`TitleRules.title_actions`, `titles.registered_actions`)
OwnActions = Mapping[str, Collection[str]]


def action_types(own: OwnActions) -> frozenset[str]:
    """The types a game takes (not the table's): the shared ones and its title's `own`."""
    return frozenset(GAME_ACTIONS) | frozenset(own)


def action_fields(own: OwnActions) -> dict[str, frozenset[str]]:
    """Each type a client may send, with every field it may carry: the shared types, the table's and `own`
    (a title's, or every registered title's before a submission's game is known)."""
    declared = {**{kind: frozenset(fields) for kind, fields in own.items()}, **GAME_ACTIONS, **TABLE_ACTIONS}
    return {kind: COMMON | OFFER_NOTES | fields for kind, fields in declared.items()}


def unknown_fields(action: dict[str, Any], own: OwnActions) -> list[str]:
    """The fields of `action` its type does not have (none for a type nobody declares: that is refused as
    an unknown type, with the valid ones); `own` as in `action_fields`, asked for the one type (every
    submitted move passes here: no table of every type is built for it)."""
    kind = action.get("type")
    if not isinstance(kind, str):
        return []
    fields = TABLE_ACTIONS.get(kind, GAME_ACTIONS.get(kind))  # as `action_fields`: the table's, then shared
    if fields is None:
        if kind not in own:
            return []
        fields = frozenset(own[kind])
    known = COMMON | OFFER_NOTES | fields
    return sorted(str(k) for k in action if k not in known)

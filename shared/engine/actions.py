"""The action types the engine takes and the fields each has: the one declaration of what an action may
carry. `Game.process` knows its types from it (`KNOWN_TYPES`), the session its own (undo, redo, chat), and
the gateway refuses a submitted action with a field its type does not have (`unknown_fields`), so a typo
(`"rotaton"`) is named instead of silently ignored.

Fields are those of 18xx.games' actions (the records the engine replays) and of the engine's own offers:
what `legal-actions` lists posts back as it is, range hints and a dead end's `reason` included."""

from __future__ import annotations

from typing import Any

from .records import RANGE_HINTS

# every action: what it is, who acts, and what a record adds (its id, sender, time, the engine's follow-ups)
COMMON = frozenset({"type", "entity", "entity_type", "id", "user", "created_at", "auto_actions", "original_id"})
# what an offer states beside the move and a client may send back with it (dropped from the record)
# (`needs_consent`: the players a proposal waits for, services/play/legal.py; the door drops it)
OFFER_NOTES = RANGE_HINTS | {"reason", "needs_consent"}

GAME_ACTIONS: dict[str, frozenset[str]] = {kind: frozenset(fields) for kind, fields in {
    "bid": ("company", "corporation", "minor", "price"),
    "buy_company": ("company", "price"),
    "sell_company": ("company", "price"),
    "choose_ability": ("choice",),
    "choose": ("choice",),
    "par": ("corporation", "share_price"),
    "buy_shares": ("shares", "percent"),
    "sell_shares": ("shares", "percent"),
    "lay_tile": ("hex", "tile", "rotation", "ability"),
    "place_token": ("city", "slot", "tokener"),
    "remove_token": ("city", "slot"),
    "run_routes": ("routes", "extra_revenue", "subsidy"),
    "dividend": ("kind", "amount"),
    "buy_train": ("train", "price", "variant", "shell"),
    "discard_train": ("train",),
    "swap_train": ("train",),
    "scrap_train": ("train",),
    "reassign_trains": ("assignments",),
    "merge": ("corporation",),
    "failed_merge": ("corporations",),
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

ACTION_FIELDS: dict[str, frozenset[str]] = {kind: COMMON | OFFER_NOTES | fields
                                            for kind, fields in {**GAME_ACTIONS, **TABLE_ACTIONS}.items()}


def unknown_fields(action: dict[str, Any]) -> list[str]:
    """The fields of `action` its type does not have (none for a type nobody declares: that is refused as
    an unknown type, with the valid ones)."""
    kind = action.get("type")
    known = ACTION_FIELDS.get(kind) if isinstance(kind, str) else None
    return [] if known is None else sorted(str(k) for k in action if k not in known)

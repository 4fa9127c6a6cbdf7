"""What a history line needs that only the state around an action knows: the corporation (and its president)
that sold a train, the players the action made bankrupt, and why the game ended if the action ended it.

Taken as the action is processed (live, replayed, loaded or folded again after an undo alike), kept on the
game by the action's id (`Game.history_notes`), and read by the words of the page and the mail
(`services/words/describe.py`). A record action never carries these: its shape stays the reference's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .protocol import Game

def before(game: Game, action: dict[str, Any]) -> dict[str, Any] | None:
    """What the state says before `action` that its line needs: who owns the train bought, who is bankrupt
    already (before a bankruptcy, the one action that makes players bankrupt). None for every other
    action: this runs for each action processed, so it costs nothing for an ordinary move."""
    kind = action.get("type")
    if kind == "bankrupt":
        return {"_bankrupt": frozenset(p.id for p in game.players if p.bankrupt)}
    if kind != "buy_train":
        return None
    seen: dict[str, Any] = {}
    train = game.depot.by_id(str(action.get("train")))
    owner = train.owner if train is not None else None
    # a train another corporation sells (never the depot's, nor one the buyer moves between its own shells)
    if isinstance(owner, str) and owner in game.corporations and owner != action.get("entity"):
        seen["seller"] = owner
        president = game.controller(owner)
        if isinstance(president, int):
            seen["seller_president"] = president
    return seen


def after(game: Game, action_id: int, seen: dict[str, Any] | None) -> None:
    """Keep what `action_id` did that its line must say (nothing is kept for an ordinary move)."""
    if not seen and not game.finished:
        return
    note = dict(seen or {})
    bankrupt = note.pop("_bankrupt", None)
    if bankrupt is not None:
        fallen = [p.id for p in game.players if p.bankrupt and p.id not in bankrupt]
        if fallen:
            note["bankrupt"] = fallen
    if game.finished and game.game_end_reason is not None:
        note["ended"] = game.game_end_reason
    if not note:
        return
    notes = getattr(game, "history_notes", None)
    if notes is None:  # a game pickled before notes were kept
        notes = game.history_notes = {}
    notes.setdefault(action_id, {}).update(note)

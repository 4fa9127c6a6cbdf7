"""Whose word a move needs besides its mover's: a move that takes from another player's holding (a private he
holds, or his corporation holds; a train of a corporation he presides) is his to agree to, and ending the game
by agreement is every player's. The engine only says whose holding a move touches; the table (the service)
decides whether its rules ask them (docs/time-controls.md, "Proposals")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game
    from .model import Train

ENDS_THE_GAME = "end_game"


def taken_from(game: Game, action: Mapping[str, Any]) -> list[int]:
    """The players other than the mover whose holding `action` takes: the holder of a private it buys (a
    player, or the president of the corporation holding it) and the president of the corporation a train
    is bought from. Empty for any other move, and for a purchase between two holdings of the same player."""
    mover = game.controller(action.get("entity"))
    kind = action.get("type")
    owner: Any = None
    if kind == "buy_company":
        company = game.companies.get(action.get("company")) if isinstance(action.get("company"), str) else None
        owner = None if company is None else company.owner
    elif kind == "buy_train":
        train_id = action.get("train")
        train = game.depot.by_id(train_id) if isinstance(train_id, str) else None
        owner = None if train is None else train.owner
    holder = _holder(game, owner)
    return [] if holder is None or holder == mover else [holder]


def _holder(game: Game, owner: Any) -> int | None:
    """The player whose holding `owner` is: the player himself, or a corporation's president."""
    if owner is None:
        return None
    return owner if isinstance(owner, int) else game.controller(owner) if owner in game.corporations else None


def holders(game: Game) -> dict[str, dict[str, int]]:
    """Every private and train a purchase would take from a player, with that player (`taken_from`'s holder):
    {"companies": {sym: player}, "trains": {train id: player}}. Stored with the read model, so the service's
    door can tell a purchase from the bank or the depot, which needs no one's word, without the engine."""
    of: dict[Any, int | None] = {}  # one `controller` per owner: a handful of owners hold every holding

    def holder(owner: Any) -> int | None:
        if owner not in of:
            of[owner] = _holder(game, owner)
        return of[owner]

    companies = {sym: who for sym, company in game.companies.items() if (who := holder(company.owner)) is not None}
    first: dict[str, Train] = {}
    for train in game.depot.trains:
        first.setdefault(train.id, train)  # `Depot.by_id` answers with the first train of an id
    trains = {tid: who for tid, train in first.items() if (who := holder(train.owner)) is not None}
    return {"companies": companies, "trains": trains}


def ending_agreed_by(game: Game, action: Mapping[str, Any]) -> list[int]:
    """The players besides the mover whose agreement ending the game by agreement needs: all the others."""
    if action.get("type") != ENDS_THE_GAME:
        return []
    mover = game.controller(action.get("entity"))
    return [p.id for p in game.players if p.id != mover and not getattr(p, "bankrupt", False)]

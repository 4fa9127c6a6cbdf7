"""Who and where, in words: the names the page, the log and the email print for players, corporations, the
round and where a certificate lies. One table of names for every channel, so a player reads the same words
on the page and in his mail."""

from __future__ import annotations

from typing import Any

from shared.engine.game import Game
from shared.engine.model import POOL


def name_of(game: Game, entity: Any) -> str:
    """A player's name, or a corporation's / private's symbol, as the page prints it."""
    if isinstance(entity, int):
        for p in game.players:
            if p.id == entity:
                return p.name
        return f"player {entity}"
    return str(entity)


def acting_name(game: Game, entity: Any) -> str:
    """Who must act, with the player behind a corporation or line ("NYC (Alice)"): the players who decide
    the entity's moves now (`Round.deciders`, the one answer the state gives), so a player asked by another's
    move is named, not the one who asked ("Bob (asked by Alice)": an 1828 merger with Bob's corporation)."""
    try:
        deciders = [] if game.finished else game.round.deciders(game, entity)
    except Exception:  # an entity the title resolves differently: its symbol alone still says who acts
        deciders = []
    if isinstance(entity, int):
        if deciders and deciders != [entity]:
            return f"{', '.join(name_of(game, p) for p in deciders)} (asked by {name_of(game, entity)})"
        return name_of(game, entity)
    controller = deciders[0] if deciders else None
    label = str(entity)
    corp = game.corporations.get(label) if isinstance(game.corporations, dict) else None
    if corp is not None and label.isdigit() and corp.name:  # 1840's lines: "Linie 15", never a bare "15"
        label = corp.name
    return f"{label} ({name_of(game, controller)})" if isinstance(controller, int) else label


def share_sources(game: Game) -> dict[str, str]:
    """Where each certificate not held by a player lies, so a "buy" button can say where it buys from."""
    out: dict[str, str] = {}
    for corp in game.corporations.values():
        for share in corp.shares:
            if share.owner == POOL:
                out[share.id] = "the market"
            elif share.owner == corp.sym or share.owner is None:
                out[share.id] = "the IPO"
            elif isinstance(share.owner, str):
                out[share.id] = share.owner
    return out


def round_label(game: Game) -> str:
    """The round as players count it: the set (the game's turn) and, for a kind played several times a
    set, which one — "Stock round 3", "Operating round 3.2" (18xx numbering; `round_num` alone restarts
    in every set)."""
    round_ = game.round
    number = f"{game.turn}.{round_.round_num}" if round_.several_per_set else str(game.turn)
    return f"{round_.kind} round {number}"

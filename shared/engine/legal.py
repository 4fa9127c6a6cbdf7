"""`legal_actions`: the concrete actions an entity may submit now, as the round's steps list them.

Each step expands the action types it opens (`Step.options`, the same checks its handlers run), so what is
offered is what `process` accepts; types with unbounded options (a train price between two limits) are
offered at their meaningful points (cheapest, face value, all cash) and `ranges` adds the limits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .protocol import Game


def legal_actions(game: Game, entity: Any = None, kinds: set[str] | None = None) -> list[dict[str, Any]]:
    """Concrete actions `entity` (default: whoever acts now) may take; `kinds` limits the types expanded."""
    if game.finished:
        return []
    if entity is None:
        acting = game.acting()
        if not acting:
            return []
        entity = acting[0]
    round_ = game.round
    own = round_.options(game, entity, kinds)
    # moves the round takes beside its steps, at any moment (1840: a private sold to the bank by its owner)
    own += round_.extra_options(game, entity)
    return [_complete(game, entity, option) for option in own if kinds is None or option["type"] in kinds]


# (what, entity) -> that entity's offers or dead ends at one position: asked for every player of a position,
# the acting entity's are worked out once (each player keeps the moves that name an entity he controls)
Memo = dict[tuple[str, Any], list[dict[str, Any]]]


def _memoised(memo: Memo | None, what: str, entity: Any,
           work: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    if memo is None:
        return work()
    key = (what, entity)
    if key not in memo:
        memo[key] = work()
    return memo[key]


def legal_actions_of(game: Game, player: Any, orders: bool = True, memo: Memo | None = None) -> list[dict[str, Any]]:
    """Every move open to the entities `player` controls (the player, the corporations he presides or acts
    for, the privates he or they own), ending the game and his standing orders (`programs`): what
    legal-actions answers a player who names no entity. Each entity's moves in the engine's order, the
    acting entity's first, then ending the game and the standing orders (`orders=False` leaves those two
    out). `memo`: shared by the players asked at one position, and by nothing else (the game must not
    change between them)."""
    if game.finished:
        return []
    from .programs import program_options

    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for entity in _controlled(game, player):
        for action in _memoised(memo, "offers", entity, lambda e=entity: legal_actions(game, e)):
            key = repr(sorted(action.items()))
            if game.controller(action.get("entity"), action.get("entity_type")) == player and key not in seen:
                seen.add(key)
                out.append(action)
    if orders and isinstance(player, int) and any(p.id == player for p in game.players):
        # open at any moment, like his standing orders; left out of the numbered moves of a turn
        out += end_game_options(game, player) + program_options(game, player)
    from .ranges import annotate

    return annotate(game, out)


def end_game_options(game: Game, player: int) -> list[dict[str, Any]]:
    """Ending the game by agreement (`Game._process_end_game`), open to every player at any moment: by the
    player, or by a corporation of his that is acting, as 18xx.games' button names it; never by a private."""
    enders = [player] + [e for e in game.acting() if e != player and e in game.corporations
                         and game.controller(e) == player]
    return [{"type": "end_game", "entity": e, "entity_type": _entity_type(game, e)} for e in enders]


def dead_ends_of(game: Game, player: Any, memo: Memo | None = None) -> list[dict[str, Any]]:
    """The moves the engine would take from the entities `player` controls that are not offered because the
    game could only be taken back from where they lead (`Step.dead_end_options`), each with its "reason":
    what legal-actions shows beside the offers, so that a player sees why a move he may make is not one.
    `memo` as for `legal_actions_of`."""
    if game.finished:
        return []
    out: list[dict[str, Any]] = []
    for entity in _controlled(game, player):
        found = _memoised(memo, "dead_ends", entity,
                       lambda e=entity: [_complete(game, e, o) for o in game.round.dead_ends(game, e)])
        for option in found:
            if game.controller(option["entity"], option.get("entity_type")) == player and option not in out:
                out.append(option)
    return out


def _controlled(game: Game, player: Any) -> list[Any]:
    """Whoever acts now, then the player, the corporations he presides or acts for and the privates he or
    they own, each once."""
    entities: list[Any] = list(game.acting())
    entities += [player] if isinstance(player, int) else []
    entities += [sym for sym in game.corporations if game.controller(sym) == player]
    entities += [sym for sym in game.companies if sym not in game.corporations and game.controller(sym) == player]
    return list(dict.fromkeys(entities))


def _complete(game: Game, entity: Any, option: dict[str, Any]) -> dict[str, Any]:
    option.setdefault("entity", entity)
    option.setdefault("entity_type", _entity_type(game, entity))
    return option


def _entity_type(game: Game, entity: Any) -> str:
    if isinstance(entity, int):
        return "player"
    if entity in game.companies:
        return "company"
    return "corporation"

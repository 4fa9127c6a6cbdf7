"""What a seat may do now: one answer for `GET /legal-actions` and for the numbered moves of the turn email
(a number in a reply means the same move as the same position's REST list)."""

from __future__ import annotations

from typing import Any

from shared.engine import GameSession
from shared.engine.legal import end_game_options
from shared.engine.programs import program_options
from shared.engine.ranges import annotate


def seat_actions(session: GameSession, player_id: int | None, entity: Any = None,
                 orders: bool = True) -> list[dict[str, Any]]:
    """The legal actions of the entities `player_id` controls (an operator, None: of every player who must
    act now), in the engine's order, open-ended values with their range, standing orders last.

    Without `entity`: every entity the player controls (himself, the corporations he presides or acts for,
    his and their privates), ending the game and his standing orders (`Game.legal_actions_of`). With
    `entity`: that entity's moves (as before: a corporation's include the sales its president makes for
    it), and a player's ending the game and standing orders. `orders=False` leaves those two out (the
    turn email numbers the moves of the turn; they come last in the REST list, so the numbers agree)."""
    if session.finished:
        return []
    game = session.game
    if entity is None:
        if player_id is not None:
            return game.legal_actions_of(player_id, orders)
        # an operator: whoever acts now (also an entity no player controls), then each acting player's
        out = annotate(game, session.legal_actions())
        for pid in game.acting_players():
            out += [a for a in game.legal_actions_of(pid, orders) if a not in out]
        return out
    actions = session.legal_actions(entity)
    if player_id is not None:
        actions = [a for a in actions if session.controller(a.get("entity"), a.get("entity_type")) == player_id]
    if orders and isinstance(entity, int) and (player_id is None or entity == player_id) \
            and any(p.id == entity for p in game.players):
        ends = [a for a in end_game_options(game, entity) if a["entity"] == entity]
        actions = actions + ends + program_options(game, entity)
    return annotate(game, actions)


def seat_dead_ends(session: GameSession, player_id: int | None, entity: Any = None) -> list[dict[str, Any]]:
    """The moves the engine would take from the seat's entities that `seat_actions` leaves out because the
    game could only be taken back from where they lead, each with its "reason" (`Game.dead_ends_of`): the
    answer shows them apart, so a player learns why a move he may make is not offered, and a client that
    posts offers never strands a game. An operator sees those of every player who must act now."""
    if session.finished:
        return []
    game = session.game
    players = [player_id] if player_id is not None else game.acting_players()
    out: list[dict[str, Any]] = []
    for pid in players:
        out += [a for a in game.dead_ends_of(pid) if (entity is None or a.get("entity") == entity) and a not in out]
    return out

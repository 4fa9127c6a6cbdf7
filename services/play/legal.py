"""What a seat may do now: one answer for `GET /legal-actions` and for the numbered moves of the turn email
(a number in a reply means the same move as the same position's REST list)."""

from __future__ import annotations

from typing import Any

from services.play.bids import annotate_bids
from shared.engine import GameSession


def seat_actions(session: GameSession, player_id: int | None, entity: Any = None) -> list[dict[str, Any]]:
    """The legal actions of the entities `player_id` controls (every entity's for an operator, None), in the
    engine's order, bids with their range."""
    if session.finished:
        return []
    actions = session.legal_actions(entity)
    if player_id is not None:
        actions = [a for a in actions if session.controller(a.get("entity")) == player_id]
    return annotate_bids(session.game, actions)

"""What a seat may do now: one answer for `GET /legal-actions` and for the numbered moves of the turn email
(a number in a reply means the same move as the same position's REST list)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shared.engine import GameSession
from shared.engine.legal import end_game_options
from shared.engine.programs import program_options
from shared.engine.ranges import annotate
from shared.eventstore.outbox import TurnChanged
from shared.eventstore.records import ACTIVE, Game


def standing_in(session: GameSession, stand_in: tuple[int, int] | None, player_id: int | None) -> int | None:
    """The absent seat `player_id` moves for now, or None: the table's `substitute` decision (`stand_in`,
    (absent, chosen) from the table log, `Table.stand_in`) while the absent seat still must act. The same
    condition as the seat check where the move is settled (services/play/apply.py `authorise`)."""
    if stand_in is None or player_id is None or session.finished:
        return None
    absent, chosen = stand_in
    if chosen != player_id or absent not in [int(p) for p in session.acting_players()]:
        return None
    return absent


def with_stand_in(acting: list[Any], stand_in: tuple[int, int] | None) -> list[Any]:
    """The players who must act, with the stand-in beside the absent seat he moves for (the state,
    `/players/me/games`, the page and the turn mail name him while he stands in)."""
    if stand_in is None:
        return list(acting)
    absent, chosen = stand_in
    ids = [int(p) for p in acting if str(p).lstrip("-").isdigit()]
    if absent not in ids or chosen in ids:
        return list(acting)
    at = ids.index(absent) + 1
    return [*acting[:at], chosen, *acting[at:]]


def stand_in_told(game: Game | None, new: Sequence[dict[str, Any]]) -> list[TurnChanged]:
    """The turn alert that reaches the stand-in when the table chooses him (`vote_decided`, `substitute`,
    among the table log's events `new`): the game's acting players with him beside the absent seat. The notifier
    alerts players who were not acting before, so he alone is told, and his turn mail lists the absent
    seat's moves (services/mailin/render.py)."""
    decided = [e for e in new if e.get("type") == "vote_decided" and e.get("choice") == "substitute"]
    if game is None or game.status != ACTIVE or not decided or decided[-1].get("substitute") is None:
        return []
    state = game.state or {}
    chosen = (int(decided[-1]["absent"]), int(decided[-1]["substitute"]))
    return [TurnChanged.of_state(game.id, game.title, {
        **state, "acting_players": with_stand_in(state.get("acting_players") or [], chosen)})]

TAKING = frozenset({"buy_company", "buy_train"})  # the moves that may take from another player's holding


def seat_actions(session: GameSession, player_id: int | None, entity: Any = None,
                 orders: bool = True, absent: int | None = None,
                 memo: dict[Any, Any] | None = None) -> list[dict[str, Any]]:
    """The legal actions of the entities `player_id` controls (an operator, None: of every player who must
    act now), in the engine's order, open-ended values with their range, standing orders last.

    Without `entity`: every entity the player controls (himself, the corporations he presides or acts for,
    his and their privates), ending the game and his standing orders (`Game.legal_actions_of`). With
    `entity`: that entity's moves (as before: a corporation's include the sales its president makes for
    it), and a player's ending the game and standing orders. `orders=False` leaves those two out (the
    turn email numbers the moves of the turn; they come last in the REST list, so the numbers agree).

    `absent`: the seat `player_id` stands in for (`standing_in`): its moves of the turn follow his own (not
    its standing orders nor its ending of the game, which stay its player's).

    `memo`: one dict shared by the seats asked at one position (`Game.legal_actions_of`)."""
    if session.finished:
        return []
    game = session.game
    if absent is not None and player_id is not None:
        own = seat_actions(session, player_id, entity, orders)
        if entity is None:
            return own + [a for a in game.legal_actions_of(absent, False) if a not in own]
        theirs = annotate(game, [a for a in session.legal_actions(entity)
                                 if session.controller(a.get("entity")) == absent])
        return own + [a for a in theirs if a not in own]
    if entity is None:
        if player_id is not None:
            return _table_order(session, game.legal_actions_of(player_id, orders, memo)) + declines(session, player_id)
        # an operator: whoever acts now (also an entity no player controls), then each acting player's
        out = annotate(game, session.legal_actions())
        for pid in game.acting_players():
            out += [a for a in game.legal_actions_of(pid, orders) if a not in out]
        return _table_order(session, out)
    actions = session.legal_actions(entity)
    if player_id is not None:
        actions = [a for a in actions if session.controller(a.get("entity"), a.get("entity_type")) == player_id]
    if orders and isinstance(entity, int) and (player_id is None or entity == player_id) \
            and any(p.id == entity for p in game.players):
        ends = [a for a in end_game_options(game, entity) if a["entity"] == entity]
        actions = actions + ends + program_options(game, entity)
    own = _table_order(session, annotate(game, actions))
    return own + (declines(session, player_id) if player_id is not None and entity == player_id else [])


def _table_order(session: GameSession, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The moves that take from another player's holding last (a stable partition): where the table's rules
    make them proposals, REST lists them apart (`offers.SeatOffers.split`) and the moves before them keep the
    numbers the turn email gives them."""
    theirs = [a for a in actions if a.get("type") in TAKING and session.consenters(a)[0] == "purchase"]
    return actions if not theirs else [a for a in actions if a not in theirs] + theirs


def declines(session: GameSession, player_id: int) -> list[dict[str, Any]]:
    """The seat's decline of another player's move that waits for its answer (an 1828 merger started with
    its corporation): the table takes that move back (services/play/moves.py)."""
    proposer = session.proposed_by(player_id)
    if proposer is None:
        return []
    return [{"type": "decline", "entity": player_id, "entity_type": "player", "proposed_by": proposer}]


def seat_dead_ends(session: GameSession, player_id: int | None, entity: Any = None,
                   memo: dict[Any, Any] | None = None) -> list[dict[str, Any]]:
    """The moves the engine would take from the seat's entities that `seat_actions` leaves out because the
    game could only be taken back from where they lead, each with its "reason" (`Game.dead_ends_of`): the
    answer shows them apart, so a player learns why a move he may make is not offered, and a client that
    posts offers never strands a game. An operator sees those of every player who must act now. `memo`: as
    for `seat_actions`."""
    if session.finished:
        return []
    game = session.game
    players = [player_id] if player_id is not None else game.acting_players()
    out: list[dict[str, Any]] = []
    for pid in players:
        out += [a for a in game.dead_ends_of(pid, memo)
                if (entity is None or a.get("entity") == entity) and a not in out]
    return out

"""Game use cases: create, join, start, import and export. The engine is asked to validate set-ups and
records; the store keeps the outcome. Every function takes the recorder so the caller decides the backend."""

from __future__ import annotations

from typing import Any

from services.play.apply import read_model
from services.play.sessions import SessionCache, players_of
from services.tokens import hash_token, new_token
from shared.engine import GameSession
from shared.eventstore import NewGame, SqlRecorder
from shared.eventstore.records import Game, Player, Seat


def create_game(recorder: SqlRecorder, title: str, options: list[str], seed: int, seats: int,
                visibility: str) -> tuple[Game, str | None]:
    """A new open game. A private one gets an invitation token (returned here only): its seats are taken
    with it, so knowing a game id is not enough to join."""
    # let the engine refuse unknown titles, options or seat counts now rather than at start
    GameSession.new(title, [{"id": i + 1, "name": f"seat {i}"} for i in range(seats)], seed, options)
    payload = {"title": title, "options": options, "seats": seats, "visibility": visibility}
    invitation = new_token() if visibility == "private" else None
    new = NewGame(title, options, seed, seats, visibility, invite_hash=invitation and hash_token(invitation))
    return recorder.create_game(new, payload), invitation


def join(recorder: SqlRecorder, game_id: int, name: str, seat: int | None,
         player: Player | None) -> tuple[Seat, str, str | None]:
    """Seat a player; a caller without an identity gets a new one. Returns (seat, seat token, player
    token or None) — both tokens are shown only here."""
    player_token = None
    if player is None:
        player_token = new_token()
        player = recorder.create_player(name, hash_token(player_token))
    seat_token = new_token()
    taken = recorder.join(game_id, player.id, name or player.name, hash_token(seat_token), seat)
    return taken, seat_token, player_token


def start(recorder: SqlRecorder, game: Game) -> Game:
    session = GameSession.new(game.title, players_of(recorder, game.id), game.seed, game.options, game.id)
    state = read_model(session)
    return recorder.start(game.id, state, {"game_id": game.id, "title": game.title,
                                           "players": [p["id"] for p in session.players]})


def export_record(sessions: SessionCache, game: Game) -> dict[str, Any]:
    with sessions.use(game) as session:
        record = session.to_record()
    record["id"] = game.id
    return record

"""Game use cases: create, join, start, import and export. The engine is asked to validate set-ups and
records; the store keeps the outcome. Every function takes the recorder so the caller decides the backend."""

from __future__ import annotations

from typing import Any

from services.play.apply import read_model
from services.play.sessions import SessionCache, players_of
from services.tokens import hash_token, new_token
from shared.engine import GameSession
from shared.eventstore import ACTION_APPLIED, CURRENT_VERSIONS, NewEvent, NewGame, SqlRecorder
from shared.eventstore.records import ACTIVE, FINISHED, Game, Player, Seat


def create_game(recorder: SqlRecorder, title: str, options: list[str], seed: int, seats: int,
                visibility: str) -> Game:
    # let the engine refuse unknown titles, options or seat counts now rather than at start
    GameSession.new(title, [{"id": i + 1, "name": f"seat {i}"} for i in range(seats)], seed, options)
    payload = {"title": title, "options": options, "seats": seats, "visibility": visibility}
    return recorder.create_game(NewGame(title, options, seed, seats, visibility), payload)


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


def import_record(recorder: SqlRecorder, record: dict[str, Any], visibility: str) -> tuple[Game, list[str]]:
    """Replay and validate a whole 18xx.games record, then store it in one transaction. Raises the engine's
    ReplayError (naming the first refused action) before anything is stored."""
    session = GameSession.from_record(record)
    tokens = [new_token() for _ in session.players]
    seats = [(int(p["id"]), str(p.get("name", p["id"])), hash_token(t)) for p, t in zip(session.players, tokens, strict=True)]
    events = [NewEvent(ACTION_APPLIED, {"action": a, "player_id": None}, CURRENT_VERSIONS[ACTION_APPLIED])
              for a in session.actions]
    last = session.actions[-1] if session.actions else None
    new = NewGame(session.title, list(session.optional_rules), session.seed, len(session.players), visibility,
                  FINISHED if session.finished else ACTIVE)
    game = recorder.import_game(new, seats, events, read_model(session, last), session.result, session.snapshot())
    return game, tokens


def export_record(sessions: SessionCache, game: Game) -> dict[str, Any]:
    with sessions.use(game) as session:
        record = session.to_record()
    record["id"] = game.id
    return record

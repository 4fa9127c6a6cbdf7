"""Games: create, list, join, start, read state, legal actions, event log, export and import."""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from flask import Blueprint, request
from flask.typing import ResponseReturnValue

from services.apidoc import documented
from services.gateway import web as page
from services.gateway.auth import Principal, principal, require_read, require_seat
from services.gateway.errors import ApiError
from services.gateway.http import game_or_404, game_url, json_body, load, query
from services.gateway.runtime import rt
from services.gateway.schemas import (
    EventsOut,
    EventsQuery,
    GameCreateIn,
    GameListOut,
    GameListQuery,
    GameOut,
    ImportOut,
    ImportQuery,
    JoinIn,
    JoinOut,
    LegalOut,
    LegalQuery,
    RecordIn,
    StateOut,
)
from services.gateway.table_api import record_table_rules, stand_in_now, table_log
from services.gateway.titles import SETUP_RULES, check_setup, provisional_of, setup_refused
from services.play import games as usecases
from services.play import imports
from services.play.legal import standing_in, with_stand_in
from services.play.offers import WAIT_SECONDS, seat_offers
from services.play.timekeeping import Table
from services.tokens import hash_token
from shared.engine import EngineError
from shared.eventstore.records import Game

bp = Blueprint("games", __name__)


def game_view(game: Game, with_seats: bool = True) -> dict[str, Any]:
    view: dict[str, Any] = {**game.__dict__, "url": game_url(game.id)}
    provisional = provisional_of(game.title, tuple(game.options or ()))
    if provisional:
        view["provisional"] = provisional
    if with_seats:
        view["seats"] = rt().recorder.seats(game.id)
    return GameOut().dump(view)


@bp.post("/games")
@documented("Create a game", body=GameCreateIn, example={"title": "1840", "seats": 2, "options": []},
            ok={201: GameOut}, errors=(422,))
def create() -> ResponseReturnValue:
    data = load(GameCreateIn, json_body())
    seed = data.get("seed", secrets.randbelow(2**31))
    check_setup(data["title"], data["options"], data["seats"])
    try:
        game, invitation = usecases.create_game(rt().recorder, data["title"], data["options"], seed,
                                                data["seats"], data["visibility"])
    except EngineError as err:
        if err.rule in SETUP_RULES:
            raise setup_refused(data["title"], err) from err
        raise
    record_table_rules(game.id, data["undo"] == "consent", data["end_game"], data["purchases"])
    view = game_view(game)
    if invitation is not None:  # shown once: the only way to take a seat in this private game
        view["invitation"] = invitation
    return view, 201, {"Location": game_url(game.id)}


@bp.get("/games")
@documented("List games (private ones: the caller's own, or all for the admin token)", query=GameListQuery,
            ok={200: GameListOut}, auth=("seat", "admin"), auth_optional=True)
def list_games() -> ResponseReturnValue:
    args = query(GameListQuery)
    who = principal()
    games = rt().recorder.list_games(**args)
    seated = who.seat.game_id if who and who.seat else None
    visible = [g for g in games if g.visibility == "open" or (who and who.admin) or g.id == seated]
    return GameListOut().dump({"games": [game_view(g, with_seats=False) for g in visible]})


@bp.get("/games/<int:game_id>")
@documented("Game summary and seats (a browser's Accept: text/html gets the page)", ok={200: GameOut},
            errors=(403, 404), auth=("seat", "admin"), auth_optional=True)
def show(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    if page.wants_html():
        return page.render_page(game)
    require_read(game)
    return game_view(game)


@bp.post("/games/<int:game_id>/join")
@documented("Take a seat; answers the secret seat token once",
            description="To join as an existing identity send `player_id` and that player's token as bearer. "
                        "A private game needs its `invitation` token (answered at its creation).",
            body=JoinIn, example={"name": "Ann"}, ok={201: JoinOut}, errors=(403, 404, 409),
            auth=("player", "admin"), auth_optional=True)
def join(game_id: int) -> ResponseReturnValue:
    data = load(JoinIn, json_body())
    game = game_or_404(game_id)
    who = principal()
    _check_invitation(game, who, data.get("invitation"))
    player = None
    if "player_id" in data:
        owns = who is not None and (who.admin or (who.player is not None and who.player.id == data["player_id"]))
        if not owns:
            raise ApiError(403, "not_your_identity",
                           f"joining as player {data['player_id']} needs that player's token")
        player = rt().recorder.get_player(data["player_id"])
        if player is None:
            if not (who and who.admin):
                raise ApiError(404, "player_not_found", f"player {data['player_id']} does not exist")
            player = rt().recorder.create_player(data["name"], None, data["player_id"])
    seat, token, player_token = usecases.join(rt().recorder, game_id, data["name"], data.get("seat"), player)
    return JoinOut().dump({"game_id": game_id, "seat": seat.seat_index, "player_id": seat.player_id,
                           "token": token, "player_token": player_token}), 201


def _check_invitation(game: Game, who: Principal | None, invitation: str | None) -> None:
    """A private game's seats are taken with its invitation token (or by an operator)."""
    expected = rt().recorder.invite_hash(game.id) if game.visibility == "private" else None
    if expected is None or (who is not None and who.admin):
        return
    if not invitation:
        raise ApiError(403, "invitation_required", f"game {game.id} is private: send its invitation token "
                       "(`invitation`, answered to whoever created the game)")
    if not hmac.compare_digest(hash_token(invitation), expected):
        raise ApiError(403, "invitation_invalid", f"that is not the invitation token of game {game.id}")


@bp.post("/games/<int:game_id>/start")
@documented("Start a full game", ok={200: GameOut}, errors=(404, 409), auth=("seat", "admin"))
def start(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    require_seat(game)
    started = usecases.start(rt().recorder, game)
    rt().dispatcher.warm(started.id)
    return game_view(started)


@bp.get("/games/<int:game_id>/state")
@documented("Round, phase, who acts, players, corporations, market, tiles", ok={200: StateOut},
            errors=(403, 404), auth=("seat", "admin"), auth_optional=True)
def state(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    require_read(game)
    digest = _without_others_orders(game.state or {}, principal())
    view = {key: digest.get(key) for key in ("round", "phase", "players", "corporations", "market", "tiles")}
    view["market"] = page.state_market(game, digest)
    acting = digest.get("acting_players") or []
    if game.status == "active" and acting:  # the stand-in the table chose moves for the absent seat
        acting = with_stand_in(acting, stand_in_now(game.id))
    return StateOut().dump({"game_id": game.id, "version": game.version, "status": game.status,
                            "acting": digest.get("acting") or [],
                            "acting_players": acting, "result": game.result, "digest": digest,
                            **view})


def _without_others_orders(digest: dict[str, Any], who: Principal | None) -> dict[str, Any]:
    """A standing order is its player's own business (the page shows it to him alone): the state lists each
    player's orders to that player and to operators only, and an empty list to everyone else."""
    if who is not None and who.admin:
        return digest
    mine = str(who.seat.player_id) if who is not None and who.seat is not None else None
    players = digest.get("players")
    if not isinstance(players, dict):
        return digest
    shown = {pid: (entry if pid == mine or not isinstance(entry, dict) else {**entry, "programs": []})
             for pid, entry in players.items()}
    return {**digest, "players": shown}


@bp.get("/games/<int:game_id>/legal-actions")
@documented("Legal actions for the caller's entities (each posts as it is)", query=LegalQuery,
            ok={200: LegalOut}, errors=(404,), auth=("seat", "admin"))
def legal_actions(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    who = require_seat(game)
    entity: Any = query(LegalQuery).get("entity")
    if isinstance(entity, str) and entity.isdigit():
        entity = int(entity)
    if game.status != "active":
        return LegalOut().dump({"game_id": game.id, "version": game.version, "actions": [], "dead_ends": [],
                                "proposals": []})
    table = Table.replay(table_log().read(game.id))
    mine = None if who.admin else (who.seat.player_id if who.seat else -1)
    shelf = rt().offers
    shelf.mark(game.id)  # someone reads this game: its next positions are worked out after each move
    # the answer of a seat token with no entity is kept per position (services/play/offers.py); a seat the
    # table may have chosen to stand in for an absent one, an operator and one entity's moves are not
    kept_for = mine if entity is None and (table.stand_in is None or table.stand_in[1] != mine) else None
    seat = shelf.wait(game.id, game.version, kept_for, WAIT_SECONDS) if kept_for is not None else None
    if seat is None:
        with rt().sessions.use(game) as session:
            # a seat the table chose to stand in for an absent one is offered its moves (read from the table,
            # which is read anyway for the moves it puts to others first)
            absent = None
            if mine is not None and mine not in [int(p) for p in session.acting_players()]:
                absent = standing_in(session, table.stand_in, mine)
            seat = seat_offers(session, mine, entity, absent)
        if kept_for is not None:
            shelf.put(game.id, game.version, {kept_for: seat}, whole=False)
    actions, proposals = seat.split(table.needs)
    dead_ends = seat.dead_ends
    return LegalOut().dump({"game_id": game.id, "version": game.version, "actions": actions,
                            "dead_ends": dead_ends, "proposals": proposals})


@bp.get("/games/<int:game_id>/events")
@documented("Event log, paged by version", query=EventsQuery, ok={200: EventsOut}, errors=(403, 404),
            auth=("seat", "admin"), auth_optional=True)
def events(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    require_read(game)
    args = query(EventsQuery)
    page = rt().recorder.read_events(game_id, after_version=args["after"], limit=args["limit"])
    next_after = page[-1].version if len(page) == args["limit"] else None
    return EventsOut().dump({"game_id": game_id, "events": [e.__dict__ for e in page], "next_after": next_after})


@bp.get("/games/<int:game_id>/export")
@documented("Export as an 18xx.games record", ok={200: "the record"}, errors=(403, 404, 409),
            auth=("seat", "admin"), auth_optional=True)
def export(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    require_read(game)
    if game.status == "open":
        raise ApiError(409, "not_started", f"game {game_id} has not started; there is no record yet")
    return usecases.export_record(rt().sessions, game)


@bp.post("/games/import")
@documented("Import an 18xx.games record as a new game (replayed and validated)",
            description="422 names the first refused action. The record's player ids bind to existing "
                        "identities only for the caller's own id (or with the admin token); every other player "
                        "gets a fresh identity (answered in `players`). Send an `Idempotency-Key`: a retry "
                        "answers the first import (200) instead of a new game.",
            body=RecordIn, example={"title": "1840", "players": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}],
                                    "settings": {"seed": 1}, "actions": []},
            query=ImportQuery, params=({"in": "header", "name": "Idempotency-Key", "schema": {"type": "string", "minLength": 1, "maxLength": 200}},),
            ok={201: ImportOut, 200: ImportOut}, errors=(422,), auth=("player", "admin"))
def import_record() -> ResponseReturnValue:
    """Needs a player or admin token (see `services.play.imports` for how record ids bind to identities)."""
    who = principal()
    if who is None:
        raise ApiError(401, "unauthorized", "importing needs a player token (POST /players) or the admin token")
    if not who.admin and who.player is None:
        raise ApiError(403, "player_token_required", "importing needs a player token or the admin token, "
                       "not a seat token")
    key = request.headers.get("Idempotency-Key", "").strip() or None
    if key is not None and len(key) > 200:
        raise ApiError(400, "invalid_request", "Idempotency-Key is 1-200 characters",
                       details={"Idempotency-Key": ["1-200 characters"]})
    request.max_content_length = rt().config.max_import_bytes
    record = load(RecordIn, json_body())
    args = query(ImportQuery)
    settings = record.get("settings") or {}
    check_setup(record["title"], list(settings.get("optional_rules") or []), len(record["players"]),
                option_players=False)
    caller = (imports.Caller("admin", admin=True) if who.admin
              else imports.Caller(f"p{who.player.id}", player_id=who.player.id))  # type: ignore[union-attr]
    try:
        done = imports.import_record(rt().recorder, record, args["visibility"], caller, key)
    except EngineError as err:
        if err.rule in SETUP_RULES:
            raise setup_refused(record["title"], err) from err
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError, AssertionError) as err:
        # a record the schema let through but the engine cannot read (a field of the wrong shape)
        raise ApiError(422, "record_invalid", f"the record cannot be replayed: {type(err).__name__}: "
                       f"{str(err)[:200]}") from err
    if not done.replayed:
        # the rules the record was played under (free undo, any player ends it, free purchases), unless the
        # table chose stricter ones for the rest of the game
        record_table_rules(done.game.id, imports.UNDO_CONSENT, args["end_game"], args["purchases"])
        rt().dispatcher.warm(done.game.id)
    body = ImportOut().dump({"game": game_view(done.game), "seats": done.secrets["seats"],
                             "players": done.secrets["players"]})
    return body, 200 if done.replayed else 201, {"Location": game_url(done.game.id)}

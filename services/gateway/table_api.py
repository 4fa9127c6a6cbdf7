"""The table over REST (docs/time-controls.md): the game's time-control clock, one's own hours and vacation,
the table's vote at a deadline, undo/redo requests, proposals and their answers. Every write names the
caller's own seat (from the seat token); no body field can name someone else. The routes stay under
`/games/{id}/clock` and the blueprint keeps the name `clock`, which the OpenAPI tag and operation ids carry:
clients use them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Flask, current_app
from flask.typing import ResponseReturnValue

from services.apidoc import documented
from services.gateway.auth import require_read, require_seat
from services.gateway.errors import ApiError
from services.gateway.http import game_or_404, json_body, load
from services.gateway.runtime import rt
from services.gateway.table_schemas import (
    AnswerIn,
    BallotIn,
    ClockOut,
    HoursIn,
    TimeControlIn,
    UndoRequestIn,
    UndoRequestOut,
    VacationIn,
)
from services.play import timekeeping as tk
from services.play.moves import MoveDoor
from services.play.pending import Pending, Refused
from services.play.scheduler import Scheduler, session_remedies
from services.play.table_log import TableLog
from shared.eventstore.records import Game, Seat

bp = Blueprint("clock", __name__)  # the public tag and operation ids (see above)


def table_log() -> TableLog:
    log = current_app.extensions.get("railpost.table_log")
    if log is None:
        from services.notifier.db import make_engine

        log = TableLog(make_engine(rt().config.database_url, pool_size=2))
        current_app.extensions["railpost.table_log"] = log
    return log


def start_in_process(app: Flask) -> None:
    """The embedded mode's scheduler: a thread in the gateway process (CLOCK_TICK_SECONDS=0 turns it off)."""
    from services.play.scheduler import TICK_SECONDS, InProcessScheduler, Scheduler, session_remedies

    if TICK_SECONDS <= 0:
        return
    with app.app_context():
        runtime = rt()
        scheduler = Scheduler(runtime.recorder, table_log(), runtime.dispatcher,
                              session_remedies(runtime.recorder, runtime.sessions))
    app.extensions["railpost.scheduler"] = InProcessScheduler(scheduler).start()


def now() -> datetime:
    source = current_app.extensions.get("railpost.timesource")  # a test's time source, else the system's
    return source.now() if source is not None else datetime.now(UTC)


def _own_seat(game: Game) -> int:
    who = require_seat(game)
    if who.seat is None:
        raise ApiError(403, "seat_only", "only a seated player speaks for their own seat (not the admin token)")
    return who.seat.player_id


def follower() -> Scheduler:
    """The scheduler's pass over one game, run in the request that decides something (a vote's result, an
    accepted undo or proposal, a seat handed over), so nothing waits for the table's tick."""
    runtime = rt()
    source = current_app.extensions.get("railpost.timesource")  # a test's time source, else the system's
    timed = current_app.extensions.setdefault("railpost.timed", {})  # which games have a time control
    return Scheduler(runtime.recorder, table_log(), runtime.dispatcher,
                     session_remedies(runtime.recorder, runtime.sessions), timed=timed,
                     **({"timesource": source} if source is not None else {}))


def pending() -> Pending:
    """The table's decisions (services/play/pending.py): the same path the mail replies take."""
    return Pending(rt().recorder, rt().sessions, table_log(), follower().tick_game)


def door() -> MoveDoor:
    """The one door a move comes in by (services/play/moves.py)."""
    runtime = rt()
    return MoveDoor(runtime.recorder, runtime.dispatcher, runtime.signals, runtime.sessions, table_log, now,
                    follower().tick_game)


def refused(exc: Refused) -> ApiError:
    return ApiError(exc.status, exc.rule, str(exc), **({"details": exc.details} if exc.details else {}))


def _decide(game_id: int, decide: Any) -> list[dict[str, Any]]:
    """Read the table log, decide, append after what was read (Pending.decide), refusals as API errors."""
    try:
        return pending().decide(game_id, decide)
    except Refused as exc:
        raise refused(exc) from None


def stand_in_now(game_id: int) -> tuple[int, int] | None:
    """(absent seat, the seat the table chose to move for it), as the table log has it now."""
    return tk.Table.replay(table_log().read(game_id)).stand_in


def seat_player(game: Game, number: int, field: str | None = None) -> int:
    """The player id of the seat a request names (docs/time-controls.md, "Seats"): a number below the game's
    seat count is the seat number `GET /games/{id}` shows; a number from the seat count up is read as the
    player id of a seat of this game (it cannot be a seat number). Anything else: 404 (a path's seat) or 400
    (`field` of the body)."""
    seats = rt().recorder.seats(game.id)
    if 0 <= number < game.seat_count:
        found = next((s.player_id for s in seats if s.seat_index == number), None)
    else:
        found = next((s.player_id for s in seats if s.player_id == number), None)
    if found is not None:
        return found
    message = (f"game {game.id} has no seat {number}: seats are numbered 0 to {game.seat_count - 1} as "
               f"GET /games/{game.id} shows them (a seated player's id is understood from {game.seat_count} up)")
    if field is None:
        raise ApiError(404, "unknown_seat", message)
    raise ApiError(400, "invalid_request", message, details={field: [message]})


def numbered(view: dict[str, Any], seats: list[Seat]) -> dict[str, Any]:
    """The table's view with each seat as `GET /games/{id}` numbers it: `open_seats`, and `seat` in
    `seat_claim`, `holders` and `resigned` (each with the seat's `player_id` beside it); `seats` maps
    one to the other. Players (to move, voters, the stand-in, banks) stay named by player id."""
    number = {s.player_id: s.seat_index for s in seats}

    def seat(entry: dict[str, Any]) -> dict[str, Any]:
        return {**entry, "seat": number.get(entry["seat"], entry["seat"]), "player_id": entry["seat"]}

    claim = view.get("seat_claim")
    return {**view, "open_seats": sorted(number.get(p, p) for p in view.get("open_seats") or []),
            "seat_claim": None if claim is None else seat(claim),
            "holders": [seat(h) for h in view.get("holders") or []],
            "resigned": [seat(r) for r in view.get("resigned") or []],
            "seats": [{"seat": s.seat_index, "player_id": s.player_id, "name": s.name} for s in seats]}


def _view(game_id: int, seat: int | None = None) -> dict[str, Any]:
    view = tk.Table.replay(table_log().read(game_id)).view(now(), seat)
    return numbered(view, rt().recorder.seats(game_id))


@bp.get("/games/<int:game_id>/clock")
@documented("The game's clock, the table's vote, the open undo request and the seats (docs/time-controls.md)",
            ok={200: ClockOut}, errors=(403, 404), auth=("seat", "admin"), auth_optional=True, tags=("clock",))
def get_clock(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    who = require_read(game)
    return _view(game_id, who.seat.player_id if who is not None and who.seat is not None else None)


@bp.put("/games/<int:game_id>/clock")
@documented("Set the game's time control (before the start; after it, the table agrees)", body=TimeControlIn,
            example={"kind": "deadline", "per_move_hours": 48}, ok={200: ClockOut}, errors=(404, 409, 422),
            auth=("seat", "admin"), tags=("clock",))
def put_clock(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    require_seat(game)
    control = load(TimeControlIn, json_body())
    _decide(game_id, lambda t: tk.configure(t, control, game.status != "open", now()))
    return _view(game_id), 200


@bp.put("/games/<int:game_id>/clock/hours")
@documented("Set one's own hours: time zone, quiet hours, weekends off, auto-pass", body=HoursIn,
            example={"tz": "Europe/Amsterdam", "quiet_start": "23:00", "quiet_end": "07:00"}, ok={200: ClockOut},
            errors=(404, 409, 422), auth=("seat",), tags=("clock",))
def put_hours(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    seat = _own_seat(game)
    hours = load(HoursIn, json_body())
    _decide(game_id, lambda t: tk.set_hours(t, seat, hours, now()))
    return _view(game_id, seat), 200


@bp.put("/games/<int:game_id>/clock/vacation")
@documented("Go on vacation until a moment (null: back now); the clock stops for the seat",
            body=VacationIn, example={"until": "2030-01-01T12:00:00+00:00"}, ok={200: ClockOut},
            errors=(404, 409, 422), auth=("seat",), tags=("clock",))
def put_vacation(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    seat = _own_seat(game)
    until = load(VacationIn, json_body())["until"]
    _decide(game_id, lambda t: tk.vacation(t, seat, until, now()))
    return _view(game_id, seat), 200


@bp.post("/games/<int:game_id>/clock/vote")
@documented("Vote on an absent seat at its deadline (extend, substitute: a stand-in acts for it, open_seat)",
            body=BallotIn, example={"choice": "substitute", "substitute": 2}, ok={201: ClockOut}, errors=(404, 409, 422),
            auth=("seat",), tags=("clock",))
def post_vote(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    seat = _own_seat(game)
    body = load(BallotIn, json_body())
    substitute = body.get("substitute")
    if substitute is not None:
        substitute = seat_player(game, substitute, "substitute")
    try:
        pending().vote(game_id, seat, body["choice"], substitute, now())
    except Refused as exc:
        raise refused(exc) from None
    return _view(game_id, seat), 201


def record_table_rules(game_id: int, undo_consent: bool, end_game: str, purchases: str) -> None:
    """The creation hook: the table's rules in its table log. Consent is the undo default, so only free undo
    is recorded; the rules for ending the game and for purchases from another player's holding always are
    (a game without them, an import or an older game, keeps the free rules it was played under)."""
    events = tk.table_rules(end_game, purchases, now())
    if not undo_consent:
        events = tk.undo_policy(False, now()) + events
    _decide(game_id, lambda _t: events)


@bp.post("/games/<int:game_id>/undo-requests")
@documented("Ask the table to undo (or redo) into other players' moves", body=UndoRequestIn,
            example={"kind": "undo"}, ok={202: UndoRequestOut, 200: UndoRequestOut}, errors=(404, 409, 422),
            auth=("seat",), tags=("clock",))
def post_undo_request(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    seat = _own_seat(game)
    body = load(UndoRequestIn, json_body())
    try:
        free = pending().request(game, seat, body["kind"], body.get("action_id"), now())
    except Refused as exc:
        raise refused(exc) from None
    if free:
        return {"free": True, "message": f"only your own moves: post the {body['kind']} as an action"}, 200
    return {"free": False, **_view(game_id, seat)}, 202


@bp.post("/games/<int:game_id>/undo-requests/answer")
@documented("Answer the open undo request: accept or refuse", body=AnswerIn, example={"accept": True},
            ok={200: ClockOut}, errors=(404, 409, 422), auth=("seat",), tags=("clock",))
def post_answer(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    seat = _own_seat(game)
    accept = load(AnswerIn, json_body())["accept"]
    try:
        pending().answer(game_id, seat, accept, now())
    except Refused as exc:
        raise refused(exc) from None
    return _view(game_id, seat), 200


@bp.post("/games/<int:game_id>/proposals/answer")
@documented("Answer the move proposed to you (ending the game, a purchase from your holding): accept or "
            "decline; accepted by all, it is played at once in the proposer's name", body=AnswerIn,
            example={"accept": True}, ok={200: ClockOut}, errors=(404, 409, 422), auth=("seat",),
            tags=("proposals",))
def post_proposal_answer(game_id: int) -> ResponseReturnValue:
    """The seat's answer to the move proposed to it (ending the game, a purchase from its holding): the one
    consent a game waits for at a time, answered as an undo request is (`post_answer`); an accepted proposal
    is played at once, in the proposer's name."""
    return post_answer(game_id)

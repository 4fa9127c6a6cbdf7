"""Time controls over REST (docs/time-controls.md): the game's clock, one's own hours and vacation, the table's
vote at a deadline, undo/redo requests and their answers. Every write names the caller's own seat (from the
seat token); no body field can name someone else.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Flask, current_app
from flask.typing import ResponseReturnValue

from services.apidoc import documented
from services.gateway.auth import require_read, require_seat
from services.gateway.clock_schemas import (
    AnswerIn,
    BallotIn,
    ClockOut,
    HoursIn,
    TimeControlIn,
    UndoRequestIn,
    UndoRequestOut,
    VacationIn,
)
from services.gateway.errors import ApiError
from services.gateway.http import game_or_404, json_body, load
from services.gateway.runtime import rt
from services.play import timekeeping as tk
from services.play import undo_policy
from services.play.clock_store import ClockLog
from services.play.pending import Pending, Refused
from shared.eventstore.records import Game

bp = Blueprint("clock", __name__)


def clock_log() -> ClockLog:
    log = current_app.extensions.get("railpost.clock")
    if log is None:
        from services.notifier.db import make_engine

        log = ClockLog(make_engine(rt().config.database_url, pool_size=2))
        current_app.extensions["railpost.clock"] = log
    return log


def start_in_process(app: Flask) -> None:
    """The embedded mode's scheduler: a thread in the gateway process (CLOCK_TICK_SECONDS=0 turns it off)."""
    from services.play.scheduler import TICK_SECONDS, InProcessScheduler, Scheduler, session_remedies

    if TICK_SECONDS <= 0:
        return
    with app.app_context():
        runtime = rt()
        scheduler = Scheduler(runtime.recorder, clock_log(), runtime.dispatcher,
                              session_remedies(runtime.recorder, runtime.sessions))
    app.extensions["railpost.scheduler"] = InProcessScheduler(scheduler).start()


def now() -> datetime:
    clock = current_app.extensions.get("railpost.clock_time")
    return clock.now() if clock is not None else datetime.now(UTC)


def _own_seat(game: Game) -> int:
    who = require_seat(game)
    if who.seat is None:
        raise ApiError(403, "seat_only", "only a seated player speaks for their own seat (not the admin token)")
    return who.seat.player_id


def pending() -> Pending:
    """The table's decisions (services/play/pending.py): the same path the mail replies take."""
    return Pending(rt().recorder, rt().sessions, clock_log())


def refused(exc: Refused) -> ApiError:
    return ApiError(exc.status, exc.rule, str(exc), **({"details": exc.details} if exc.details else {}))


def _decide(game_id: int, decide: Any) -> list[dict[str, Any]]:
    """Read the clock, decide, append after what was read (Pending.decide), refusals as API errors."""
    try:
        return pending().decide(game_id, decide)
    except Refused as exc:
        raise refused(exc) from None


def _view(game_id: int, seat: int | None = None) -> dict[str, Any]:
    return tk.Table.replay(clock_log().read(game_id)).view(now(), seat)


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
    try:
        pending().vote(game_id, seat, body["choice"], body.get("substitute"), now())
    except Refused as exc:
        raise refused(exc) from None
    return _view(game_id, seat), 201


def guard_undo(game_id: int, player_id: int, action: dict[str, Any], expected_version: int) -> None:
    """The undo rule on `POST /games/{id}/actions` (services/play/undo_policy.py): 409 when the undo needs
    other players' consent, 422 for an unknown target; nothing is queued then."""
    game = game_or_404(game_id)
    try:
        undo_policy.check(rt().recorder, rt().sessions, clock_log(), game, player_id, action, expected_version)
    except undo_policy.UndoRefused as exc:
        details: dict[str, Any] | None = {"affected": exc.affected} if exc.affected else None
        if exc.rule == "undo_target":
            details = {"action_id": [str(exc)]}
        raise ApiError(exc.status, exc.rule, str(exc), **({"details": details} if details else {})) from None


def record_undo_policy(game_id: int, consent: bool) -> None:
    """The creation hook: a game that chose free undo says so in its clock log (consent is the default)."""
    if not consent:
        _decide(game_id, lambda _t: tk.undo_policy(False, now()))


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

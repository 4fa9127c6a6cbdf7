"""Seat hand-over and stand-ins over REST (docs/time-controls.md, "Hand-over"): a seated player offers a seat
the table opened (an invitation token, shown once), a newcomer claims it with that invitation (and gets the
seat token that works once the table agrees), the other seated players answer. The table's `substitute`
vote lets the chosen seat act for the absent one this turn (decided where the command is settled:
`services.play.apply.authorise`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from flask.typing import ResponseReturnValue
from marshmallow import fields, validate

from services.apidoc import documented
from services.gateway.http import game_or_404, json_body, load
from services.gateway.runtime import rt
from services.gateway.schemas import Strict, Text
from services.gateway.table_api import _own_seat, _view, now, pending, refused, seat_player
from services.gateway.table_schemas import ClockOut
from services.play.pending import Refused
from services.tokens import hash_token, new_token

bp = Blueprint("seats", __name__)


class ClaimIn(Strict):
    invitation = Text(required=True, validate=validate.Length(1, 200))
    name = Text(required=True, validate=validate.Length(1, 64))


class ClaimAnswerIn(Strict):
    accept = fields.Boolean(required=True)


class SeatOfferOut(ClockOut):
    seat = fields.Integer(required=True)
    player_id = fields.Integer(required=True)
    invitation = fields.String(required=True, metadata={"description": "the claim's token, shown once"})


class ClaimOut(ClockOut):
    seat = fields.Integer(required=True)
    player_id = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "the seat token, working once accepted"})
    holder_id = fields.Integer(required=True)
    player_token = fields.String(required=True, metadata={"description": "the newcomer's player token"})
    message = fields.String()


def _number(view: dict[str, Any], player: int) -> int:
    """The seat number of the seat whose player id is `player` (the view's `seats` map)."""
    return next(s["seat"] for s in view["seats"] if s["player_id"] == player)


def _invalidate(game_id: int, seat: int) -> None:
    """The old holder's token leaves this process's seat cache at once (other processes' within the cache's
    recheck interval, services/gateway/auth.py)."""
    cache = rt().seat_tokens
    for digest, cached in list(cache.items()):
        if cached.game_id == game_id and cached.player_id == seat:
            cache.pop(digest, None)


@bp.post("/games/<int:game_id>/seats/<int:seat>/offer")
@documented("Offer an open seat to a newcomer: answers the invitation (shown once)", ok={201: SeatOfferOut},
            errors=(404, 409, 422), auth=("seat",), tags=("seats",))
def offer(game_id: int, seat: int) -> ResponseReturnValue:
    """`seat`: its number as `GET /games/{id}` shows it, or a seated player's id (table_api.seat_player)."""
    game = game_or_404(game_id)
    by = _own_seat(game)
    player = seat_player(game, seat)
    invitation = new_token()
    try:
        pending().offer(game_id, by, player, hash_token(invitation), now())
    except Refused as exc:
        raise refused(exc) from None
    view = _view(game_id, by)
    return {**view, "seat": _number(view, player), "player_id": player, "invitation": invitation}, 201


@bp.post("/games/<int:game_id>/seats/resign")
@documented("Leave the game: the caller's seat opens for a new player", ok={200: ClockOut},
            errors=(404, 409, 422), auth=("seat",), tags=("seats",))
def resign(game_id: int) -> ResponseReturnValue:
    """The caller leaves the game: his seat opens for a new player (offer, claim, the table's consent)."""
    game = game_or_404(game_id)
    by = _own_seat(game)
    try:
        pending().resign(game, by, now())
    except Refused as exc:
        raise refused(exc) from None
    return _view(game_id, by), 200


@bp.post("/games/<int:game_id>/seats/<int:seat>/claim")
@documented("Claim an offered seat with its invitation; the seat token works once the table accepts",
            body=ClaimIn, example={"invitation": "rp_...", "name": "Cleo"}, ok={202: ClaimOut},
            errors=(404, 409, 422), tags=("seats",))
def claim(game_id: int, seat: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    player = seat_player(game, seat)
    body = load(ClaimIn, json_body())
    token, player_token = new_token(), new_token()
    invite = hash_token(body["invitation"])
    try:  # refuse before creating the newcomer's identity
        pending().check_claim(game, player, invite, body["name"], now())
        holder = rt().recorder.create_player(body["name"], hash_token(player_token)).id  # for his own channels
        pending().claim(game, player, invite, body["name"], hash_token(token), holder, now())
    except Refused as exc:
        raise refused(exc) from None
    view = _view(game_id)
    return {**view, "seat": _number(view, player), "player_id": player, "token": token, "holder_id": holder, "player_token": player_token,
            "message": "the seat token works once the table accepts you; the player token sets up your "
                       "notifications (/notifier)"}, 202


@bp.post("/games/<int:game_id>/seats/claim/answer")
@documented("Answer a newcomer's claim of a seat: accept or refuse", body=ClaimAnswerIn,
            example={"accept": True}, ok={200: ClockOut}, errors=(404, 409, 422), auth=("seat",), tags=("seats",))
def answer(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    by = _own_seat(game)
    accept = load(ClaimAnswerIn, json_body())["accept"]
    try:
        done = pending().answer_claim(game, by, accept, now())
    except Refused as exc:
        raise refused(exc) from None
    for claim_ in done:
        _invalidate(game_id, claim_.seat)
    return _view(game_id, by), 200

"""Revoking sign-in links: a player who lost a device (or forwarded a turn email) ends every link issued to
his seat so far; the next turn email brings a fresh one. The seat token itself is not touched."""

from __future__ import annotations

import time

from flask import Blueprint
from flask.typing import ResponseReturnValue

from services.apidoc import documented
from services.gateway.auth import require_seat
from services.gateway.errors import ApiError
from services.gateway.http import game_or_404
from services.gateway.runtime import rt
from services.gateway.schemas import RevokeOut

bp = Blueprint("signin", __name__)


@bp.post("/games/<int:game_id>/signin-links/revoke")
@documented("Revoke every sign-in link issued to the caller's seat so far (the seat token stays)",
            ok={200: RevokeOut}, errors=(404,), auth=("seat",))
def revoke(game_id: int) -> ResponseReturnValue:
    game = game_or_404(game_id)
    who = require_seat(game)
    if who.seat is None:
        raise ApiError(403, "seat_only", "only a seat revokes its own sign-in links")
    now = time.time()
    rt().recorder.revoke_signins(game.id, who.seat.player_id, now)
    return {"game_id": game.id, "player_id": who.seat.player_id, "revoked_before": now}

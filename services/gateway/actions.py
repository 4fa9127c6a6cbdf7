"""Submitting actions and reading their receipts.

`POST /games/{id}/actions` stores a queued receipt under the `Idempotency-Key` and answers 202 with the
receipt URL. With `?wait=N` it long-polls up to N seconds and then answers with the outcome's status:
200 applied, 409 stale version (another command won), 403 not your entity (play's seat check, the one place
that asks who controls what), 400/422 refused by the engine.
The gateway itself answers 409 at once when the expected version is already stale or another command is
queued at that version, so of N racing clients exactly one is applied and the others see 409.
Same key + same body returns the first receipt; same key + different body is 422. Keys are the caller's
own: another caller's identical key is a different command (`scoped`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request
from flask.typing import ResponseReturnValue

from services.apidoc import documented
from services.gateway.auth import Principal, known_seat_of, remember_seat, require_seat, seat_in, seat_token
from services.gateway.errors import ApiError
from services.gateway.guide import action_examples
from services.gateway.http import game_or_404, game_url, json_body, load, query
from services.gateway.runtime import rt
from services.gateway.schemas import ActionIn, ReceiptOut, WaitQuery
from services.gateway.table_api import door, refused
from services.metrics import ACTIONS_REFUSED
from services.play.commands import wait_for
from services.play.moves import Accepted, Caller, client_key
from services.play.pending import Ask, Refused
from services.tokens import hash_token
from shared.eventstore import Conflict, Receipt
from shared.eventstore.records import APPLIED, QUEUED, REFUSED

bp = Blueprint("actions", __name__)
_RECEIPT = ReceiptOut()


def scoped(who: Principal, key: str) -> str:
    """The stored command id of the caller's key (`Caller.command_id`)."""
    return Caller(None if who.admin else who.seat.player_id).command_id(key)  # type: ignore[union-attr]


def receipt_view(receipt: Receipt) -> dict[str, Any]:
    """A receipt; a refused one also carries the common error fields (`error`, `message`) beside its own
    `rule` and `reason`, so a client reads every failure the same way."""
    key = client_key(receipt.command_id)
    view = _RECEIPT.dump({**receipt.__dict__, "command_id": key,
                          "url": f"{game_url(receipt.game_id)}/receipts/{key}"})
    if receipt.status == REFUSED:
        view["error"] = receipt.rule or "refused"
        view["message"] = receipt.reason or "the action was refused"
    return view


def _wait_seconds() -> float:
    return min(query(WaitQuery)["wait"], rt().config.max_wait_seconds)


@bp.post("/games/<int:game_id>/actions")
@documented("Submit an action",
            description="Needs `Idempotency-Key`. 202 queued (receipt URL in Location); with `wait` the outcome: "
                        "200 applied, 409 stale version, 403 not your entity, 400/422 refused by the engine. "
                        "A field the action's type does not have is refused (400, named in `details`). "
                        "Same key + different body: 422. Oversize body: 413.",
            body=ActionIn, examples=action_examples(), query=WaitQuery,
            params=({"in": "header", "name": "Idempotency-Key", "schema": {"type": "string", "minLength": 1, "maxLength": 200}, "required": True},),
            ok={202: ReceiptOut, 200: ReceiptOut}, errors=(404, 409, 422), auth=("seat", "admin"))
def post_action(game_id: int) -> ResponseReturnValue:
    """A thin adapter over the one door (services/play/moves.py): who the caller is, the body, the answer."""
    key = request.headers.get("Idempotency-Key", "").strip()
    body = load(ActionIn, json_body())
    location = {"Location": f"{game_url(game_id)}/receipts/{key}"}
    fast = _as_seat(game_id, key, body)
    if fast is not None and fast.receipt is not None:
        return receipt_view(fast.receipt), _status(fast.receipt, True), location
    who = seat_in(game_id)
    if not _key_ok(key):
        raise ApiError(400, "idempotency_key_required", "send an Idempotency-Key header (1-200 characters)")
    wait = _wait_seconds()
    caller = Caller(None if who.admin else who.seat.player_id)  # type: ignore[union-attr]
    try:
        done = door().accept(game_id, caller, key, body["action"], body["expected_version"], wait)
    except Refused as exc:
        raise refused(exc) from None
    except Conflict as err:
        ACTIONS_REFUSED.labels("gateway", err.code).inc()
        raise
    if done.proposal is not None:
        return _proposal_view(game_id, done.proposal), 202
    assert done.receipt is not None
    return receipt_view(done.receipt), _status(done.receipt, done.created), location


def _proposal_view(game_id: int, ask: Ask) -> dict[str, Any]:
    """A move put to the table instead of being played: who must accept it, until when."""
    waiting = ", ".join(str(p) for p in ask.players)
    return {"status": "proposed", "game_id": game_id, "proposal": {
        "kind": ask.kind, "by": ask.by, "action": ask.move, "waiting_for": list(ask.players),
        "closes": ask.closes.replace(microsecond=0).isoformat()},
        "message": f"this move needs the agreement of player(s) {waiting}: it is played in your name once they "
                   f"all accept (POST /games/{game_id}/proposals/answer), and lapses if anyone declines or "
                   "another move is made first"}


def _key_ok(key: str) -> bool:
    return 0 < len(key) <= 200


def _as_seat(game_id: int, key: str, body: dict[str, Any]) -> Accepted | None:
    """A seat's move whose token the gateway must look up again (most play-by-mail moves: they come further
    apart than the seat cache trusts a token) is queued in the same statement as the lookup
    (`MoveDoor.accept_as_seat`), unless its sender waits and the doorbell can carry it (then the settle stores
    it, and the lookup is a plain read). Only the plain case: a valid key and wait, a seat of this game, a move the
    table's rules cannot touch, a new command. Anything else returns None and takes the general path, which
    answers it in its usual order (404, 401/403, then 400); a seat the statement found is remembered, so
    that path does not look it up again."""
    token = seat_token()
    if token is None or not _key_ok(key) or known_seat_of(game_id) is not None:
        return None
    try:
        wait = _wait_seconds()
    except ApiError:
        return None
    if wait and door().dispatcher.carries_commands:
        return None  # stored by its settle (`send_and_wait`): a read of the seat, no write before the worker's
    digest = hash_token(token)
    seat, done = door().accept_as_seat(game_id, digest, key, body["action"], body["expected_version"], wait)
    if seat is not None or done is not None:
        remember_seat(digest, seat)
    return done


def _status(receipt: Receipt, created: bool) -> int:
    if receipt.status == QUEUED:
        return 202
    if receipt.status == APPLIED:
        return 200
    return receipt.http_status or 422


@bp.get("/games/<int:game_id>/receipts/<string:key>")
@documented("A command's receipt: queued, applied (new version) or refused (reason)", query=WaitQuery,
            ok={200: ReceiptOut}, errors=(404,), auth=("seat", "admin"))
def get_receipt(game_id: int, key: str) -> ResponseReturnValue:
    game = game_or_404(game_id)
    who = require_seat(game)
    command_id = scoped(who, key)
    if who.admin and client_key(key) != key:  # an operator names another caller's command in full: p7:key
        command_id = key
    wait = _wait_seconds()
    receipt = (wait_for(rt().recorder, game_id, command_id, wait, rt().signals) if wait
               else rt().recorder.get_receipt(game_id, command_id))
    if receipt is None:
        raise ApiError(404, "receipt_not_found", f"no command {key!r} in game {game_id}")
    return receipt_view(receipt)

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
from services.gateway.clock_api import guard_undo
from services.gateway.errors import ApiError
from services.gateway.guide import action_examples
from services.gateway.http import game_or_404, game_url, json_body, load, query
from services.gateway.runtime import rt
from services.gateway.schemas import ActionIn, ReceiptOut, WaitQuery
from services.metrics import ACTIONS_REFUSED
from services.play.commands import body_hash, ring_and_wait, submit_and_wait, wait_for
from services.tokens import hash_token
from shared.eventstore import Conflict, Receipt
from shared.eventstore.records import APPLIED, QUEUED, REFUSED, seat_command_id

bp = Blueprint("actions", __name__)
_RECEIPT = ReceiptOut()


def scoped(who: Principal, key: str) -> str:
    """The stored command id: the caller's Idempotency-Key inside the caller's own namespace (`admin:` or
    `p<player id>:`, `seat_command_id`), so one caller's key never answers another caller's receipt."""
    return f"admin:{key}" if who.admin else seat_command_id(who.seat.player_id, key)  # type: ignore[union-attr]


def client_key(command_id: str) -> str:
    """The caller's own key back from a stored command id (older rows have no namespace)."""
    scope, sep, key = command_id.partition(":")
    return key if sep and (scope == "admin" or (scope[:1] == "p" and scope[1:].isdigit())) else command_id


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
    key = request.headers.get("Idempotency-Key", "").strip()
    body = load(ActionIn, json_body())
    queued = _queued_by_seat(game_id, key, body)
    if queued is not None:
        receipt = ring_and_wait(rt().recorder, rt().dispatcher, rt().signals, *queued)
        return receipt_view(receipt), _status(receipt, True), {"Location": f"{game_url(game_id)}/receipts/{key}"}
    who = seat_in(game_id)
    if not _key_ok(key):
        raise ApiError(400, "idempotency_key_required", "send an Idempotency-Key header (1-200 characters)")
    wait = _wait_seconds()
    # whether this seat may act for the action's entity (its own, or the absent seat's it stands in for) is
    # play's question, asked once when the command is settled (`services.play.apply.authorise`); its refusal
    # comes back as the receipt's 403
    player_id = None if who.admin else who.seat.player_id  # type: ignore[union-attr]
    action = body["action"]
    if (player_id is not None and action.get("type") in ("undo", "redo")
            and rt().recorder.get_receipt(game_id, scoped(who, key)) is None):  # a retry answers its receipt
        guard_undo(game_id, player_id, action, body["expected_version"])  # undo with consent
    try:
        receipt, created = submit_and_wait(rt().recorder, rt().dispatcher, rt().signals, game_id,
                                           scoped(who, key), body, player_id, wait)
    except Conflict as err:
        ACTIONS_REFUSED.labels("gateway", err.code).inc()
        raise
    headers = {"Location": f"{game_url(game_id)}/receipts/{key}"}
    return receipt_view(receipt), _status(receipt, created), headers


def _key_ok(key: str) -> bool:
    return 0 < len(key) <= 200


def _queued_by_seat(game_id: int, key: str, body: dict[str, Any]) -> tuple[Receipt, float] | None:
    """A seat's move whose token the gateway must look up again (most play-by-mail moves: they come further
    apart than the seat cache trusts a token) is queued in the same statement as the lookup
    (`SqlRecorder.queue_as_seat`). Only the plain case: a valid key and wait, a seat of this game, not an
    undo or redo (those ask for consent first), a new command. Anything else returns None and takes the
    general path below, which answers it in its usual order (404, 401/403, then 400); a seat the statement
    found is remembered, so that path does not look it up again. Returns the receipt and the wait."""
    token = seat_token()
    if (token is None or not _key_ok(key) or known_seat_of(game_id) is not None
            or body["action"].get("type") in ("undo", "redo")):
        return None
    try:
        wait = _wait_seconds()
    except ApiError:
        return None
    digest = hash_token(token)
    seat, receipt = rt().recorder.queue_as_seat(game_id, digest, key, body_hash(body), body["expected_version"],
                                                body["action"])
    remember_seat(digest, seat)
    return None if receipt is None else (receipt, wait)


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

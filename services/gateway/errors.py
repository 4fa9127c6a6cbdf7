"""Every error leaves the gateway as JSON naming the problem: `{"error": code, "message": ...}`."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, jsonify
from flask.typing import ResponseReturnValue
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from shared.engine import EngineError, ReplayError
from shared.eventstore import Conflict, NotFound

CONFLICT_STATUS = {"idempotency_key_reused": 422}


class ApiError(Exception):
    def __init__(self, status: int, error: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": error, "message": message, **extra}


def _json(status: int, body: dict[str, Any]) -> ResponseReturnValue:
    return jsonify(body), status


def register(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(err: ApiError) -> ResponseReturnValue:
        return _json(err.status, err.body)

    @app.errorhandler(ValidationError)
    def invalid(err: ValidationError) -> ResponseReturnValue:
        return _json(400, {"error": "invalid_request", "message": "the request does not match its schema",
                           "details": err.messages_dict if isinstance(err.messages, dict) else {"_": err.messages}})

    @app.errorhandler(NotFound)
    def not_found(err: NotFound) -> ResponseReturnValue:
        return _json(404, {"error": "not_found", "message": str(err)})

    @app.errorhandler(Conflict)
    def conflict(err: Conflict) -> ResponseReturnValue:
        return _json(CONFLICT_STATUS.get(err.code, 409), {"error": err.code, "message": str(err)})

    @app.errorhandler(ReplayError)
    def replay(err: ReplayError) -> ResponseReturnValue:
        return _json(422, {"error": "replay_refused", "message": str(err), "rule": err.error.rule,
                           "details": {"index": err.index, "action": err.action}})

    @app.errorhandler(EngineError)
    def engine(err: EngineError) -> ResponseReturnValue:
        return _json(422, {"error": "engine_refused", "message": err.message, "rule": err.rule})

    @app.errorhandler(HTTPException)
    def http(err: HTTPException) -> ResponseReturnValue:
        code = (err.name or "error").lower().replace(" ", "_")
        return _json(err.code or 500, {"error": code, "message": err.description or err.name})

    @app.errorhandler(Exception)
    def crash(err: Exception) -> ResponseReturnValue:
        logging.getLogger("railpost.gateway").exception("unhandled error")
        return _json(500, {"error": "internal_error", "message": f"{type(err).__name__}: the server failed"})

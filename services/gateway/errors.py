"""Every error leaves the gateway in one shape: `{"error": code, "message": ...}`, plus `details` for
invalid requests and `rule`/`reason` (and the receipt's fields) for refused actions.

An unreachable PostgreSQL, Redis or a locked SQLite is an outage, not a bug: 503 with `Retry-After`, and the
next request after the outage finds the pools reconnected (a broken connection is discarded, not reused)."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import psycopg
import redis
from flask import Flask, jsonify
from flask.typing import ResponseReturnValue
from marshmallow import ValidationError
from psycopg_pool import PoolTimeout
from sqlalchemy.exc import DataError as SqlAlchemyDataError
from sqlalchemy.exc import OperationalError as SqlAlchemyOperationalError
from sqlalchemy.exc import TimeoutError as SqlAlchemyPoolTimeout
from werkzeug.exceptions import HTTPException

from shared.engine import EngineError, ReplayError
from shared.eventstore import Conflict, NotFound

CONFLICT_STATUS = {"idempotency_key_reused": 422}
RETRY_AFTER_SECONDS = 2
OUTAGES: tuple[type[BaseException], ...] = (
    psycopg.OperationalError, psycopg.InterfaceError, PoolTimeout, redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError, sqlite3.OperationalError, ConnectionError, TimeoutError,
    SqlAlchemyOperationalError, SqlAlchemyPoolTimeout,  # the notifier's endpoints
)
try:  # Celery's own publishing path (warm, non-Redis brokers) wraps broker failures in kombu's error
    from kombu.exceptions import OperationalError as KombuOperationalError

    OUTAGES += (KombuOperationalError,)
except ImportError:  # pragma: no cover - kombu comes with celery
    pass


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
        details = err.messages_dict if isinstance(err.messages, dict) else {"_": err.messages}
        named = ", ".join(sorted(_paths(details))) or "the body"
        return _json(400, {"error": "invalid_request", "message": f"invalid field(s): {named}",
                           "details": details})

    @app.errorhandler(NotFound)
    def not_found(err: NotFound) -> ResponseReturnValue:
        return _json(404, {"error": "not_found", "message": str(err)})

    @app.errorhandler(Conflict)
    def conflict(err: Conflict) -> ResponseReturnValue:
        return _json(CONFLICT_STATUS.get(err.code, 409), {"error": err.code, "message": str(err)})

    @app.errorhandler(ReplayError)
    def replay(err: ReplayError) -> ResponseReturnValue:
        body = {"error": "replay_refused", "message": str(err), "rule": err.error.rule, "reason": err.error.reason,
                "details": {"index": err.index, "action": err.action}}
        if err.error.valid is not None:
            body["valid"] = err.error.valid
        return _json(422, body)

    @app.errorhandler(EngineError)
    def engine(err: EngineError) -> ResponseReturnValue:
        body = {"error": "engine_refused", "message": err.message, "rule": err.rule, "reason": err.reason}
        if err.valid is not None:
            body["valid"] = err.valid
        return _json(422, body)

    @app.errorhandler(HTTPException)
    def http(err: HTTPException) -> ResponseReturnValue:
        code = (err.name or "error").lower().replace(" ", "_")
        return _json(err.code or 500, {"error": code, "message": err.description or err.name})

    @app.errorhandler(RecursionError)
    def too_deep(err: RecursionError) -> ResponseReturnValue:
        return _json(400, {"error": "malformed_json", "message": "the request is nested too deeply"})

    for outage in OUTAGES:
        app.register_error_handler(outage, unavailable)
    for data_error in (psycopg.DataError, SqlAlchemyDataError):
        app.register_error_handler(data_error, out_of_range)

    @app.errorhandler(Exception)
    def crash(err: Exception) -> ResponseReturnValue:
        logging.getLogger("railpost.gateway").exception("unhandled error")
        return _json(500, {"error": "internal_error", "message": f"{type(err).__name__}: the server failed"})


def _paths(details: dict[str, Any], prefix: str = "") -> list[str]:
    """The invalid fields' dotted paths (`action.rotaton`), so the message names a nested one too."""
    out: list[str] = []
    for key, value in details.items():
        path = f"{prefix}{key}"
        nested = isinstance(value, dict) and value and all(not str(k).isdigit() for k in value)
        out += _paths(value, path + ".") if nested else [path]
    return out


def unavailable(err: BaseException) -> ResponseReturnValue:
    logging.getLogger("railpost.gateway").warning("backing service unavailable: %s: %s",
                                                  type(err).__name__, str(err)[:200])
    body = {"error": "service_unavailable", "message": "a backing service (database or queue) is unavailable; "
            f"retry in {RETRY_AFTER_SECONDS} s (the same Idempotency-Key is safe to resend)"}
    return jsonify(body), 503, {"Retry-After": str(RETRY_AFTER_SECONDS)}


def out_of_range(err: BaseException) -> ResponseReturnValue:
    """The database refused a value the request carried (SQLSTATE class 22, "data exception": a number
    beyond its column, an impossible date). The schemas bound what they know; this is the backstop for a
    column narrower than its schema, and the value came from the client, so it is a 400, not a 500."""
    cause = getattr(err, "orig", None) or err
    first = (str(cause).strip().splitlines() or ["a value is out of range"])[0][:200]
    logging.getLogger("railpost.gateway").warning("database refused a request value: %s", first)
    return jsonify({"error": "invalid_request", "message": f"a value in the request is out of range: {first}"}), 400

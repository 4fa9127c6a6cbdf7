"""What the notifier's REST modules share: the context the API is mounted with, the caller, the one error
shape and the refusals' handlers. It sits below `api` and `webpush_api`, which both build on it, so neither
imports the other's helpers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any

import sqlalchemy as sa
from flask import Response, current_app, g, jsonify, request
from marshmallow import ValidationError

from services.timesource import SystemTime, TimeSource

from . import manage
from .auth import Caller, identify
from .settings import NotifierSettings
from .ssrf import Resolver, UnsafeUrl, system_resolver

EXTENSION = "railpost_notifier"
AUTH = ("player", "seat", "admin")  # an admin names the player with ?player_id=
TAGS = ("notifications",)


@dataclass
class ApiContext:
    engine: sa.Engine
    settings: NotifierSettings
    admin_token: str | None = None
    timesource: TimeSource = field(default_factory=SystemTime)
    signin_secret: str = ""  # sign-in links (services/signin.py) are callers too
    resolver: Resolver = system_resolver


def _ctx() -> ApiContext:
    ctx = current_app.extensions.get(EXTENSION)
    if ctx is None:
        raise RuntimeError("the notifier API is mounted without a context: call services.notifier.api.init_app")
    return ctx  # type: ignore[no-any-return]


def _error(status: int, code: str, message: str, **extra: Any) -> tuple[Response, int]:
    return jsonify({"error": code, "message": message, **extra}), status


def authenticated(view: Callable[..., Any]) -> Callable[..., Any]:
    """Resolve the caller; an admin acts for the player named by `?player_id=`."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = _ctx()
        with ctx.engine.connect() as conn:
            caller = identify(conn, request.headers.get("Authorization"), ctx.admin_token, ctx.signin_secret)
        if caller is None:
            return _error(401, "unauthorized", "send Authorization: Bearer <player or seat token>")
        if caller.admin:
            named = request.args.get("player_id")
            caller = Caller(named, admin=True)
        g.notifier_caller = caller
        return view(*args, **kwargs)

    return wrapper


def _player() -> str | None:
    caller: Caller = g.notifier_caller
    return caller.player_id


def _require_player() -> str:
    pid = _player()
    if pid is None:
        raise manage.StateError("admin requests must name the player with ?player_id=")
    return pid


def _invalid(exc: ValidationError) -> tuple[Response, int]:
    details = exc.messages_dict if isinstance(exc.messages, dict) else {"_": exc.messages}
    return _error(400, "invalid_request", "the request does not match its schema", details=details)


def _unsafe(exc: UnsafeUrl) -> tuple[Response, int]:
    return _error(422, "unsafe_url", str(exc))


def _missing(exc: manage.NotFoundError) -> tuple[Response, int]:
    return _error(404, "not_found", str(exc))


def _conflict(exc: manage.StateError) -> tuple[Response, int]:
    return _error(409, "conflict", str(exc))


ERROR_HANDLERS: dict[type[Exception], Callable[..., tuple[Response, int]]] = {
    ValidationError: _invalid, UnsafeUrl: _unsafe, manage.NotFoundError: _missing, manage.StateError: _conflict}

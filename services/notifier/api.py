"""REST API for players' notification settings and their webhook delivery log, mounted at /notifier.

Mounted the Flask extension way: `init_app(app, ctx)` registers the blueprint (once) and binds its context
(database, settings, admin token); the gateway's `create_app` passes `context_for(config)`, built from its
own Config, so the notifier's API reads the same database and speaks with the same public URL.
"""

from __future__ import annotations

import html
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request

from services.apidoc import documented
from services.config import Config

from . import manage, unsubscribe
from .api_base import (
    AUTH,
    ERROR_HANDLERS,
    EXTENSION,
    TAGS,
    ApiContext,
    _ctx,
    _error,
    _player,
    _require_player,
    authenticated,
)
from .db import make_engine
from .schemas import (
    DeliveriesQuery,
    DeliveryOut,
    EndpointOut,
    SubscriptionIn,
    SubscriptionOut,
    VacationIn,
    VacationOut,
)
from .settings import API_PREFIX, NotifierSettings
from .webpush_api import bp as webpush_bp

bp = Blueprint("notifier", __name__, url_prefix=API_PREFIX)
FAR_FUTURE = datetime(9999, 1, 1, tzinfo=UTC)
EXAMPLE = {"channel": "webhook", "url": "https://example.org/hook"}


def init_app(app: Flask, ctx: ApiContext) -> None:
    """Mount the notifier's API on `app` with its context (the Flask extension pattern): the blueprint is
    registered once, the context kept in `app.extensions`."""
    for blueprint in (bp, webpush_bp):
        if blueprint.name not in app.blueprints:
            app.register_blueprint(blueprint)
    app.extensions[EXTENSION] = ctx


def context_for(config: Config) -> ApiContext:
    """The context of the API inside the gateway: the notifier's settings from the environment, with the
    gateway's database, public URL and admin token (its `services.config.Config`). The engine connects on
    first use."""
    settings = replace(NotifierSettings.from_env(), database_url=config.database_url,
                       public_base_url=config.public_url)
    return ApiContext(make_engine(settings.database_url), settings, config.admin_token,
                      signin_secret=config.signin_secret)


for _error_type, _handler in ERROR_HANDLERS.items():
    bp.register_error_handler(_error_type, _handler)


@bp.get("/subscriptions")
@documented("My subscriptions", ok={200: SubscriptionOut}, many=True, auth=AUTH, tags=TAGS)
@authenticated
def list_subscriptions() -> Any:
    ctx = _ctx()
    with ctx.engine.connect() as conn:
        rows = manage.list_subscriptions(conn, _require_player(), ctx.timesource.now())
    return jsonify(SubscriptionOut(many=True).dump(rows))


def _put(game_id: str | None) -> Any:
    ctx = _ctx()
    data = SubscriptionIn().load(request.get_json(silent=True) or {})
    with ctx.engine.begin() as conn:
        view = manage.set_subscription(
            conn, _require_player(), game_id, manage.SubscriptionRequest(**data), ctx.timesource.now(),
            ctx.settings.url_policy, ctx.resolver,
        )
    return jsonify(SubscriptionOut().dump(view))


def _delete(game_id: str | None) -> Any:
    with _ctx().engine.begin() as conn:
        manage.delete_subscription(conn, _require_player(), game_id)
    return "", 204


@bp.put("/subscriptions/default")
@documented("Set my default channel", body=SubscriptionIn, example=EXAMPLE, ok={200: SubscriptionOut},
            errors=(409, 422), auth=AUTH, tags=TAGS)
@authenticated
def put_default() -> Any:
    return _put(None)


@bp.delete("/subscriptions/default")
@documented("Remove my default", ok={204: "removed"}, errors=(409,), auth=AUTH, tags=TAGS)
@authenticated
def delete_default() -> Any:
    return _delete(None)


@bp.put("/subscriptions/games/<game_id>")
@documented("Set my channel for one game", body=SubscriptionIn, example=EXAMPLE, ok={200: SubscriptionOut},
            errors=(409, 422), auth=AUTH, tags=TAGS)
@authenticated
def put_game(game_id: str) -> Any:
    return _put(game_id)


@bp.delete("/subscriptions/games/<game_id>")
@documented("Fall back to my default for this game", ok={204: "removed"}, errors=(409,), auth=AUTH, tags=TAGS)
@authenticated
def delete_game(game_id: str) -> Any:
    return _delete(game_id)


@bp.post("/endpoints/<int:endpoint_id>/rotate-secret")
@documented("New signing secret; old ones valid 24 h more", ok={200: EndpointOut}, errors=(404,), auth=AUTH, tags=TAGS)
@authenticated
def rotate_secret(endpoint_id: int) -> Any:
    ctx = _ctx()
    overlap = timedelta(hours=ctx.settings.secret_overlap_hours)
    with ctx.engine.begin() as conn:
        view = manage.rotate_secret(conn, _player(), endpoint_id, ctx.timesource.now(), overlap)
    return jsonify(EndpointOut().dump(view))


@bp.get("/deliveries")
@documented("Webhook delivery log", query=DeliveriesQuery, ok={200: DeliveryOut}, many=True, auth=AUTH, tags=TAGS)
@authenticated
def list_deliveries() -> Any:
    args = DeliveriesQuery().load(request.args.to_dict())
    with _ctx().engine.connect() as conn:
        rows = manage.list_deliveries(conn, _player(), args["limit"], args["status"])
    return jsonify(DeliveryOut(many=True).dump(rows))


@bp.get("/deliveries/<int:delivery_id>")
@documented("One delivery with its attempts", ok={200: DeliveryOut}, errors=(404,), auth=AUTH, tags=TAGS)
@authenticated
def get_delivery(delivery_id: int) -> Any:
    with _ctx().engine.connect() as conn:
        return jsonify(DeliveryOut().dump(manage.get_delivery(conn, _player(), delivery_id)))


@bp.post("/deliveries/<int:delivery_id>/redeliver")
@documented("Send again now (same webhook-id)", ok={202: DeliveryOut}, errors=(404, 409), auth=AUTH, tags=TAGS)
@authenticated
def redeliver(delivery_id: int) -> Any:
    ctx = _ctx()
    with ctx.engine.begin() as conn:
        view = manage.redeliver(conn, _player(), delivery_id, ctx.timesource.now())
    return jsonify(DeliveryOut().dump(view)), 202


@bp.put("/vacation")
@documented("Pause reminders", body=VacationIn, example={"on": True}, ok={200: VacationOut}, errors=(409,),
            auth=AUTH, tags=TAGS)
@authenticated
def put_vacation() -> Any:
    data = VacationIn().load(request.get_json(silent=True) or {})
    until = data["until"] if data["until"] is not None else (FAR_FUTURE if data["on"] else None)
    with _ctx().engine.begin() as conn:
        view = manage.set_vacation(conn, _require_player(), until)
    return jsonify(VacationOut().dump(view))


@bp.post("/unsubscribe/<token>")
@documented("RFC 8058 one-click unsubscribe", ok={200: "text/plain"}, media="text/plain", errors=(404,),
            tags=TAGS)
def unsubscribe_one_click(token: str) -> Any:
    """RFC 8058 one-click: the mail client POSTs `List-Unsubscribe=One-Click`; it takes effect at once."""
    ctx = _ctx()
    with ctx.engine.begin() as conn:
        found = unsubscribe.redeem(conn, token, ctx.timesource.now())
    if not found:
        return _error(404, "not_found", "unknown or expired unsubscribe link")
    return Response("You will get no more email from Railpost at this address.\n", mimetype="text/plain")


@bp.get("/unsubscribe/<token>")
@documented("Unsubscribe confirmation page", ok={200: "text/html"}, media="text/html", tags=TAGS)
def unsubscribe_page(token: str) -> Any:
    """A page with a button: GET must not unsubscribe, or link scanners would unsubscribe people."""
    action = html.escape(f"{API_PREFIX}/unsubscribe/{token}")
    page = (
        "<!doctype html><title>Unsubscribe</title><form method=post action='" + action + "'>"
        "<input type=hidden name=List-Unsubscribe value=One-Click>"
        "<button>Stop Railpost emails to this address</button></form>"
    )
    return Response(page, mimetype="text/html")

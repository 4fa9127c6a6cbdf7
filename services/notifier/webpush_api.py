"""REST for web push devices, under /notifier beside the subscriptions: the server's key for a browser to
subscribe with, and a player's devices (add, list, revoke). Same callers as the rest of the notifier API."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from marshmallow import Schema, ValidationError, fields, validate

from services.apidoc import documented

from . import webpush
from .api_base import AUTH, ERROR_HANDLERS, TAGS, _ctx, _error, _require_player, authenticated
from .settings import API_PREFIX
from .ssrf import UnsafeUrl

bp = Blueprint("notifier_webpush", __name__, url_prefix=API_PREFIX)
for _error_type, _handler in ERROR_HANDLERS.items():  # the notifier's refusals answer alike here
    bp.register_error_handler(_error_type, _handler)


class _Keys(Schema):
    p256dh = fields.String(required=True, validate=validate.Length(min=80, max=100))
    auth = fields.String(required=True, validate=validate.Length(min=16, max=32))


class DeviceIn(Schema):
    """A browser's PushSubscription.toJSON(), as the page posts it."""

    endpoint = fields.String(required=True, validate=validate.Length(max=2000))
    expirationTime = fields.Raw(load_default=None, allow_none=True)  # noqa: N815 - the browser's own field name
    keys = fields.Nested(_Keys, required=True)


class PushKeyOut(Schema):
    public_key = fields.String(required=True)


class DeviceOut(Schema):
    id = fields.Integer(required=True)
    push_service = fields.String(allow_none=True)
    created_at = fields.DateTime(allow_none=True)
    disabled_at = fields.DateTime(allow_none=True)
    disabled_reason = fields.String(allow_none=True)


class DeviceIdOut(Schema):
    id = fields.Integer(required=True)


DEVICE_EXAMPLE = {"endpoint": "https://push.example.org/send/abc", "expirationTime": None,
                  "keys": {"p256dh": "B" + "A" * 86, "auth": "A" * 22}}


@bp.get("/webpush/key")
@documented("The server's VAPID public key to subscribe a browser with (404 when web push is off)",
            ok={200: PushKeyOut}, errors=(404,), tags=TAGS)
def key() -> Any:
    try:
        return jsonify({"public_key": webpush.public_key(_ctx().settings)})
    except webpush.PushNotConfigured as exc:
        return _error(404, "webpush_off", str(exc))


@bp.get("/webpush/devices")
@documented("My web push devices", ok={200: DeviceOut}, many=True, auth=AUTH, tags=TAGS)
@authenticated
def list_devices() -> Any:
    with _ctx().engine.connect() as conn:
        return jsonify(webpush.devices(conn, _require_player()))


@bp.post("/webpush/devices")
@documented("Add a browser's push subscription (PushSubscription.toJSON())", body=DeviceIn,
            example=DEVICE_EXAMPLE, ok={201: DeviceIdOut}, errors=(404, 409, 422), auth=AUTH, tags=TAGS)
@authenticated
def add_device() -> Any:
    ctx = _ctx()
    if not ctx.settings.webpush_private_key:
        return _error(404, "webpush_off", "web push is off on this server (no WEBPUSH_VAPID_PRIVATE_KEY)")
    try:
        data = DeviceIn().load(request.get_json(silent=True) or {})
    except ValidationError as exc:
        return _error(400, "invalid_request", "not a push subscription", details=exc.messages)
    try:
        with ctx.engine.begin() as conn:
            device = webpush.register(conn, _require_player(), data, ctx.timesource.now(), ctx.settings, ctx.resolver)
    except UnsafeUrl as exc:
        return _error(422, "unsafe_url", str(exc))
    return jsonify({"id": device}), 201


@bp.delete("/webpush/devices/<int:device_id>")
@documented("Revoke one of my devices", ok={204: "revoked"}, errors=(404, 409), auth=AUTH, tags=TAGS)
@authenticated
def revoke_device(device_id: int) -> Any:
    ctx = _ctx()
    with ctx.engine.begin() as conn:
        if not webpush.revoke(conn, _require_player(), device_id, ctx.timesource.now()):
            return _error(404, "not_found", f"you have no web push device {device_id}")
    return "", 204

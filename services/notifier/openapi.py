"""Adds the notifier's schemas and paths to the gateway's apispec document (`register(spec)`)."""

from __future__ import annotations

from typing import Any

from apispec import APISpec

from .schemas import SCHEMAS
from .settings import API_PREFIX


def _ref(name: str, many: bool = False) -> dict[str, Any]:
    schema: dict[str, Any] = {"$ref": f"#/components/schemas/{name}"}
    return {"type": "array", "items": schema} if many else schema


def _op(summary: str, out: str | None, *, body: str | None = None, many: bool = False, status: str = "200",
        auth: bool = True) -> dict[str, Any]:
    op: dict[str, Any] = {"tags": ["notifications"], "summary": summary, "responses": {}}
    if out:
        op["responses"][status] = {"description": "OK", "content": {"application/json": {"schema": _ref(out, many)}}}
    else:
        op["responses"][status] = {"description": "OK"}
    if body:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": _ref(body)}}}
    if auth:
        err = {"content": {"application/json": {"schema": _ref("NotifierError")}}}
        op["responses"].update({"401": {"description": "no or unknown token", **err},
                                "400": {"description": "invalid body", **err},
                                "422": {"description": "unsafe webhook URL", **err}})
    return op


def _param(name: str, kind: str = "string") -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": kind}}


def register(spec: APISpec) -> None:
    existing = spec.to_dict().get("components", {}).get("schemas", {})
    for name, schema in SCHEMAS.items():
        if name not in existing:
            spec.components.schema(name, schema=schema)
    p = API_PREFIX
    spec.path(path=f"{p}/subscriptions", operations={"get": _op("My subscriptions", "NotifierSubscription", many=True)})
    spec.path(path=f"{p}/subscriptions/default", operations={
        "put": _op("Set my default channel", "NotifierSubscription", body="NotifierSubscriptionIn"),
        "delete": _op("Remove my default", None, status="204"),
    })
    spec.path(path=f"{p}/subscriptions/games/{{game_id}}", parameters=[_param("game_id")], operations={
        "put": _op("Set my channel for one game", "NotifierSubscription", body="NotifierSubscriptionIn"),
        "delete": _op("Fall back to my default for this game", None, status="204"),
    })
    spec.path(path=f"{p}/endpoints/{{endpoint_id}}/rotate-secret", parameters=[_param("endpoint_id", "integer")],
              operations={"post": _op("New signing secret; old ones valid 24 h more", "NotifierEndpoint")})
    spec.path(path=f"{p}/deliveries", operations={"get": _op("Webhook delivery log", "NotifierDelivery", many=True)})
    spec.path(path=f"{p}/deliveries/{{delivery_id}}", parameters=[_param("delivery_id", "integer")],
              operations={"get": _op("One delivery with its attempts", "NotifierDelivery")})
    spec.path(path=f"{p}/deliveries/{{delivery_id}}/redeliver", parameters=[_param("delivery_id", "integer")],
              operations={"post": _op("Send again now (same webhook-id)", "NotifierDelivery", status="202")})
    spec.path(path=f"{p}/vacation", operations={
        "put": _op("Pause reminders", "NotifierVacation", body="NotifierVacationIn")})
    spec.path(path=f"{p}/unsubscribe/{{token}}", parameters=[_param("token")], operations={
        "post": _op("RFC 8058 one-click unsubscribe", None, auth=False),
        "get": _op("Unsubscribe confirmation page", None, auth=False),
    })

"""Service endpoints: OpenAPI document, its human-readable page, Prometheus metrics and health.

The docs page is Swagger UI rendering `/openapi.json`; its files come from the `swagger-ui-bundle` package and
are served by the gateway itself (no CDN: the page works offline and behind a strict firewall)."""

from __future__ import annotations

from importlib.resources import files

from flask import Blueprint, Response, current_app, send_from_directory
from flask.typing import ResponseReturnValue

from services.apidoc import documented, undocumented
from services.gateway.errors import ApiError
from services.gateway.openapi import build_spec
from services.gateway.runtime import rt
from services.gateway.schemas import HealthOut
from services.metrics import render

bp = Blueprint("meta", __name__)


@bp.get("/openapi.json")
@documented("This document", ok={200: "the OpenAPI 3 document"})
def openapi() -> ResponseReturnValue:
    return build_spec(current_app, rt().config.public_url)


@bp.get("/docs")
@undocumented
def docs() -> ResponseReturnValue:
    html = files("services.gateway").joinpath("docs.html").read_text()
    return Response(html, mimetype="text/html")


@bp.get("/docs/static/<path:name>")
@undocumented
def docs_static(name: str) -> ResponseReturnValue:
    try:  # imported here: a missing renderer package costs the docs page, not the whole gateway
        import swagger_ui_bundle
    except ImportError:
        raise ApiError(503, "docs_renderer_missing", "install the swagger-ui-bundle package (a dependency in "
                       "pyproject.toml) to render /docs; /openapi.json works without it") from None
    return send_from_directory(swagger_ui_bundle.swagger_ui_path, name, max_age=86400)


@bp.get("/metrics")
@documented("Prometheus metrics", ok={200: "text/plain"}, media="text/plain")
def metrics() -> ResponseReturnValue:
    body, content_type = render()
    return Response(body, content_type=content_type)


@bp.get("/healthz")
@documented("Liveness and database check", ok={200: HealthOut})
def health() -> ResponseReturnValue:
    rt().recorder.list_games(limit=1)
    return {"status": "ok", "queue": "embedded" if rt().config.embedded else "celery"}

"""Service endpoints: OpenAPI document, its human-readable page, Prometheus metrics and health."""

from __future__ import annotations

from importlib.resources import files

from flask import Blueprint, Response
from flask.typing import ResponseReturnValue

from services.gateway.openapi import build_spec
from services.gateway.runtime import rt
from services.metrics import render

bp = Blueprint("meta", __name__)


@bp.get("/openapi.json")
def openapi() -> ResponseReturnValue:
    return build_spec(rt().config.public_url)


@bp.get("/docs")
def docs() -> ResponseReturnValue:
    html = files("services.gateway").joinpath("docs.html").read_text()
    return Response(html, mimetype="text/html")


@bp.get("/metrics")
def metrics() -> ResponseReturnValue:
    body, content_type = render()
    return Response(body, content_type=content_type)


@bp.get("/healthz")
def health() -> ResponseReturnValue:
    rt().recorder.list_games(limit=1)
    return {"status": "ok", "queue": "embedded" if rt().config.embedded else "celery"}

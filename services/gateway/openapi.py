"""The OpenAPI 3 document of the gateway: every route it serves, as each declares itself with
`services.apidoc.documented` beside its route (the marshmallow schemas the view loads, its statuses, its
tokens), the guide (`services.gateway.guide`) as the introduction and the notifier's schema names."""

from __future__ import annotations

from typing import Any

from flask import Flask

from services.apidoc import openapi_document
from services.gateway import schemas as s
from services.gateway.guide import GUIDE
from services.notifier import openapi as notifier_openapi

CACHE = "railpost.openapi"


def build_spec(app: Flask, public_url: str) -> dict[str, Any]:
    """Built once per app and public URL (the routes do not change while it runs)."""
    cache: dict[str, dict[str, Any]] = app.extensions.setdefault(CACHE, {})
    if public_url not in cache:
        cache[public_url] = openapi_document(app, title="Railpost", description=GUIDE, server=public_url,
                                             names=notifier_openapi.NAMES, error_schema=s.ErrorOut)
    return cache[public_url]

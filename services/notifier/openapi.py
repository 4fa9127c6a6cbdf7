"""The notifier's part of the OpenAPI document: its routes declare themselves (`services.apidoc.documented`
in api.py and webpush_api.py); here are the component names of its schemas, prefixed so they never clash
with the gateway's (`NAMES`), and `document(app)` for an app that mounts the notifier alone."""

from __future__ import annotations

from typing import Any

from flask import Flask
from marshmallow import Schema

from services.apidoc import openapi_document

from .schemas import SCHEMAS, ErrorOut

NAMES: dict[type[Schema], str] = {cls: name for name, cls in SCHEMAS.items() if cls is not ErrorOut}


def document(app: Flask, server: str = "") -> dict[str, Any]:
    return openapi_document(app, title="Railpost notifier", description="Notification settings and deliveries",
                            server=server, names=NAMES, error_schema=ErrorOut)

"""The OpenAPI document is the contract: every route the gateway serves is in it (the app's url_map walked),
each body with an example its own schema accepts, every error in the one error shape, and the tokens each
route takes. A route added without `@documented` (services/apidoc.py) fails here."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from services.apidoc import doc_of, undocumented_routes
from services.config import Config
from services.gateway import create_app
from services.gateway.openapi import build_spec

NOT_IN_DOCUMENT = {"/docs", "/docs/static/{name}"}  # the document's own viewer


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    url = f"sqlite:///{tmp_path_factory.mktemp('openapi') / 'db.sqlite3'}"
    yield create_app(Config(database_url=url, admin_token="t"))


def _served(app: Flask) -> set[tuple[str, str]]:
    out = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static" or rule.endpoint.endswith(".static"):
            continue
        path = re.sub(r"<(?:\w+(?:\([^)]*\))?:)?(\w+)>", r"{\1}", rule.rule)
        out |= {(m.lower(), path) for m in (rule.methods or set()) - {"HEAD", "OPTIONS"}}
    return out


def test_every_served_route_is_in_the_document(app: Flask) -> None:
    spec = app.test_client().get("/openapi.json").get_json()
    documented = {(method, path) for path, item in spec["paths"].items() for method in item}
    served = {(m, p) for m, p in _served(app) if p not in NOT_IN_DOCUMENT}
    assert len(served) >= 50
    assert sorted(served - documented) == [], "served but missing from /openapi.json"
    assert sorted(documented - served) == [], "documented but not served"
    assert undocumented_routes(app) == []


def test_a_route_without_its_declaration_is_found(app: Flask, tmp_path: Path) -> None:
    fresh = create_app(Config(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}"))
    fresh.add_url_rule("/games/<int:game_id>/proposals", "proposals", lambda game_id: {}, methods=["POST"])
    assert undocumented_routes(fresh) == ["POST /games/{game_id}/proposals (proposals)"]
    assert "/games/{game_id}/proposals" not in build_spec(fresh, "http://x")["paths"]


def _operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method, op in item.items():
            yield method, path, op


def test_each_operation_states_bodies_errors_and_tokens(app: Flask) -> None:
    spec = build_spec(app, "http://x")
    schemes = spec["components"]["securitySchemes"]
    assert {"seatToken", "playerToken", "adminToken"} <= set(schemes)
    ids = [op["operationId"] for _, _, op in _operations(spec)]
    assert len(ids) == len(set(ids))
    error_ref = {"$ref": "#/components/schemas/ErrorOut"}
    for method, path, op in _operations(spec):
        where = f"{method.upper()} {path}"
        errors = {int(code): r for code, r in op["responses"].items() if int(code) >= 400}
        assert 503 in errors, where
        for code, response in errors.items():
            assert response["content"]["application/json"]["schema"] == error_ref, (where, code)
        if any(p["in"] == "path" and p["schema"]["type"] == "integer" for p in op.get("parameters", [])):
            assert 400 in errors, where  # an id out of range
        for alternative in op.get("security", []):
            assert set(alternative) <= set(schemes), where
        if op.get("security") and {} not in op["security"]:
            assert {401, 403} <= set(errors), where
        if "requestBody" in op:
            media = op["requestBody"]["content"]["application/json"]
            assert "example" in media or media.get("examples"), where
            assert {400, 413} <= set(errors), where
    assert op_of(spec, "post", "/games/{game_id}/actions")["security"] == [{"seatToken": []}, {"adminToken": []}]
    assert "security" not in op_of(spec, "post", "/games")


def op_of(spec: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    return spec["paths"][path][method]  # type: ignore[no-any-return]


def test_every_body_example_passes_the_schema_that_validates_the_request(app: Flask) -> None:
    """The examples are read by the very schema the view loads, so none goes stale unnoticed."""
    spec = build_spec(app, "http://x")
    checked = 0
    for rule in app.url_map.iter_rules():
        doc = doc_of(app, rule.endpoint) if rule.endpoint in app.view_functions else None
        if doc is None or doc.body is None:
            continue
        examples = [e["value"] for e in (doc.examples or {}).values()] or [doc.example]
        for example in examples:
            assert doc.body().validate(example) == {}, (rule.rule, example)
            checked += 1
    assert checked >= 20
    actions = op_of(spec, "post", "/games/{game_id}/actions")["requestBody"]["content"]["application/json"]
    assert len(actions["examples"]) >= 25

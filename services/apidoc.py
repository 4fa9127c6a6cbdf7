"""Each route documents itself where it is declared: `@documented(...)` beside `@bp.get(...)` names the
marshmallow schemas the view loads and answers with, its statuses and the tokens it takes. The OpenAPI
document (`openapi_document`) is built by walking the app's `url_map`, so it lists exactly the routes served,
from the very schema classes that validate their requests; a route without `@documented` (or `@undocumented`,
for the docs page's own files) is missing from it, and `undocumented_routes` names it (the route check of
tests/service/test_openapi_contract.py). How to add a route: docs/service.md, "Adding a route"."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask
from marshmallow import Schema

F = TypeVar("F", bound=Callable[..., Any])
MAX_ID = 2**53 - 1  # as services.gateway.schemas.MAX_ID (this module is below the gateway)

# The bearer tokens (the guide's table says which does what); a route lists the ones it accepts
SECURITY_SCHEMES: dict[str, str] = {
    "seat": "A seat token (`POST /games/{id}/join`): acts in that one game. A sign-in link's token "
            "(turn emails) opens the same seat.",
    "player": "A player token (`POST /players`): proves an identity across games.",
    "admin": "The operator's `ADMIN_TOKEN`.",
}
# statuses every route may answer, whatever it declares
ALWAYS = {503: "database or queue unreachable: retry after `Retry-After` seconds"}
STATUS_TEXT = {400: "invalid request (`details` per field)", 401: "no or unknown token",
               403: "this token may not do that", 404: "not found", 409: "conflict with the current state",
               413: "request too large", 422: "refused by the rules", 415: "not JSON"}


@dataclass(frozen=True)
class Doc:
    """What the document says of one view. `ok` maps each success status to the schema class of its JSON
    body, or to a description when the body is not JSON or not fixed (`media` then names its type)."""

    summary: str
    description: str = ""
    body: type[Schema] | None = None
    example: Mapping[str, Any] | None = None
    examples: Mapping[str, Any] | None = None  # several named examples (the action body: one per type)
    query: type[Schema] | None = None
    params: tuple[dict[str, Any], ...] = ()  # further parameters as OpenAPI writes them (headers)
    ok: Mapping[int, type[Schema] | str] = field(default_factory=lambda: {200: "ok"})
    many: bool = False  # the success body is a list of `ok`'s schema
    errors: tuple[int, ...] = ()
    auth: tuple[str, ...] = ()  # SECURITY_SCHEMES names; empty: no token needed
    auth_optional: bool = False  # a token widens what is answered (private games) but is not needed
    media: str = "application/json"
    tags: tuple[str, ...] = ()


def documented(summary: str, **kw: Any) -> Callable[[F], F]:
    """Declare a view's entry in the OpenAPI document (see `Doc`); put it under the route decorator."""
    doc = Doc(summary, **kw)
    unknown = set(doc.auth) - set(SECURITY_SCHEMES)
    if unknown:
        raise ValueError(f"unknown security scheme(s) {sorted(unknown)}: one of {sorted(SECURITY_SCHEMES)}")

    def mark(view: F) -> F:
        view.__apidoc__ = doc  # type: ignore[attr-defined]
        return view

    return mark


def undocumented(view: F) -> F:
    """A route deliberately left out of the document (the docs page and its files)."""
    view.__apidoc__ = None  # type: ignore[attr-defined]
    return view


_PARAM = re.compile(r"<(?:(?P<conv>\w+)(?:\([^)]*\))?:)?(?P<name>\w+)>")


def _path_of(rule: str) -> str:
    return _PARAM.sub(lambda m: "{" + m["name"] + "}", rule)


def _param_schemas(rule: str) -> list[dict[str, Any]]:
    out = []
    for m in _PARAM.finditer(rule):
        conv = m["conv"] or "default"
        schema: dict[str, Any] = ({"type": "integer", "minimum": 0, "maximum": MAX_ID} if conv == "int"
                                  else {"type": "string"})
        out.append({"in": "path", "name": m["name"], "required": True, "schema": schema})
    return out


def served_routes(app: Flask) -> list[tuple[str, str, str]]:
    """(method, OpenAPI path, endpoint) of every route the app serves, static files aside."""
    out = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static" or rule.endpoint.endswith(".static"):
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            out.append((method.lower(), _path_of(rule.rule), rule.endpoint))
    return out


def undocumented_routes(app: Flask) -> list[str]:
    """Served routes with no `@documented` (nor `@undocumented`): each would be missing from the document."""
    return [f"{method.upper()} {path} ({endpoint})" for method, path, endpoint in served_routes(app)
            if not hasattr(app.view_functions[endpoint], "__apidoc__")]


def doc_of(app: Flask, endpoint: str) -> Doc | None:
    return getattr(app.view_functions[endpoint], "__apidoc__", None)


class _Names:
    """Component names of schema classes: `names` given (the notifier's, prefixed), else the class name;
    a second class of a taken name gets its module's last part in front."""

    def __init__(self, names: Mapping[type[Schema], str]) -> None:
        self.given = dict(names)
        self.taken: dict[str, type[Schema]] = {}

    def __call__(self, schema: Any) -> str:
        cls = schema if isinstance(schema, type) else type(schema)
        name = self.given.get(cls) or cls.__name__.lstrip("_")
        if self.taken.setdefault(name, cls) is not cls:
            name = cls.__module__.rsplit(".", 1)[-1].title().replace("_", "") + name
            self.taken.setdefault(name, cls)
        self.given[cls] = name
        return name


def _error(status: int) -> dict[str, Any]:
    body = {"description": STATUS_TEXT.get(status) or ALWAYS.get(status) or "error",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}}
    if status == 503:
        body["headers"] = {"Retry-After": {"schema": {"type": "integer"}}}
    return body


def _operation(spec: APISpec, names: _Names, rule: str, endpoint: str, doc: Doc) -> dict[str, Any]:
    def ref(cls: type[Schema]) -> dict[str, Any]:
        name = names(cls)
        if name not in spec.components.schemas:
            spec.components.schema(name, schema=cls)
        return {"$ref": f"#/components/schemas/{name}"}

    op: dict[str, Any] = {"operationId": endpoint.replace(".", "_"), "summary": doc.summary,
                          "tags": list(doc.tags or (endpoint.split(".")[0],)), "responses": {}}
    if doc.description:
        op["description"] = doc.description
    params = _param_schemas(rule)
    if doc.query is not None:
        params.append({"in": "query", "schema": doc.query})  # apispec expands it into one parameter per field
    params += list(doc.params)
    if params:
        op["parameters"] = params
    statuses = set(doc.errors) | set(ALWAYS)
    if doc.body is not None:
        media: dict[str, Any] = {"schema": ref(doc.body)}
        if doc.examples:
            media["examples"] = dict(doc.examples)
        elif doc.example is not None:
            media["example"] = dict(doc.example)
        op["requestBody"] = {"required": True, "content": {"application/json": media}}
        statuses |= {400, 413}
    if doc.query is not None or any(p["in"] == "path" and p["schema"]["type"] == "integer" for p in params):
        statuses.add(400)
    if doc.auth and not doc.auth_optional:
        statuses |= {401, 403}
    if doc.auth:
        op["security"] = ([{}] if doc.auth_optional else []) + [{f"{a}Token": []} for a in doc.auth]
    for status, out in doc.ok.items():
        if isinstance(out, str):
            entry: dict[str, Any] = {"description": out}
            if doc.media != "application/json" or status != 204:
                entry["content"] = {doc.media: {"schema": {"type": "string"} if doc.media != "application/json"
                                                else {"type": "object"}}}
            if status == 204:
                entry.pop("content", None)
        else:
            schema = ref(out)
            entry = {"description": out.__doc__.split("\n")[0] if out.__doc__ else "ok",
                     "content": {"application/json": {"schema": {"type": "array", "items": schema}
                                                      if doc.many else schema}}}
        op["responses"][str(status)] = entry
    for status in sorted(statuses):
        op["responses"][str(status)] = _error(status)
    return op


def openapi_document(app: Flask, *, title: str, description: str, server: str,
                     names: Mapping[type[Schema], str] | None = None,
                     error_schema: type[Schema] | None = None) -> dict[str, Any]:
    """The OpenAPI 3 document of every documented route `app` serves."""
    resolver = _Names(names or {})
    spec = APISpec(title=title, version="1", openapi_version="3.0.3", info={"description": description},
                   servers=[{"url": server}], plugins=[MarshmallowPlugin(schema_name_resolver=resolver)])
    for name, text in SECURITY_SCHEMES.items():
        spec.components.security_scheme(f"{name}Token", {"type": "http", "scheme": "bearer", "description": text})
    if error_schema is not None:
        resolver.given[error_schema] = "ErrorOut"
        spec.components.schema("ErrorOut", schema=error_schema)
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if rule.endpoint == "static" or rule.endpoint.endswith(".static"):
            continue
        doc = doc_of(app, rule.endpoint)
        if doc is None:
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            paths.setdefault(_path_of(rule.rule), {})[method.lower()] = _operation(spec, resolver, rule.rule,
                                                                                   rule.endpoint, doc)
    for path, operations in paths.items():
        spec.path(path=path, operations=operations)
    return spec.to_dict()

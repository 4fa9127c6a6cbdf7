"""The OpenAPI 3 document, generated with apispec from the marshmallow schemas the views use."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin

from services.gateway import schemas as s
from services.gateway.guide import GUIDE, action_examples
from services.notifier import openapi as notifier_openapi

BEARER = [{"bearer": []}]


def _err(*codes: int) -> dict[str, Any]:
    return {str(c): {"description": "error", "content": {"application/json": {"schema": "ErrorOut"}}}
            for c in codes}


def _ok(code: int, schema: str, description: str = "ok") -> dict[str, Any]:
    return {str(code): {"description": description, "content": {"application/json": {"schema": schema}}}}


def _body(schema: str, examples: dict[str, Any] | None = None) -> dict[str, Any]:
    media: dict[str, Any] = {"schema": schema}
    if examples:
        media["examples"] = examples
    return {"required": True, "content": {"application/json": media}}


GAME_ID = {"in": "path", "name": "game_id", "required": True,
           "schema": {"type": "integer", "minimum": 1, "maximum": s.MAX_ID}}
UNAVAILABLE = {"503": {"description": "database or queue unreachable: retry after `Retry-After` seconds",
                       "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                       "content": {"application/json": {"schema": "ErrorOut"}}}}
WAIT = {"in": "query", "name": "wait", "schema": {"type": "number"},
        "description": "long-poll up to this many seconds (capped by MAX_WAIT_SECONDS) for the outcome"}

PATHS: list[tuple[str, dict[str, Any]]] = [
    ("/players", {"post": {"summary": "Create a player identity (an explicit id needs the admin token)",
                           "requestBody": _body("PlayerIn"), "responses": {**_ok(201, "PlayerOut"),
                                                                           **_err(400, 403, 409)}}}),
    ("/games", {
        "post": {"summary": "Create a game", "requestBody": _body("GameCreateIn"),
                 "responses": {**_ok(201, "GameOut"), **_err(400, 413, 422)}},
        "get": {"summary": "List games", "parameters": [{"in": "query", "schema": "GameListQuery"}],
                "responses": {**_ok(200, "GameListOut"), **_err(400)}},
    }),
    ("/games/import", {"post": {
        "summary": "Import an 18xx.games record as a new game (replayed and validated)",
        "description": "422 names the first refused action. Needs a player or admin token; the record's player "
                       "ids bind to existing identities only for the caller's own id (or with the admin token), "
                       "every other player gets a fresh identity (answered in `players`). Send an "
                       "`Idempotency-Key`: a retry answers the first import (200) instead of a new game.",
        "security": BEARER,
        "parameters": [{"in": "query", "schema": "ImportQuery"},
                       {"in": "header", "name": "Idempotency-Key", "schema": {"type": "string", "maxLength": 200}}],
        "requestBody": _body("RecordIn"),
        "responses": {**_ok(201, "ImportOut"), **_ok(200, "ImportOut", "the earlier import with this key"),
                      **_err(400, 401, 403, 413, 422)}}}),
    ("/games/{game_id}", {"get": {"summary": "Game summary and seats", "parameters": [GAME_ID],
                                  "responses": {**_ok(200, "GameOut"), **_err(403, 404)}}}),
    ("/games/{game_id}/join", {"post": {
        "summary": "Take a seat; answers the secret seat token once",
        "description": "To join as an existing identity send `player_id` and that player's token as bearer. "
                       "A private game needs its `invitation` token (answered at its creation).",
        "parameters": [GAME_ID], "requestBody": _body("JoinIn"),
        "responses": {**_ok(201, "JoinOut"), **_err(400, 403, 404, 409)}}}),
    ("/games/{game_id}/start", {"post": {"summary": "Start a full game (seat token or admin)",
                                         "parameters": [GAME_ID], "security": BEARER,
                                         "responses": {**_ok(200, "GameOut"), **_err(401, 403, 404, 409)}}}),
    ("/games/{game_id}/state", {"get": {"summary": "Round, phase, who acts, players, corporations, market, tiles",
                                        "parameters": [GAME_ID],
                                        "responses": {**_ok(200, "StateOut"), **_err(403, 404)}}}),
    ("/games/{game_id}/legal-actions", {"get": {
        "summary": "Legal actions for the caller's entities", "security": BEARER,
        "parameters": [GAME_ID, {"in": "query", "schema": "LegalQuery"}],
        "responses": {**_ok(200, "LegalOut"), **_err(401, 403, 404)}}}),
    ("/games/{game_id}/events", {"get": {
        "summary": "Event log, paged by version", "parameters": [GAME_ID, {"in": "query", "schema": "EventsQuery"}],
        "responses": {**_ok(200, "EventsOut"), **_err(400, 403, 404)}}}),
    ("/games/{game_id}/export", {"get": {"summary": "Export as an 18xx.games record", "parameters": [GAME_ID],
                                         "responses": {"200": {"description": "record"}, **_err(403, 404, 409)}}}),
    ("/games/{game_id}/actions", {"post": {
        "summary": "Submit an action",
        "description": "Needs `Idempotency-Key`. 202 queued (receipt URL in Location); with `wait` the outcome: "
                       "200 applied, 409 stale version, 403 not your entity, 400/422 refused by the engine. "
                       "Same key + different body: 422. Oversize body: 413.",
        "security": BEARER,
        "parameters": [GAME_ID, WAIT, {"in": "header", "name": "Idempotency-Key", "required": True,
                                       "schema": {"type": "string"}}],
        "requestBody": _body("ActionIn", action_examples()),
        "responses": {**_ok(202, "ReceiptOut", "queued"), **_ok(200, "ReceiptOut", "applied"),
                      **_err(400, 401, 403, 404, 409, 413, 422)}}}),
    ("/games/{game_id}/receipts/{key}", {"get": {
        "summary": "A command's receipt: queued, applied (new version) or refused (reason)", "security": BEARER,
        "parameters": [GAME_ID, WAIT, {"in": "path", "name": "key", "required": True, "schema": {"type": "string"}}],
        "responses": {**_ok(200, "ReceiptOut"), **_err(401, 403, 404)}}}),
    ("/games/{game_id}/map", {"get": {
        "summary": "What a client needs to draw the board: layout, hexes with centres, terrain and costs, tiles "
                   "with rotation and track, cities with slots and tokens, towns, revenues, labels, borders",
        "parameters": [GAME_ID], "responses": {"200": {"description": "the map view"}, **_err(403, 404, 409)}}}),
    ("/games/{game_id}/page", {"get": {
        "summary": "The game's page (HTML; also GET /games/{game_id} with Accept: text/html). A seat link is "
                   "/games/{game_id}/page#seat=<seat token>: the fragment never reaches the server",
        "parameters": [GAME_ID], "responses": {"200": {"description": "text/html"}, **_err(403, 404)}}}),
    ("/games/{game_id}/page/version", {"get": {
        "summary": "Long-poll for the page: answers when the version differs from `after` or the status from "
                   "`status`, or after `wait` seconds",
        "parameters": [GAME_ID, {"in": "query", "name": "after", "schema": {"type": "integer"}},
                       {"in": "query", "name": "status", "schema": {"type": "string"}},
                       {"in": "query", "name": "wait", "schema": {"type": "number"}}],
        "responses": {"200": {"description": "game_id, version, status"}, **_err(400, 403, 404)}}}),
    ("/games/{game_id}/page/preview", {"get": {
        "summary": "One hex drawn with a tile at a rotation (SVG) for the page's lay form; draws only",
        "parameters": [GAME_ID, {"in": "query", "name": "hex", "schema": {"type": "string"}},
                       {"in": "query", "name": "tile", "schema": {"type": "string"}},
                       {"in": "query", "name": "rotation", "schema": {"type": "integer"}}],
        "responses": {"200": {"description": "image/svg+xml"}, **_err(400, 403, 404, 409)}}}),
    ("/games/{game_id}/page/me", {"get": {
        "summary": "Who the bearer seat token is in this game (player id, name, seat) and its own standing "
                   "orders (`programs`: each `order` as set and its `words`; never another seat's)",
        "security": BEARER,
        "parameters": [GAME_ID], "responses": {"200": {"description": "the seat"}, **_err(401, 403, 404)}}}),
    ("/", {"get": {"summary": "Front door: open games for a browser (HTML), where the API starts for a client",
                   "responses": {"200": {"description": "HTML or JSON links"}}}}),
    ("/titles", {"get": {"summary": "Every title: options with descriptions, player range, exclusive options",
                         "responses": {"200": {"description": "the catalogue"}}}}),
    ("/metrics", {"get": {"summary": "Prometheus metrics", "responses": {"200": {"description": "text"}}}}),
    ("/healthz", {"get": {"summary": "Liveness and database check", "responses": {"200": {"description": "ok"}}}}),
]

SCHEMAS = [s.SeatOut, s.EventOut, s.ErrorOut, s.PlayerIn, s.PlayerOut, s.GameCreateIn, s.GameOut, s.GameListQuery, s.GameListOut,
           s.JoinIn, s.JoinOut, s.StateOut, s.LegalQuery, s.LegalOut, s.EventsQuery, s.EventsOut, s.RecordIn,
           s.ImportQuery, s.ImportOut, s.ActionIn, s.ReceiptOut]


@lru_cache(maxsize=4)
def build_spec(public_url: str) -> dict[str, Any]:
    spec = APISpec(title="Railpost", version="1", openapi_version="3.0.3", plugins=[MarshmallowPlugin()],
                   info={"description": GUIDE},
                   servers=[{"url": public_url}])
    spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    for schema in SCHEMAS:
        spec.components.schema(schema.__name__, schema=schema)
    for path, operations in PATHS:
        for operation in operations.values():
            operation["responses"] = {**operation["responses"], **UNAVAILABLE}
        spec.path(path=path, operations=operations)
    notifier_openapi.register(spec)
    return spec.to_dict()

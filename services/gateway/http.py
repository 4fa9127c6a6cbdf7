"""Request parsing shared by the blueprints: JSON bodies, query strings and games, each failing as JSON."""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any

from flask import request
from marshmallow import Schema

from services.gateway.errors import ApiError
from services.gateway.runtime import rt
from services.gateway.schemas import MAX_ID
from shared.eventstore.records import Game

MAX_DEPTH = 64  # deeper JSON is refused before anything recursive (marshmallow, the engine, dumps) sees it


@cache
def _instance(schema: type[Schema]) -> Schema:
    """One instance per schema class: building a marshmallow schema costs more than using it."""
    return schema()


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]} is out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(raw: bytes) -> Any:
    """Strict JSON: no NaN/Infinity, no number that overflows a double (1e400 would become inf), no nesting
    deeper than MAX_DEPTH. Each of these otherwise surfaced as a 500 further in."""
    try:
        body = json.loads(raw, parse_float=_finite, parse_constant=_no_constant)
    except RecursionError:
        raise ApiError(400, "malformed_json", f"the JSON is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError, out-of-range numbers, >4300-digit ints
        raise ApiError(400, "malformed_json", f"the request body is not valid JSON: {err}") from None
    if _depth(body) > MAX_DEPTH:
        raise ApiError(400, "malformed_json", f"the JSON is nested deeper than {MAX_DEPTH} levels")
    return body


def _depth(value: Any) -> int:
    """Nesting depth without recursion (the value may be thousands of levels deep)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return deepest
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def json_body() -> Any:
    raw = request.get_data(cache=True)
    if not raw:
        raise ApiError(400, "malformed_json", "the request body is empty; send a JSON object")
    return parse_json(raw)


def load(schema: type[Schema], data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ApiError(400, "malformed_json", "the request body must be a JSON object")
    return _instance(schema).load(data)


def query(schema: type[Schema]) -> dict[str, Any]:
    return _instance(schema).load(request.args.to_dict())


def check_id(name: str, value: int) -> int:
    """Path ids are any digits to the router; beyond MAX_ID no row can exist and the database cannot compare."""
    if not 1 <= value <= MAX_ID:
        raise ApiError(400, "invalid_request", f"{name} must be between 1 and {MAX_ID}",
                       details={name: [f"must be between 1 and {MAX_ID}"]})
    return value


def guard_path_ids() -> None:
    """Before every view, the gateway's and the notifier's alike: an integer in the path beyond what a
    64-bit column holds names no row, and the database driver would fail on it rather than find nothing."""
    for name, value in (request.view_args or {}).items():
        if isinstance(value, int) and not 0 <= value <= MAX_ID:
            raise ApiError(400, "invalid_request", f"{name} must be between 1 and {MAX_ID}",
                           details={name: [f"must be between 1 and {MAX_ID}"]})


def game_or_404(game_id: int) -> Game:
    check_id("game_id", game_id)
    game = rt().recorder.get_game(game_id)
    if game is None:
        raise ApiError(404, "game_not_found", f"game {game_id} does not exist")
    return game


def game_url(game_id: int) -> str:
    return f"{rt().config.public_url}/games/{game_id}"

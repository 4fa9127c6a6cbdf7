"""Request parsing shared by the blueprints: JSON bodies, query strings and games, each failing as JSON."""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any

import orjson
from flask import request
from flask.json.provider import DefaultJSONProvider
from marshmallow import Schema

from services.gateway.errors import ApiError
from services.gateway.runtime import rt
from services.gateway.schemas import MAX_ID
from shared.eventstore.records import Game

MAX_DEPTH = 64  # deeper JSON is refused before anything recursive (marshmallow, the engine, dumps) sees it
MAX_INT = 2**63 - 1  # past 64 bits an integer would not come back from the store as written (shared/jsontext.py)


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
    deeper than MAX_DEPTH, no integer past 64 bits. Each of these otherwise surfaced as a 500 further in, or
    (the integer) came back from the store as a float."""
    try:
        body = json.loads(raw, parse_float=_finite, parse_constant=_no_constant)
    except RecursionError:
        raise ApiError(400, "malformed_json", f"the JSON is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError, out-of-range numbers, >4300-digit ints
        raise ApiError(400, "malformed_json", f"the request body is not valid JSON: {err}") from None
    _check_shape(body)
    return body


def _check_shape(value: Any) -> None:
    """Nesting depth, integer range and valid Unicode, without recursion (the value may be thousands of
    levels deep): what the store could not write and read back as it came (shared/jsontext.py). Each entry
    keeps its key and its parent's entry, so the path an answer names is spelled only when one is refused."""
    stack: list[tuple[Any, int, Any, Any]] = [(value, 1, None, None)]
    while stack:
        entry = stack.pop()
        item, depth = entry[0], entry[1]
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise ApiError(400, "malformed_json", f"the JSON is nested deeper than {MAX_DEPTH} levels")
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                if isinstance(key, str) and not _unicode(key):
                    raise ApiError(400, "malformed_json", f"a key in {_where(entry)} is not valid Unicode "
                                   "(a lone surrogate such as \\ud800)")
                stack.append((child, depth + 1, key, entry))
        elif isinstance(item, int) and not -MAX_INT <= item <= MAX_INT:
            raise ApiError(400, "number_out_of_range",
                           f"{_where(entry)} is out of range: an integer may have at most 64 bits")
        elif isinstance(item, str) and not _unicode(item):
            raise ApiError(400, "malformed_json",
                           f"{_where(entry)} is not valid Unicode (a lone surrogate such as \\ud800)")


def _where(entry: tuple[Any, int, Any, Any]) -> str:
    keys: list[str] = []
    while entry[3] is not None:
        keys.append(str(entry[2]))
        entry = entry[3]
    return ".".join(reversed(keys)) or "the body"


def _unicode(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def json_body() -> Any:
    raw = request.get_data(cache=True)
    if not raw:
        raise ApiError(400, "malformed_json", "the request body is empty; send a JSON object")
    return parse_json(raw)


def load(schema: type[Schema], data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ApiError(400, "malformed_json", "the request body must be a JSON object")
    return _instance(schema).load(data)


QUERY_CACHE = 256  # distinct (schema, query string) pairs remembered per process
_queries: dict[tuple[type[Schema], bytes], dict[str, Any]] = {}


def query(schema: type[Schema]) -> dict[str, Any]:
    """The query string, validated. Most recur verbatim (every move's `?wait=10`), and a valid one always
    loads the same: its loaded form is remembered by the raw string (bounded; a refusal is not), so
    marshmallow reads each distinct query once per process: it was a thirtieth of the gateway's CPU per move."""
    key = (schema, request.query_string)
    loaded = _queries.get(key)
    if loaded is None:
        loaded = _instance(schema).load(request.args.to_dict())
        if len(_queries) >= QUERY_CACHE:
            _queries.clear()  # crude but thread-safe bound
        _queries[key] = loaded
    return dict(loaded)


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


class JsonProvider(DefaultJSONProvider):
    """Flask's responses written by orjson (shared/jsontext.py says why), with Flask's sorted keys; dates,
    dataclasses and anything else orjson would spell its own way go to Flask's own `default`, and an indented
    (debug) response or an integer past 64 bits to Flask's own writer."""

    _OPTIONS = (orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
                | orjson.OPT_PASSTHROUGH_DATACLASS)

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs.get("indent"):
            try:
                return orjson.dumps(obj, default=self.default, option=self._OPTIONS).decode()
            except TypeError:
                pass
        return super().dumps(obj, **kwargs)

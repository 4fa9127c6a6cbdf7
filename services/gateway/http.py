"""Request parsing shared by the blueprints: JSON bodies, query strings and games, each failing as JSON."""

from __future__ import annotations

from functools import cache
from typing import Any

from flask import request
from marshmallow import Schema

from services.gateway.errors import ApiError
from services.gateway.runtime import rt
from shared.eventstore.records import Game


@cache
def _instance(schema: type[Schema]) -> Schema:
    """One instance per schema class: building a marshmallow schema costs more than using it."""
    return schema()


def json_body() -> Any:
    if not request.data:
        raise ApiError(400, "malformed_json", "the request body is empty; send a JSON object")
    body = request.get_json(silent=True, force=True)
    if body is None:
        raise ApiError(400, "malformed_json", "the request body is not valid JSON")
    return body


def load(schema: type[Schema], data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ApiError(400, "malformed_json", "the request body must be a JSON object")
    return _instance(schema).load(data)


def query(schema: type[Schema]) -> dict[str, Any]:
    return _instance(schema).load(request.args.to_dict())


def game_or_404(game_id: int) -> Game:
    game = rt().recorder.get_game(game_id)
    if game is None:
        raise ApiError(404, "game_not_found", f"game {game_id} does not exist")
    return game


def game_url(game_id: int) -> str:
    return f"{rt().config.public_url}/games/{game_id}"

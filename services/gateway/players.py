"""Player identities that span games."""

from __future__ import annotations

from flask import Blueprint
from flask.typing import ResponseReturnValue

from services.apidoc import documented
from services.gateway.auth import require_admin
from services.gateway.http import json_body, load
from services.gateway.runtime import rt
from services.gateway.schemas import PlayerIn, PlayerOut
from services.tokens import hash_token, new_token

bp = Blueprint("players", __name__)


@bp.post("/players")
@documented("Create a player identity (an explicit id needs the admin token)", body=PlayerIn,
            example={"name": "Ann"}, ok={201: PlayerOut}, errors=(403, 409), auth=("admin",), auth_optional=True)
def create_player() -> ResponseReturnValue:
    data = load(PlayerIn, json_body())
    if "id" in data:
        require_admin()  # choosing an id (e.g. to match an imported record) is for operators
    token = new_token()
    player = rt().recorder.create_player(data["name"], hash_token(token), data.get("id"))
    return PlayerOut().dump({"id": player.id, "name": player.name, "token": token}), 201

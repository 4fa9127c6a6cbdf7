"""A player's home: every game he sits in, the ones waiting for him first, each with what it waits for.

`GET /players/me/games` answers for the player token (identities span games; seat tokens and sign-in links
open one game only), and `/me` is the page a person opens with that token in the fragment (`/me#player=...`).
Read from the stored games and seats only: no engine session is loaded to list a hundred games.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, render_template
from flask.typing import ResponseReturnValue

from services.apidoc import documented
from services.gateway.auth import principal
from services.gateway.errors import ApiError
from services.gateway.runtime import rt
from services.gateway.schemas import MyGamesOut
from services.gateway.table_api import stand_in_now
from services.play.legal import with_stand_in
from shared.eventstore.records import Game

bp = Blueprint("home", __name__)
MAX_GAMES = 200
ORDER = {"yours": 0, "active": 1, "open": 2, "finished": 3}


def _entry(game: Game, player_id: int) -> dict[str, Any]:
    state = game.state or {}
    seats = rt().recorder.seats(game.id)
    names = {s.player_id: s.name for s in seats}
    acting = [int(p) for p in state.get("acting_players") or [] if str(p).lstrip("-").isdigit()]
    if game.status == "active" and acting:  # and the stand-in the table chose for an absent seat
        acting = with_stand_in(acting, stand_in_now(game.id))
    yours = game.status == "active" and player_id in acting
    if game.status == "active":
        waiting = "you" if yours else ", ".join(names.get(p, f"player {p}") for p in acting) or "the rules engine"
    elif game.status == "open":
        waiting = f"players: {len(seats)} of {game.seat_count} seats taken"
    else:
        waiting = "nobody: the game is over"
    return {"game_id": game.id, "title": game.title, "status": game.status, "your_turn": yours,
            "waiting_for": waiting, "round": state.get("round"), "turn": state.get("turn"),
            "version": game.version, "seat": next((s.seat_index for s in seats if s.player_id == player_id), None),
            "page": f"{rt().config.public_url}/games/{game.id}/page"}


@bp.get("/players/me/games")
@documented("The player's games, those waiting for him first", ok={200: MyGamesOut}, auth=("player",))
def my_games() -> ResponseReturnValue:
    who = principal()
    if who is None:
        raise ApiError(401, "unauthorized", "your games are listed for your player token (POST /players)")
    if who.player is None:
        raise ApiError(403, "player_token_required", "a seat token or sign-in link opens one game; your games "
                       "are listed for your player token")
    games = rt().recorder.list_games(player_id=who.player.id, limit=MAX_GAMES)
    entries = [_entry(g, who.player.id) for g in games]
    entries.sort(key=lambda e: (ORDER["yours"] if e["your_turn"] else ORDER.get(e["status"], 9), -e["game_id"]))
    return {"player_id": who.player.id, "name": who.player.name, "games": entries}


@bp.get("/me")
@documented("A player's home page (HTML; the player token goes in the fragment: /me#player=...)",
            ok={200: "the page"}, media="text/html")
def home_page() -> ResponseReturnValue:
    """The shell of the home page; its script reads the player token from the fragment (or this device) and
    asks `/players/me/games`, so the token never travels in a URL a server sees."""
    html = render_template("home.html")
    return Response(html, mimetype="text/html", headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

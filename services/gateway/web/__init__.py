"""The game page: a person's view of a game (map, market, players, corporations, log) and, for a seated
player, the forms to play from. Server-rendered HTML with inline SVG, so it reads with JavaScript off; the
page's script (static/page.js, no build step, no CDN) adds the seat's legal actions, posts them to the same
REST API every client uses (same checks), and reloads when the game's version changes (long-poll).

Seat tokens never travel in a URL the server sees: a seat link is `/games/{id}/page#seat=<token>`; the
fragment stays in the browser, the script moves it to local storage and sends it as a bearer token.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from flask import Blueprint, Response, render_template, request
from flask.typing import ResponseReturnValue

from services.apidoc import documented
from services.gateway.auth import require_read, require_seat
from services.gateway.errors import ApiError
from services.gateway.http import game_or_404, game_url, query
from services.gateway.runtime import rt
from services.gateway.schemas import HomeOut, PageMeOut, PageVersionOut, PageVersionQuery, PreviewQuery
from services.gateway.table_api import stand_in_now
from services.gateway.web.summary import order_words, overview
from services.gateway.web.svg import FILLS, describe_hex, render_hex, render_map, render_tray
from services.play.legal import standing_in, with_stand_in
from services.words.describe import describe, stood_in
from shared.engine import EngineError, GameSession
from shared.engine.errors import DataError
from shared.engine.game import definition
from shared.engine.provisional import provisional_notice
from shared.engine.titles.base import TitleRules
from shared.engine.view import map_view, market_view
from shared.engine.view.board import preview_hex, tile_tray
from shared.engine.view.market import market_grid, with_markers
from shared.eventstore.records import Game

bp = Blueprint("page", __name__, template_folder="templates", static_folder="static",
               static_url_path="/page-static")

LOG_LINES = 40
CHAT_LINES = 50
# the page loads nothing but its own script and stylesheet; colours come in style attributes
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
HTML_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "Content-Security-Policy": CSP,
                "X-Content-Type-Options": "nosniff"}
POLL_INTERVAL = 1.0
MAX_POLL_SECONDS = 25.0


def wants_html() -> bool:
    """True when the client prefers HTML to JSON (a browser), false for API clients (`*/*` or JSON)."""
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "text/html" and request.accept_mimetypes["text/html"] > request.accept_mimetypes["application/json"]


def _log(game: Game, namer: Any, rules: TitleRules | None, upto: int | None = None,
         notes: dict[int, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The last moves in words; `notes`: what the engine kept of each move's moment (who sold a train, who
    went bankrupt, why the game ended: shared/engine/history.py), by action id."""
    last = game.version if upto is None else upto
    notes = notes or {}
    events = rt().recorder.read_events(game.id, after_version=max(0, last - LOG_LINES), limit=min(last, LOG_LINES))
    lines = []
    for event in reversed(events):
        action = (event.data or {}).get("action") or {}
        if _private(action):
            continue
        text = stood_in(describe(action, namer, rules, notes.get(action.get("id"))), action,
                        (event.data or {}).get("for_player"), namer)
        autos = [describe(a, namer, rules) for a in action.get("auto_actions") or [] if not _private(a)]
        lines.append({"version": event.version, "text": text, "autos": autos})
    return lines


def _private(action: dict[str, Any]) -> bool:
    """A standing order is its player's own business: setting, clearing or ending one is not shown to the
    table (as 18xx.games logs it for that player only); the moves it makes are, like any move. Its owner
    reads his order on his page (`/page/me`)."""
    return str(action.get("type", "")).startswith("program_")


def _notice(game: Game) -> str | None:
    """The title's warning when this game plays with provisional values (1833NE), or None."""
    try:
        return provisional_notice(game.title, game.options or ())
    except (EngineError, DataError):  # unreadable title data must not take the page down; the engine refuses moves
        return None


def _chat(session: GameSession) -> list[dict[str, Any]]:
    """The table talk so far (the game's `message` actions), newest last, as many as the page shows."""
    said = [a for a in session.actions if a.get("type") == "message"][-CHAT_LINES:]
    names = {p.id: p.name for p in session.game.players}
    return [{"name": names.get(a.get("user", a.get("entity")), "a player"), "text": str(a.get("message", ""))}
            for a in said]


def _history_version(game: Game) -> int | None:
    """`?at=N`: the page as it was after the game's N-th stored action (read-only), or None for now."""
    raw = request.args.get("at")
    if raw is None or raw == "":
        return None
    try:
        at = int(raw)
    except ValueError:
        raise ApiError(400, "bad_query", f"at must be a version between 0 and {game.version}, not {raw!r}") from None
    if not 0 <= at <= game.version:
        raise ApiError(400, "bad_query", f"at must be a version between 0 and {game.version}, not {at}")
    return None if at == game.version else at


def _as_of(session: GameSession, at: int | None) -> GameSession:
    """The game after its first `at` stored actions, replayed from the session's own record (undos later
    than `at` do not reach back: what is shown is what the table saw then)."""
    return session if at is None else GameSession.from_record(session.to_record(), limit=at)


@contextmanager
def _held_by(game: Any, seats: list[Any]) -> Iterator[None]:
    """The live page names each seat by who holds it now (a newcomer who took a seat over is "its name at the
    table", docs/time-controls.md "Hand-over"); the engine keeps the first holder's name, which the log
    of earlier moves and the history still use. Restored before the session's lock is let go."""
    now = {int(s.player_id): s.name for s in seats if s.name and str(s.player_id).lstrip("-").isdigit()}
    saved = {p.id: p.name for p in game.players}
    try:
        for p in game.players:
            p.name = now.get(p.id, p.name)
        yield
    finally:
        for p in game.players:
            p.name = saved[p.id]


def _stand_in(data: dict[str, Any], game_id: int, session: GameSession) -> None:
    """The page's turn for a stand-in (docs/time-controls.md, "Hand-over"): he is among the acting players
    while the absent seat he moves for must act, and `stand_in` says for whom."""
    chosen = stand_in_now(game_id)
    if chosen is None or standing_in(session, chosen, chosen[1]) is None:
        return
    data["acting_players"] = with_stand_in(data.get("acting_players") or [], chosen)
    data["stand_in"] = {"absent": chosen[0], "by": chosen[1]}


def render_page(game: Game) -> Response:
    if game.visibility != "open" and not request.headers.get("Authorization"):
        # A private game's page is fetched again by the script with the seat token from the fragment; a
        # browser never sends that token on navigation, so first it gets this shell (no game data).
        html = render_template("private_shell.html", game=game)
        return Response(html, status=401, mimetype="text/html", headers=HTML_HEADERS)
    require_read(game)
    seats = rt().recorder.seats(game.id)
    context: dict[str, Any] = {"game": game, "seats": seats, "url": game_url(game.id), "fills": FILLS,
                               "notice": _notice(game), "history": None, "shown_version": game.version}
    if game.status != "open":
        at = _history_version(game)
        with rt().sessions.use(game) as live:  # held briefly: only reads of the engine state
            session = _as_of(live, at)
            names = {p.id: p.name for p in session.game.players}  # as the record has them: the log's
            view = map_view(session.game)
            with _held_by(session.game, seats if at is None else []):
                summary = overview(session)
            summary["page_data"]["first_names"] = {str(k): v for k, v in names.items()}
            # seat number -> player id: a claim link names the seat by its number (GET /games/{id})
            summary["page_data"]["seat_players"] = {str(s.seat_index): s.player_id for s in seats}
            if at is None and game.status == "active":
                _stand_in(summary["page_data"], game.id, session)
                stand_in = summary["page_data"].get("stand_in")
                if stand_in is not None:  # the header names who moves now, as the state does
                    summary["acting"] = [f"{names.get(stand_in['by'], stand_in['by'])} for "
                                         f"{names.get(stand_in['absent'], stand_in['absent'])}"]
            market = market_view(session.game)
            rules = session.game.rules
            notes = dict(getattr(session.game, "history_notes", {}))
            chat = _chat(session)
            tray = render_tray(tile_tray(session.game), view)
        context.update(history=at, shown_version=game.version if at is None else at, chat=chat, tray=tray)
        context.update(overview=summary, map_view=view, map_svg=render_map(view, game.title), market=market,
                       hex_texts=[(h["id"], describe_hex(h)) for h in view["hexes"]
                                  if h.get("tile") or h.get("location") or any(
                                      t for n in h["nodes"] for t in n.get("tokens") or [])],
                       names={str(k): v for k, v in names.items()},
                       log=_log(game, lambda e: names.get(e, str(e)) if isinstance(e, int) else str(e), rules, at, notes))
    html = render_template("game_page.html", **context)
    return Response(html, mimetype="text/html", headers=HTML_HEADERS)


@bp.get("/")
@documented("Front door: open games for a browser (HTML, with Accept: text/html), where the API starts for a "
            "client", ok={200: HomeOut}, tags=("meta",))
def index() -> ResponseReturnValue:
    """The front door: for a browser, the open games with links to their pages; for an API client, where
    the API starts."""
    if not wants_html():
        return {"games": f"{rt().config.public_url}/games", "docs": f"{rt().config.public_url}/docs",
                "openapi": f"{rt().config.public_url}/openapi.json"}
    games = [g for g in rt().recorder.list_games(limit=100) if g.visibility == "open"]
    return Response(render_template("index.html", games=games), mimetype="text/html", headers=HTML_HEADERS)


@bp.get("/push-worker.js")
@documented("The web push service worker (JavaScript)", ok={200: "text/javascript"}, media="text/javascript",
            tags=("meta",))
def push_worker() -> ResponseReturnValue:
    """The service worker of web push, at the site's root so its scope covers every game page."""
    response = bp.send_static_file("push-worker.js")
    response.headers["Content-Type"] = "text/javascript"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/games/<int:game_id>/page")
@documented("The game's page (HTML; also GET /games/{game_id} with Accept: text/html). A seat link is "
            "/games/{game_id}/page#seat=<seat token>: the fragment never reaches the server",
            params=({"in": "query", "name": "at", "schema": {"type": "integer", "minimum": 0},
                     "description": "the game as it was at this version"},),
            ok={200: "the page"}, media="text/html", errors=(403, 404), auth=("seat", "admin"), auth_optional=True)
def page(game_id: int) -> ResponseReturnValue:
    return render_page(game_or_404(game_id))


@bp.get("/games/<int:game_id>/map")
@documented("What a client needs to draw the board: layout, hexes with centres, terrain and costs, tiles "
            "with rotation and track, cities with slots and tokens, towns, revenues, labels, borders",
            ok={200: "the map view"}, errors=(403, 404, 409), auth=("seat", "admin"), auth_optional=True)
def game_map(game_id: int) -> ResponseReturnValue:
    """What a client needs to draw the board: layout, hexes with centres, terrain, tiles with rotation and
    turned track, stops with revenues, city slots with tokens, labels, borders (see shared/engine/view)."""
    game = game_or_404(game_id)
    require_read(game)
    if game.status == "open":
        raise ApiError(409, "not_started", f"game {game_id} has not started; there is no map yet")
    with rt().sessions.use(game) as session:
        view = map_view(session.game)
    return {"game_id": game.id, "version": game.version, **view}


@bp.get("/games/<int:game_id>/page/version")
@documented("Long-poll for the page: answers when the version differs from `after` or the status from "
            "`status`, or after `wait` seconds", query=PageVersionQuery, ok={200: PageVersionOut},
            errors=(403, 404), auth=("seat", "admin"), auth_optional=True)
def version(game_id: int) -> ResponseReturnValue:
    """Long-poll for the page: answers as soon as the game's version differs from `after` or its status from
    `status` (a game waiting for players starts), or after `wait` seconds with both unchanged."""
    game = game_or_404(game_id)
    require_read(game)
    args = query(PageVersionQuery)
    after, wait = args.get("after", game.version), min(args["wait"], MAX_POLL_SECONDS)
    known = args.get("status") or game.status  # a game waiting for players answers when it starts
    deadline = time.monotonic() + wait
    while (game.version == after and game.status == known and game.status != "finished"
           and time.monotonic() < deadline):
        time.sleep(POLL_INTERVAL)
        game = game_or_404(game_id)
    return {"game_id": game.id, "version": game.version, "status": game.status}


@bp.get("/games/<int:game_id>/page/preview")
@documented("One hex drawn with a tile at a rotation (SVG) for the page's lay form; draws only",
            query=PreviewQuery, ok={200: "image/svg+xml"}, media="image/svg+xml", errors=(403, 404, 409),
            auth=("seat", "admin"), auth_optional=True)
def preview(game_id: int) -> ResponseReturnValue:
    """One hex drawn as it would look with a tile laid at a rotation (tokens kept), for the lay form. Only
    draws: legality is the engine's, asked when the lay is posted."""
    game = game_or_404(game_id)
    require_read(game)
    args = query(PreviewQuery)
    hex_id, tile_id, rotation = args["hex"], args["tile"], args["rotation"] % 6
    if game.status == "open":
        raise ApiError(409, "not_started", f"game {game_id} has not started")
    with rt().sessions.use(game) as session:
        view = map_view(session.game, hexes=())
        try:
            hex_ = preview_hex(session.game, hex_id, tile_id.rsplit("-", 1)[0], rotation)
        except KeyError:
            raise ApiError(404, "unknown_hex_or_tile", f"no hex {hex_id!r} or tile {tile_id!r} here") from None
    svg = f'<svg xmlns="http://www.w3.org/2000/svg">{render_hex(hex_, view)}</svg>'
    return Response(svg, mimetype="image/svg+xml")


@bp.get("/games/<int:game_id>/page/me")
@documented("Who the bearer seat token is in this game (player id, name, seat) and its own standing orders "
            "(`programs`: each `order` as set and its `words`; never another seat's)", ok={200: PageMeOut},
            errors=(404,), auth=("seat", "admin"))
def me(game_id: int) -> ResponseReturnValue:
    """Who the page's seat token is: the script needs the player id to address undo/redo and to say
    "your turn"."""
    game = game_or_404(game_id)
    who = require_seat(game)
    if who.admin or who.seat is None:
        return {"game_id": game.id, "player_id": None, "name": "operator", "admin": True}
    return {"game_id": game.id, "player_id": who.seat.player_id, "name": who.seat.name,
            "seat": who.seat.seat_index, "admin": False, "programs": _own_orders(game, who.seat.player_id)}


# what an order's owner set, without the engine's bookkeeping (its date: the id that set it, its place)
_ORDER_BOOKKEEPING = frozenset({"id", "auto", "seq", "created_at", "user", "auto_actions"})


def _own_orders(game: Game, player_id: Any) -> list[dict[str, Any]]:
    """The seat's own standing orders, each with its words (docs/standing-orders.md S1). Only here, to the
    seat itself: nobody reads another player's orders on the page."""
    if game.status == "open":
        return []
    with rt().sessions.use(game) as session:
        try:
            player = session.game.player(player_id)
        except EngineError:
            return []
        return [{"order": {k: v for k, v in prog.items() if k not in _ORDER_BOOKKEEPING},
                 "words": order_words(prog, session.game)} for prog in player.programs]


def state_market(game: Game, digest: dict[str, Any]) -> dict[str, Any] | None:
    """`state.market` of the state endpoint: the title's market grid with each corporation's marker, placed
    from the stored digest (no engine session needed, so reading the state stays cheap)."""
    if not digest:
        return None
    shape, grid = _market_grid(game.title, tuple(game.options or ()), game.seat_count)
    return {"shape": shape, **with_markers(grid, digest.get("corporations") or {})}


@lru_cache(maxsize=64)
def _market_grid(title: str, options: tuple[str, ...], seats: int) -> tuple[str, list[list[dict[str, Any] | None]]]:
    """The cells of one configuration's market, built once per process (`with_markers` never changes them)."""
    defn = definition(title, options, seats)
    colors = defn.data.setup.get("market", {}).get("type_colors") or {}
    return defn.market.shape, market_grid(defn.market, colors)

"""Bearer tokens: an operator's admin token, a seat token (acts in one game), or a player token (proves an
identity when joining another game). Tokens are looked up by hash."""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass

from flask import request

from services import signin
from services.gateway.errors import ApiError
from services.gateway.http import game_or_404
from services.gateway.runtime import rt
from services.tokens import hash_token
from shared.eventstore import identity
from shared.eventstore.records import Game, Player, Seat

SEAT_CACHE_SIZE = 100_000
SEAT_RECHECK_SECONDS = 30.0


@dataclass(frozen=True)
class Principal:
    admin: bool = False
    seat: Seat | None = None
    player: Player | None = None


def principal() -> Principal | None:
    header = request.headers.get("Authorization", "")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "unauthorized", "use 'Authorization: Bearer <token>'")
    token = token.strip()
    if signin.looks_like(token):
        return Principal(seat=_signin_seat(token))
    if _is_admin(token):
        return Principal(admin=True)
    who = identity.by_token(_Reads(), hash_token(token))
    if who is None:
        raise ApiError(401, "unauthorized", "unknown token")
    return Principal(seat=who.seat, player=who.player)


class _Reads:
    """The store as `identity` reads it, with seat tokens remembered for the process (`_seat`)."""

    def seat_by_token(self, token_hash: str) -> Seat | None:
        return _seat(token_hash)

    def player_by_token(self, token_hash: str) -> Player | None:
        return rt().recorder.player_by_token(token_hash)

    def seats(self, game_id: int) -> list[Seat]:
        return rt().recorder.seats(game_id)

    def signins_revoked_at(self, game_id: int, player_id: int) -> float | None:
        return rt().recorder.signins_revoked_at(game_id, player_id)


def _signin_seat(token: str) -> Seat:
    """The seat a sign-in link opens: ours (signed), not expired, not revoked since it was issued."""
    link = signin.verify(rt().config.signin_secret, token)
    if link is None:
        raise ApiError(401, "unauthorized", "that sign-in link is not one of ours: open the page link of your "
                       "latest turn email, or use your seat link")
    try:
        return identity.by_link(rt().recorder, link, time.time())
    except identity.Refused as refused:
        raise ApiError(401, refused.code, refused.message) from refused


def _seat(digest: str) -> Seat | None:
    """Seat by token hash, remembered for the process (bounded). A seat changes hands only by a hand-over
    (services/play/handover.py), so a remembered seat is looked up again after SEAT_RECHECK_SECONDS: a
    handed-over token stops working in every process within that time (at once in the one that did it)."""
    seat = rt().seat_tokens.get(digest)
    if seat is None or time.monotonic() - rt().seat_checked.get(digest, 0.0) > SEAT_RECHECK_SECONDS:
        seat = rt().recorder.seat_by_token(digest)
        remember_seat(digest, seat)
    return seat


def remember_seat(digest: str, seat: Seat | None) -> None:
    """What the store just said of a seat token (None: no seat has it any more), remembered as `_seat` does."""
    cache, checked = rt().seat_tokens, rt().seat_checked
    if seat is None:
        cache.pop(digest, None)
        return
    if len(cache) >= SEAT_CACHE_SIZE:
        cache.clear()  # crude but thread-safe bound; refills from the store
        checked.clear()
    cache[digest] = seat
    checked[digest] = time.monotonic()


def _is_admin(token: str) -> bool:
    admin = rt().config.admin_token
    return bool(admin) and hmac.compare_digest(token.encode(), admin.encode())


def _bearer() -> str | None:
    """The request's well-formed bearer token, else None (`principal` says what is wrong with the rest)."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


def seat_token() -> str | None:
    """The bearer token when it can only be a seat's or a player's (not a sign-in link, not the operator's):
    the kind a seat lookup may be folded into a statement for (services/gateway/actions.py)."""
    token = _bearer()
    return None if token is None or signin.looks_like(token) or _is_admin(token) else token


def known_seat_of(game_id: int) -> Principal | None:
    """The caller as a remembered seat of this very game, else None. Such a seat proves the game exists
    (seats belong to their game), so a view may skip reading the game; any other caller takes the general
    path (`require_seat(game_or_404(...))`), which keeps 404 ahead of 401/403."""
    token = _bearer()
    if token is None:
        return None
    digest = hash_token(token)
    seat = rt().seat_tokens.get(digest)
    if seat is None or seat.game_id != game_id:
        return None
    if time.monotonic() - rt().seat_checked.get(digest, 0.0) > SEAT_RECHECK_SECONDS:
        return None  # due for a recheck: the general path looks it up again
    if _is_admin(token):
        return None
    return Principal(seat=seat)


def seat_in(game_id: int) -> Principal:
    """The caller of one game's endpoint, reading as little as possible: a remembered seat of this game
    (`known_seat_of`), else the token's seat looked up once — a seat of this very game proves the game exists,
    so the game row is not read for it (a play-by-mail seat's moves are minutes apart, past the seat cache's
    recheck, so this is most moves' path). Anyone else (operators, other games' seats, bad tokens) takes the
    general path, `require_seat(game_or_404(...))`, which keeps 404 ahead of 401/403."""
    who = known_seat_of(game_id)
    if who is not None:
        return who
    try:
        who = principal()
    except ApiError:
        who = None  # answered below, after the game's existence
    if who is not None and who.seat is not None and who.seat.game_id == game_id:
        return who
    return require_seat(game_or_404(game_id))


def require_admin() -> Principal:
    who = principal()
    if who is None or not who.admin:
        raise ApiError(403 if who else 401, "admin_only", "this operation needs the admin token")
    return who


def require_seat(game: Game) -> Principal:
    """The caller must hold a seat token of this game (or be an operator)."""
    who = principal()
    if who is None:
        raise ApiError(401, "unauthorized", f"a seat token of game {game.id} is required")
    if who.admin:
        return who
    if who.seat is None or who.seat.game_id != game.id:
        raise ApiError(403, "wrong_seat", f"this token holds no seat in game {game.id}")
    return who


def require_read(game: Game) -> Principal | None:
    """Open games are readable by anyone; private ones by their seats and operators."""
    if game.visibility == "open":
        return None
    return require_seat(game)

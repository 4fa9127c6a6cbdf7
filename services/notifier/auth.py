"""Who is calling: a player's bearer token (player token or seat token, both stored hashed by the event
store) or the operator's admin token. The hash must match the gateway's; see `token_hash`.
"""

from __future__ import annotations

import hmac
import json
import time
from dataclasses import dataclass

import sqlalchemy as sa

from services import signin
from services.tokens import hash_token

_players = sa.table("players", sa.column("id"), sa.column("token_hash"))
_seats = sa.table("seats", sa.column("game_id"), sa.column("player_id"), sa.column("token_hash"))
_clock = sa.table("clock_events", sa.column("game_id"), sa.column("type"), sa.column("data"))
_revocations = sa.table("signin_revocations", sa.column("game_id"), sa.column("player_id"), sa.column("revoked_at"))


def _signin_caller(conn: sa.Connection, token: str, secret: str) -> Caller | None:
    link = signin.verify(secret, token)
    if link is None or time.time() >= link.expires:
        return None
    revoked = conn.execute(sa.select(_revocations.c.revoked_at).where(
        _revocations.c.game_id == link.game_id, _revocations.c.player_id == link.player_id)).scalar()
    if revoked is not None and link.issued <= float(revoked):
        return None
    if _handed_over(conn, link.game_id, link.player_id):
        return None  # like the seat token of a handed-over seat: it does not manage the first holder's channels
    return Caller(str(link.player_id))


def token_hash(token: str) -> str:
    """The gateway's own hash, so the same tokens work on both APIs."""
    return hash_token(token)


@dataclass(frozen=True)
class Caller:
    player_id: str | None  # None with admin=True: an operator who must name the player
    admin: bool = False


def identify(conn: sa.Connection, authorization: str | None, admin_token: str | None,
             signin_secret: str = "") -> Caller | None:
    if not authorization or not authorization.lower().startswith("bearer "):
        return None
    token = authorization[7:].strip()
    if not token:
        return None
    if admin_token and hmac.compare_digest(token.encode(), admin_token.encode()):
        return Caller(None, admin=True)
    if signin.looks_like(token):  # the page opened from a turn email: the same checks as the gateway's
        return _signin_caller(conn, token, signin_secret)
    digest = token_hash(token)
    found = conn.execute(sa.select(_players.c.id).where(_players.c.token_hash == digest).limit(1)).scalar()
    if found is not None:
        return Caller(str(found))
    seat = conn.execute(sa.select(_seats.c.game_id, _seats.c.player_id).where(_seats.c.token_hash == digest)
                        .limit(1)).first()
    if seat is None or _handed_over(conn, seat.game_id, seat.player_id):
        return None
    return Caller(str(seat.player_id))


def _handed_over(conn: sa.Connection, game_id: int, player_id: int) -> bool:
    """A seat a newcomer took over (services/play/handover.py) keeps its first holder's player id: its seat
    token must not manage that player's channels, which serve all his games."""
    rows = conn.execute(sa.select(_clock.c.data).where(_clock.c.game_id == game_id,
                                                       _clock.c.type == "seat_handed_over")).all()
    return any(json.loads(r.data).get("seat") == player_id for r in rows)

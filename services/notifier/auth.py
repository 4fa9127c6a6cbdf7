"""Who is calling: a player's bearer token (player token, seat token or sign-in link, answered by the store's
`shared/eventstore/identity.py`, as the gateway's are) or the operator's admin token."""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass

import sqlalchemy as sa

from services import signin
from services.tokens import hash_token
from shared.eventstore import identity


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
    reads = identity.OnConnection(conn)
    if signin.looks_like(token):  # the page opened from a turn email: the same checks as the gateway's
        link = signin.verify(signin_secret, token)
        if link is None:
            return None
        try:
            who = identity.Identity(seat=identity.by_link(reads, link, time.time()))
        except identity.Refused:
            return None
    else:
        found = identity.by_token(reads, token_hash(token))
        if found is None:
            return None
        who = found
    # a handed-over seat's token or link does not manage its first holder's channels, which serve all his games
    player = identity.owner(conn, who)
    return None if player is None else Caller(str(player))

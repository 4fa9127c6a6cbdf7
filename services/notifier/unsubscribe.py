"""One-click unsubscribe tokens (RFC 8058). Only a hash is stored, so a database leak unsubscribes no one."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

import sqlalchemy as sa

from .tables import mail_queue, subscriptions, unsubscribe_tokens


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue(conn: sa.Connection, player_id: str, address: str, now: datetime) -> str:
    token = secrets.token_urlsafe(32)
    conn.execute(
        unsubscribe_tokens.insert().values(token_hash=_hash(token), player_id=player_id, address=address, created_at=now)
    )
    return token


def redeem(conn: sa.Connection, token: str, now: datetime) -> bool:
    """Stop all email to the token's address for its player, immediately, including mail already queued."""
    row = conn.execute(
        sa.select(unsubscribe_tokens).where(unsubscribe_tokens.c.token_hash == _hash(token))
    ).mappings().first()
    if row is None:
        return False
    player_id, address = row["player_id"], row["address"]
    conn.execute(
        subscriptions.update()
        .where(subscriptions.c.player_id == player_id, subscriptions.c.channel == "email",
               subscriptions.c.email == address)
        .values(channel="none", email=None, updated_at=now)
    )
    conn.execute(
        mail_queue.delete().where(
            mail_queue.c.player_id == player_id, mail_queue.c.address == address, mail_queue.c.sent_at.is_(None)
        )
    )
    if row["used_at"] is None:
        conn.execute(
            unsubscribe_tokens.update().where(unsubscribe_tokens.c.token_hash == row["token_hash"]).values(used_at=now)
        )
    return True

"""Bearer tokens: random, shown once, stored only as a SHA-256 hash so a database leak reveals no token."""

from __future__ import annotations

import hashlib
import secrets


def new_token() -> str:
    return "rp_" + secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()

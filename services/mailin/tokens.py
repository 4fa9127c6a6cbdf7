"""Reply tokens: which seat, game and version a reply answers, signed so that nobody can forge one.

A token is `g<game>p<player>v<version>-<signature>`, the signature an HMAC-SHA256 of the three numbers under
the server's secret (base32, lowercase: mail systems may fold the case of an address's local part). It
travels as the plus-address of the reply address (`moves+g12p3v40-...@play.example.org`) and is never the
seat token: a leaked reply address lets someone answer one turn of one seat, from that seat's address.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass
from email.utils import getaddresses

from .settings import MailinSettings

_TOKEN = re.compile(r"g(\d{1,12})p(\d{1,12})v(\d{1,12})-([a-z2-7]{26})")


@dataclass(frozen=True)
class ReplyToken:
    game_id: int
    player_id: int
    version: int


def _signature(secret: str, game_id: int, player_id: int, version: int) -> str:
    mac = hmac.new(secret.encode(), f"railpost-reply:{game_id}:{player_id}:{version}".encode(), hashlib.sha256)
    return base64.b32encode(mac.digest()[:16]).decode().rstrip("=").lower()


def sign(secret: str, game_id: int, player_id: int, version: int) -> str:
    return f"g{game_id}p{player_id}v{version}-{_signature(secret, game_id, player_id, version)}"


def verify(secret: str, text: str) -> ReplyToken | None:
    """The token in `text` if its signature is ours, else None."""
    m = _TOKEN.fullmatch(text.strip().lower())
    if m is None or not secret:
        return None
    game_id, player_id, version = (int(m.group(i)) for i in (1, 2, 3))
    if not hmac.compare_digest(m.group(4), _signature(secret, game_id, player_id, version)):
        return None
    return ReplyToken(game_id, player_id, version)


def reply_address(settings: MailinSettings, game_id: int, player_id: int, version: int) -> str:
    token = sign(settings.secret, game_id, player_id, version)
    return f"{settings.local_part}+{token}@{settings.domain}"


def find(settings: MailinSettings, addresses: Iterable[str]) -> tuple[ReplyToken | None, bool]:
    """The first valid token among the recipient addresses, and whether any address carried a token-shaped
    plus part at all (a forged or foreign one: not ours)."""
    seen = False
    for _name, addr in getaddresses(list(addresses)):
        local, _, domain = addr.rpartition("@")
        base, plus, tag = local.partition("+")
        if not plus or base.lower() != settings.local_part.lower():
            continue
        seen = True
        token = verify(settings.secret, tag)
        if token is not None:
            return token, True
    return None, seen

"""Sign-in links: the page link in a turn email opens the game with the player's seat on any device.

A link carries `sl1-g<game>p<player>i<issued>e<expires>-<signature>` in the URL's fragment (never sent to a
server, so never in an access log); the page keeps it like a seat token and sends it as its bearer token.
The signature is an HMAC-SHA256 under the server's secret, so nobody can make one for another seat or
stretch its expiry. It is not the seat token: a leaked mail gives its seat until the link expires or the
player revokes his links (`POST /games/{id}/signin-links/revoke`), never longer.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

PREFIX = "sl1-"
LIFETIME_SECONDS = 14 * 24 * 3600  # two weeks: longer than any turn a deadline allows, short for a leak
_LINK = re.compile(r"sl1-g(\d{1,12})p(\d{1,12})i(\d{1,12})e(\d{1,12})-([a-z2-7]{32})")


@dataclass(frozen=True)
class SigninLink:
    game_id: int
    player_id: int
    issued: int
    expires: int


def _signature(secret: str, game_id: int, player_id: int, issued: int, expires: int) -> str:
    mac = hmac.new(secret.encode(), f"railpost-signin:{game_id}:{player_id}:{issued}:{expires}".encode(),
                   hashlib.sha256)
    return base64.b32encode(mac.digest()[:20]).decode().rstrip("=").lower()


def sign(secret: str, game_id: int, player_id: int, now: float, lifetime: int = LIFETIME_SECONDS) -> str:
    issued = int(now)
    expires = issued + lifetime
    return f"{PREFIX}g{game_id}p{player_id}i{issued}e{expires}-{_signature(secret, game_id, player_id, issued, expires)}"


def looks_like(token: str) -> bool:
    return token.startswith(PREFIX)


def verify(secret: str, token: str) -> SigninLink | None:
    """The link if its signature is ours (expiry and revocation are the caller's to check), else None."""
    m = _LINK.fullmatch(token.strip())
    if m is None or not secret:
        return None
    game_id, player_id, issued, expires = (int(m.group(i)) for i in range(1, 5))
    if not hmac.compare_digest(m.group(5), _signature(secret, game_id, player_id, issued, expires)):
        return None
    return SigninLink(game_id, player_id, issued, expires)


def page_link(public_url: str, game_id: int, token: str) -> str:
    return f"{public_url}/games/{game_id}/page#signin={token}"

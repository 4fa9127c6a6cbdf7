"""Reply tokens: which seat, game and version a reply answers, signed so that nobody can forge one.

A token is `g<game>p<player>v<version>-<signature>`, the signature an HMAC-SHA256 of the three numbers under
the server's secret. An answer to a question of the table (a vote, an undo/redo request, a seat claim) has a
token of its own, `g<game>p<player>a<ask>-<signature>`: `ask` names the question (services/play/pending.py,
`Ask.ask_id`), signed under a different purpose, so an answer address can never play a move nor a move
address answer a question (base32, lowercase: mail systems may fold the case of an address's local part). It
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

_TOKEN = re.compile(r"g(\d{1,12})p(\d{1,12})([va])(\d{1,12})-([a-z2-7]{26})")
_PURPOSE = {"v": "railpost-reply", "a": "railpost-answer"}


@dataclass(frozen=True)
class ReplyToken:
    game_id: int
    player_id: int
    version: int  # the game version a move reply answers (0 on an answer token)
    ask: int | None = None  # the question an answer token answers


def _signature(secret: str, game_id: int, player_id: int, number: int, kind: str = "v") -> str:
    mac = hmac.new(secret.encode(), f"{_PURPOSE[kind]}:{game_id}:{player_id}:{number}".encode(), hashlib.sha256)
    return base64.b32encode(mac.digest()[:16]).decode().rstrip("=").lower()


def sign(secret: str, game_id: int, player_id: int, version: int) -> str:
    return f"g{game_id}p{player_id}v{version}-{_signature(secret, game_id, player_id, version)}"


def sign_answer(secret: str, game_id: int, player_id: int, ask: int) -> str:
    return f"g{game_id}p{player_id}a{ask}-{_signature(secret, game_id, player_id, ask, 'a')}"


def verify(secret: str, text: str) -> ReplyToken | None:
    """The token in `text` if its signature is ours, else None."""
    m = _TOKEN.fullmatch(text.strip().lower())
    if m is None or not secret:
        return None
    game_id, player_id, number = (int(m.group(i)) for i in (1, 2, 4))
    kind = m.group(3)
    if not hmac.compare_digest(m.group(5), _signature(secret, game_id, player_id, number, kind)):
        return None
    if kind == "a":
        return ReplyToken(game_id, player_id, 0, number)
    return ReplyToken(game_id, player_id, number)


def reply_address(settings: MailinSettings, game_id: int, player_id: int, version: int) -> str:
    token = sign(settings.secret, game_id, player_id, version)
    return f"{settings.local_part}+{token}@{settings.domain}"


def answer_address(settings: MailinSettings, game_id: int, player_id: int, ask: int) -> str:
    """Where the player answers the table's question `ask` (accept / decline, or a vote)."""
    token = sign_answer(settings.secret, game_id, player_id, ask)
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

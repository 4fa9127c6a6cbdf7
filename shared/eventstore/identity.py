"""Seats and identity, answered in one place: who a token is (a player token, a seat token, or a sign-in
link's seat), who holds a seat, handing a seat over, revoking a seat's sign-in links. The gateway
(services/gateway/auth.py), play (services/play/handover.py) and the notifier (services/notifier/auth.py,
fanout.py) ask here; none of them reads or writes these tables itself.

Two ways in, the same answers: the recorder (the gateway, play), whose part for these tables is
`SeatRecords`; a SQLAlchemy connection (the notifier, inside its own transactions), through `OnConnection`.
A seat handed over keeps its first holder's player id (the engine's seat), so who holds it now is read from
the table log's `seat_handed_over` events (`holders`).

Tokens are given here already hashed, and sign-in links already verified (their signature is the services'
secret, services/signin.py): the store checks only what it stored.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import sqlalchemy as sa

from .records import Player, Seat
from .rows import Cursor, Row
from .tables import clock_events, players, seats, signin_revocations

HANDED_OVER = "seat_handed_over"  # the table-log event of a hand-over (services/play/handover.py)


class Link(Protocol):
    """A sign-in link whose signature was checked (services/signin.SigninLink)."""

    @property
    def game_id(self) -> int: ...
    @property
    def player_id(self) -> int: ...
    @property
    def issued(self) -> int: ...
    @property
    def expires(self) -> int: ...


class IdentityReads(Protocol):
    """What `identify` reads: the recorder has it, and so has `OnConnection`."""

    def player_by_token(self, token_hash: str) -> Player | None: ...
    def seat_by_token(self, token_hash: str) -> Seat | None: ...
    def seats(self, game_id: int) -> list[Seat]: ...
    def signins_revoked_at(self, game_id: int, player_id: int) -> float | None: ...


@dataclass(frozen=True)
class Identity:
    seat: Seat | None = None  # a seat token or a sign-in link: acts for that seat in its game
    player: Player | None = None  # a player token: proves who someone is (joining, his own channels)


class Refused(Exception):
    """A sign-in link the store refuses; `code` is the API's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def by_token(reads: IdentityReads, token_hash: str) -> Identity | None:
    """A seat token's seat, else a player token's player, else None."""
    seat = reads.seat_by_token(token_hash)
    if seat is not None:
        return Identity(seat=seat)
    player = reads.player_by_token(token_hash)
    return None if player is None else Identity(player=player)


def by_link(reads: IdentityReads, link: Link, now: float) -> Seat:
    """The seat a sign-in link opens: not expired, not revoked since it was issued, still a seat of its game."""
    if now >= link.expires:
        raise Refused("signin_link_expired", "that sign-in link has expired: open the page link of your "
                      "latest turn email, or use your seat link")
    revoked = reads.signins_revoked_at(link.game_id, link.player_id)
    if revoked is not None and link.issued <= revoked:
        raise Refused("signin_link_revoked", "that sign-in link was revoked: open the page link of a turn "
                      "email sent since, or use your seat link")
    seat = next((s for s in reads.seats(link.game_id) if s.player_id == link.player_id), None)
    if seat is None:
        raise Refused("unauthorized", f"player {link.player_id} holds no seat in game {link.game_id}")
    return seat


# -- who holds a seat (SQLAlchemy: the notifier reads inside its own transactions) ---------------------------

def holders(conn: sa.Connection, game_id: str | int) -> dict[int, int | None]:
    """Seat (its first holder's player id) -> the player id of whoever holds it now, for each seat handed over
    in this game (None: no newcomer with a player id of his own)."""
    try:
        gid = int(game_id)
    except (TypeError, ValueError):
        return {}
    rows = conn.execute(sa.select(clock_events.c.data).where(clock_events.c.game_id == gid,
                                                             clock_events.c.type == HANDED_OVER)
                        .order_by(clock_events.c.seq)).all()
    out: dict[int, int | None] = {}
    for row in rows:
        data = json.loads(row.data)
        seat, holder = int(data["seat"]), data.get("holder")
        if holder is not None or seat not in out:  # a later newcomer with no id leaves the known holder
            out[seat] = None if holder is None else int(holder)
    return out


def owner(conn: sa.Connection, who: Identity) -> int | None:
    """The player whose own things (his channels, which serve all his games) this identity manages: a player
    token's player; a seat's player unless the seat was handed over (its player id is still the first
    holder's, whose channels the newcomer must not manage)."""
    if who.player is not None:
        return who.player.id
    if who.seat is None or who.seat.player_id in holders(conn, who.seat.game_id):
        return None
    return who.seat.player_id


class OnConnection:
    """`IdentityReads` on a SQLAlchemy connection."""

    def __init__(self, conn: sa.Connection) -> None:
        self.conn = conn

    def player_by_token(self, token_hash: str) -> Player | None:
        row = self.conn.execute(sa.select(players).where(players.c.token_hash == token_hash).limit(1)).first()
        return None if row is None else Player(row.id, row.name, row.token_hash)

    def seat_by_token(self, token_hash: str) -> Seat | None:
        row = self.conn.execute(sa.select(seats).where(seats.c.token_hash == token_hash).limit(1)).first()
        return None if row is None else _seat(row)

    def seats(self, game_id: int) -> list[Seat]:
        rows = self.conn.execute(sa.select(seats).where(seats.c.game_id == game_id).order_by(seats.c.seat_index))
        return [_seat(r) for r in rows]

    def signins_revoked_at(self, game_id: int, player_id: int) -> float | None:
        at = self.conn.execute(sa.select(signin_revocations.c.revoked_at).where(
            signin_revocations.c.game_id == game_id, signin_revocations.c.player_id == player_id)).scalar()
        return None if at is None else float(at)


def _seat(row: Any) -> Seat:
    return Seat(row.game_id, row.seat_index, row.player_id, row.name, row.token_hash)


# -- the recorder's part: revoking links, handing a seat over ------------------------------------------------

_REVOKE = ("INSERT INTO signin_revocations (game_id, player_id, revoked_at) VALUES (%s, %s, %s) "
           "ON CONFLICT (game_id, player_id) DO UPDATE SET revoked_at = excluded.revoked_at")


class SeatRecords:
    """Mixed into the recorder (shared/eventstore/sql.py), whose connections it uses."""

    if TYPE_CHECKING:
        def _tx(self, write: bool = False) -> AbstractContextManager[Cursor]: ...
        def _exec(self, cur: Cursor, sql: str, params: Any = ()) -> Any: ...
        def _one(self, cur: Cursor, sql: str, params: Any = ()) -> Row | None: ...

    def signins_revoked_at(self, game_id: int, player_id: int) -> float | None:
        """When the seat last revoked its sign-in links: a link issued before then is refused."""
        with self._tx() as cur:
            row = self._one(cur, "SELECT revoked_at FROM signin_revocations WHERE game_id = %s AND player_id = %s",
                            (game_id, player_id))
        return None if row is None else float(row["revoked_at"])

    def revoke_signins(self, game_id: int, player_id: int, at: float) -> None:
        """Every sign-in link of the seat issued until `at` stops working (links are stateless: signed, with
        their issue and expiry times, so this moment is the only stored fact)."""
        with self._tx(write=True) as cur:
            self._exec(cur, _REVOKE, (game_id, player_id, at))

    def hand_over_seat(self, game_id: int, seat: int, name: str, token_hash: str, at: float) -> None:
        """The seat's name and token become the newcomer's; its player id (the engine's seat) stays, so its
        holdings, standing orders and notices go with it. The first holder's sign-in links (his turn emails)
        name the same seat: they end with his tenure. Idempotent."""
        with self._tx(write=True) as cur:
            self._exec(cur, "UPDATE seats SET name = %s, token_hash = %s WHERE game_id = %s AND player_id = %s",
                       (name, token_hash, game_id, seat))
            self._exec(cur, _REVOKE, (game_id, seat, at))

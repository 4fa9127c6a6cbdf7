"""Seat hand-over (docs/time-controls.md, "Hand-over"): a seat the table opened is offered by invitation; a
newcomer claims it with that invitation; the other seated players accept or decline; on acceptance the
newcomer holds the seat: its holdings and standing orders (the engine's seat stays the same), its seat
token (the old one stops working) and its notifications. The table log records who held the seat from which
game version on, so the history says who played which moves.

The table already voted to open the seat, so a claim nobody declines within 48 hours is accepted: silence
keeps the game moving here, where an undo's silence keeps a move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from services.play.timecontrol import GameClock
from services.play.votes import TableVote, VoteError

if TYPE_CHECKING:
    from shared.eventstore import SqlRecorder

SEAT_TYPES = frozenset({"seat_offered", "seat_claimed", "claim_answer", "seat_handed_over", "claim_dropped",
                        "seat_resigned"})
CLAIM_TIMEOUT = timedelta(hours=48)


@dataclass(frozen=True)
class SeatClaim:
    seat: int
    name: str
    token_hash: str  # the newcomer's seat token, live once the hand-over is done
    affected: frozenset[int]  # the other seated players, who consent
    opened: datetime
    holder: int | None = None  # the newcomer's own player id: the seat's notifications go to it
    accepted: frozenset[int] = frozenset()
    declined: frozenset[int] = frozenset()
    timeout: timedelta = CLAIM_TIMEOUT

    def state(self, now: datetime) -> Literal["pending", "accepted", "declined"]:
        if self.declined:
            return "declined"
        if self.accepted >= self.affected or now >= self.opened + self.timeout:
            return "accepted"
        return "pending"


class Table(Protocol):
    """What the hand-over reads of the table: `timekeeping.Table`, the frozen dataclass that replays the
    table log and hands these events here, satisfies it (declared here so this module needs not import it)."""

    @property
    def clock(self) -> GameClock | None: ...
    @property
    def vote(self) -> TableVote | None: ...
    @property
    def handled(self) -> bool: ...
    @property
    def open_seats(self) -> frozenset[int]: ...
    @property
    def offers(self) -> tuple[tuple[int, str], ...]: ...
    @property
    def claim(self) -> SeatClaim | None: ...
    @property
    def holders(self) -> tuple[tuple[int, str, int], ...]: ...
    @property
    def resigned(self) -> tuple[tuple[int, int], ...]: ...


T = TypeVar("T", bound=Table)


def apply_seat(t: T, e: dict[str, Any], at: datetime | None) -> T:
    kind = e["type"]
    if kind == "seat_offered":
        return replace(t, offers=(*[o for o in t.offers if o[0] != e["seat"]], (e["seat"], e["invite_hash"])))
    if kind == "seat_claimed":
        assert at is not None
        return replace(t, claim=SeatClaim(e["seat"], e["name"], e["token_hash"], frozenset(e["affected"]), at,
                                          e.get("holder")))
    if kind == "claim_answer" and t.claim is not None:
        field = "accepted" if e["accept"] else "declined"
        return replace(t, claim=replace(t.claim, **{field: getattr(t.claim, field) | {e["seat"]}}))
    if kind == "seat_resigned":  # the player left: his seat is open, as if the table had voted to open it
        seat = e["seat"]
        vote = None if t.vote is not None and t.vote.absent == seat else t.vote
        # a vote on his absence is moot; if he held the turn, the table may vote at once on who moves for him
        handled = t.handled and not (t.clock is not None and t.clock.to_move == seat)
        return replace(t, open_seats=t.open_seats | {seat}, vote=vote, handled=handled,
                       resigned=(*t.resigned, (seat, int(e.get("version") or 0))))
    if kind == "claim_dropped":
        return replace(t, claim=None)
    if kind == "seat_handed_over":
        seat = e["seat"]
        return replace(t, claim=None, open_seats=t.open_seats - {seat},
                       offers=tuple(o for o in t.offers if o[0] != seat),
                       holders=(*t.holders, (seat, e["name"], int(e["version"]))))
    return t


def _stamp(event_type: str, now: datetime, **data: Any) -> dict[str, Any]:
    return {"type": event_type, "at": now.isoformat(), **data}


def offer(table: Table, by: int, seat: int, invite_hash: str, now: datetime) -> list[dict[str, Any]]:
    if seat not in table.open_seats:
        raise VoteError("seat", "that seat is not open: the table opens a seat by its vote at a deadline, or when its player leaves", 409)
    if by == seat:
        raise VoteError("seat", "the seat's own player does not offer it", 403)
    return [_stamp("seat_offered", now, seat=seat, by=by, invite_hash=invite_hash)]


def resign(table: Table, seat: int, seats: list[int], version: int, now: datetime) -> list[dict[str, Any]]:
    """A player leaves the game: his seat opens for a new player through the hand-over path (offer, claim,
    the table's consent). The seat stays in the game with its holdings, orders and clock."""
    if seat not in seats:
        raise VoteError("seat", f"seat {seat} is not at this table", 403)
    if seat in table.open_seats:
        raise VoteError("seat", "your seat is already open", 409)
    if table.claim is not None and table.claim.seat == seat:
        raise VoteError("seat", "your seat is being taken over", 409)
    return [_stamp("seat_resigned", now, seat=seat, version=version)]


def claim(table: Table, seat: int, invite_hash: str, name: str, token_hash: str, seats: list[int],
          now: datetime, holder: int | None = None) -> list[dict[str, Any]]:
    if seat not in table.open_seats:
        raise VoteError("seat", "that seat is not open", 409)
    if (seat, invite_hash) not in table.offers:
        raise VoteError("invitation", "that is not the invitation to that seat", 403)
    if table.claim is not None:
        raise VoteError("claim", "another claim of a seat is waiting for the table", 409)
    return [_stamp("seat_claimed", now, seat=seat, name=name, token_hash=token_hash, holder=holder,
                   affected=sorted(s for s in seats if s != seat))]


def answer(table: Table, by: int, accept: bool, now: datetime) -> list[dict[str, Any]]:
    c = table.claim
    if c is None or c.state(now) != "pending":
        raise VoteError("claim", "no claim of a seat is waiting", 409)
    if by not in c.affected:
        raise VoteError("seat", f"seat {by} does not answer this claim", 403)
    if by in c.accepted or by in c.declined:
        raise VoteError("seat", f"seat {by} has already answered", 409)
    return [_stamp("claim_answer", now, seat=by, accept=accept)]


def settle(table: Table, version: int, now: datetime) -> tuple[list[dict[str, Any]], SeatClaim | None]:
    """(events, the claim to carry out): a declined claim is dropped, an accepted (or unanswered) one done."""
    c = table.claim
    if c is None or c.state(now) == "pending":
        return [], None
    if c.state(now) == "declined":
        return [_stamp("claim_dropped", now, seat=c.seat, name=c.name)], None
    return [_stamp("seat_handed_over", now, seat=c.seat, name=c.name, version=version, holder=c.holder)], c


def hand_over(recorder: SqlRecorder, game_id: int, claim_: SeatClaim) -> None:
    """The seat becomes the newcomer's (shared/eventstore/identity.py: its name and token change, its player
    id stays, the first holder's sign-in links are revoked). Idempotent."""
    recorder.hand_over_seat(game_id, claim_.seat, claim_.name, claim_.token_hash, time.time())

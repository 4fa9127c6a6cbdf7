"""What the table decides when a clock runs out, and consent to undo into someone else's turn.

Pure decisions over who is seated and who said what; the caller records each step as an event. A voter is
always the authenticated seat (the API passes its own seat, never one from the body), so nobody votes,
accepts or declines for someone else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

DeadlineAction = Literal["standing_order", "auto_pass", "table_vote"]
CHOICES: tuple[str, ...] = ("extend", "substitute", "open_seat")
VOTE_TIMEOUT = timedelta(hours=48)
CONSENT_TIMEOUT = timedelta(hours=48)


class VoteError(ValueError):
    """A vote, proposal or answer that is refused; `field` names the culprit, `status` the HTTP status."""

    def __init__(self, field_name: str, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.field = field_name
        self.status = status


def at_deadline(has_standing_order: bool, auto_pass_allowed: bool, auto_pass_chosen: bool) -> DeadlineAction:
    """The order of remedies when a turn's time is up: the player's own standing order first, then an
    automatic pass if the position allows one and the player opted in, otherwise the table is told."""
    if has_standing_order:
        return "standing_order"
    if auto_pass_allowed and auto_pass_chosen:
        return "auto_pass"
    return "table_vote"


@dataclass(frozen=True)
class TableVote:
    """The other seated players decide about an absent seat. A strict majority of the voters settles it at
    once; at the timeout the most-chosen remedy wins, ties and silence fall back to `extend` (the mildest)."""

    absent: int
    voters: frozenset[int]
    opened: datetime
    ballots: dict[int, tuple[str, int | None]] = field(default_factory=dict)
    timeout: timedelta = VOTE_TIMEOUT

    @classmethod
    def open(cls, absent: int, seats: Iterable[int], opened: datetime,
             timeout: timedelta = VOTE_TIMEOUT) -> TableVote:
        return cls(absent, frozenset(s for s in seats if s != absent), opened, {}, timeout)

    def cast(self, voter: int, choice: str, substitute: int | None = None) -> TableVote:
        if voter == self.absent:
            raise VoteError("seat", "the absent seat does not vote on its own absence", 403)
        if voter not in self.voters:
            raise VoteError("seat", f"seat {voter} is not at this table", 403)
        if voter in self.ballots:
            raise VoteError("seat", f"seat {voter} has already voted", 409)
        if choice not in CHOICES:
            raise VoteError("choice", f"choice must be one of {', '.join(CHOICES)}, not {choice!r}", 400)
        if choice == "substitute":
            if substitute is None:
                raise VoteError("substitute", "a substitute vote names the seat that moves for the absent one", 400)
            if substitute not in self.voters:
                raise VoteError("substitute", "that seat cannot move for the absent one: the stand-in is one of the voters")
        elif substitute is not None:
            raise VoteError("substitute", "only a substitute vote names a substitute", 400)
        return replace(self, ballots={**self.ballots, voter: (choice, substitute)})

    def outcome(self, now: datetime) -> tuple[str, int | None] | None:
        """(remedy, substitute seat) once decided, else None."""
        counts: dict[tuple[str, int | None], int] = {}
        for ballot in self.ballots.values():
            counts[ballot] = counts.get(ballot, 0) + 1
        for ballot, n in counts.items():
            if 2 * n > len(self.voters):
                return ballot
        if not self.voters:
            return ("extend", None)
        if now < self.opened + self.timeout and len(self.ballots) < len(self.voters):
            return None
        if not counts:
            return ("extend", None)
        best = max(counts.values())
        leaders = [b for b, n in counts.items() if n == best]
        return leaders[0] if len(leaders) == 1 else ("extend", None)


def undo_affected(moves_since: Sequence[int], requester: int) -> frozenset[int]:
    """Seats whose moves an undo would take back, besides the requester's own: empty means it is free."""
    return frozenset(s for s in moves_since if s != requester)


ConsentKind = Literal["undo", "redo", "end_game", "purchase"]
PROPOSALS: tuple[str, ...] = ("end_game", "purchase")  # moves the table agrees to before they are played


@dataclass(frozen=True)
class ConsentRequest:
    """A move that reaches into other players' game, waiting for their word: an undo (or redo) of their
    moves, or a proposal (`action`): ending the game by agreement, a purchase from another player's holding.
    Every affected seat must accept; one decline ends it, and so does the timeout (silence is not consent:
    nothing is played unless all agree)."""

    kind: ConsentKind
    requester: int
    affected: frozenset[int]
    opened: datetime
    target: int | None = None  # the action id the undo goes back to
    version: int | None = None  # the game version it was asked at: a move since then makes it moot
    action: dict[str, Any] | None = None  # a proposal's move, played in the requester's name once accepted
    accepted: frozenset[int] = frozenset()
    declined: frozenset[int] = frozenset()
    timeout: timedelta = CONSENT_TIMEOUT

    def answer(self, seat: int, accept: bool, now: datetime) -> ConsentRequest:
        if self.state(now) != "pending":
            raise VoteError("request", f"this {self.kind} request is already {self.state(now)}", 409)
        if seat == self.requester:
            raise VoteError("seat", "the requester does not answer their own request", 403)
        if seat not in self.affected:
            raise VoteError("seat", f"seat {seat} is not affected by this {self.kind}", 403)
        if seat in self.accepted or seat in self.declined:
            raise VoteError("seat", f"seat {seat} has already answered", 409)
        if accept:
            return replace(self, accepted=self.accepted | {seat})
        return replace(self, declined=self.declined | {seat})

    def state(self, now: datetime) -> Literal["pending", "accepted", "declined", "lapsed"]:
        if self.declined:
            return "declined"
        if self.accepted >= self.affected:
            return "accepted"
        if now >= self.opened + self.timeout:
            return "lapsed"
        return "pending"

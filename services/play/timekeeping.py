"""A game's table as use cases: its time control (players set it up, state their hours, go on vacation), its
votes, undo and redo requests, proposals and seat claims; the scheduler's `tick` follows the game and
decides what is due. Each decision is an event
in the table log; the table is always rebuilt from that log (`Table.replay`), never kept elsewhere.

Seats are named by player id. The caller (gateway, scheduler) supplies who is acting; the table never reads
the engine, and the engine never sees the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta
from typing import Any

from services.play.handover import SEAT_TYPES, SeatClaim, apply_seat
from services.play.handover import settle as settle_claim
from services.play.timecontrol import Availability, ClockError, ClockEvent, GameClock, TimeControl
from services.play.votes import ConsentRequest, TableVote, VoteError, at_deadline, undo_affected

CLOCK_TYPES = frozenset({"turn", "moved", "extended", "vacation", "reminded"})
DEFAULT_EXTENSION = timedelta(hours=24)



def _hm(text: str | None) -> time | None:
    return None if text is None else time.fromisoformat(text)


def control_from(data: dict[str, Any]) -> TimeControl:
    def hours(key: str) -> timedelta | None:
        value = data.get(key)
        return None if value is None else timedelta(hours=float(value))
    return TimeControl(data.get("kind", "none"), hours("per_move_hours"), hours("bank_hours"),
                       hours("increment_hours") or timedelta(0))


def control_dict(c: TimeControl) -> dict[str, Any]:
    def hours(v: timedelta | None) -> float | None:
        return None if v is None else v.total_seconds() / 3600
    return {"kind": c.kind, "per_move_hours": hours(c.per_move), "bank_hours": hours(c.bank),
            "increment_hours": hours(c.increment)}


@dataclass(frozen=True)
class Table:
    clock: GameClock | None = None
    auto_pass: frozenset[int] = frozenset()
    version: int | None = None  # the game version the clock last followed
    vote: TableVote | None = None
    consent: ConsentRequest | None = None
    handled: bool = False  # the current turn's deadline was dealt with
    moves: tuple[tuple[int, int], ...] = ()  # (game version, player) of each move the clock saw
    undo_consent: bool = True  # the game's undo rule, chosen at creation: consent, or any undo is free
    # the table's rules for moves that reach into others' game, chosen at creation (`table_rules`); a game
    # without that event (an imported record, a game from before) keeps the rule it was played under: free
    end_game_vote: bool = False
    purchase_consent: bool = False
    stand_in: tuple[int, int] | None = None  # (absent seat, the seat the table chose to move for it this turn)
    open_seats: frozenset[int] = frozenset()  # seats the table opened for a new player
    offers: tuple[tuple[int, str], ...] = ()  # (open seat, hash of the invitation to it)
    claim: SeatClaim | None = None  # a newcomer's claim of an open seat, waiting for the table
    holders: tuple[tuple[int, str, int], ...] = ()  # (seat, new holder's name, from game version): who played
    resigned: tuple[tuple[int, int], ...] = ()  # (seat, game version) of each player who left his seat
    seq: int = 0

    @classmethod
    def replay(cls, events: Sequence[dict[str, Any]]) -> Table:
        table = cls()
        for event in events:
            table = table.apply(event)
        return table

    def apply(self, e: dict[str, Any]) -> Table:
        t = replace(self, seq=self.seq + 1)
        kind = e["type"]
        at = datetime.fromisoformat(e["at"]) if "at" in e else None
        if kind == "configured":
            return replace(t, clock=GameClock(control_from(e["control"])))
        if kind == "consent_opened":
            assert at is not None
            return replace(t, consent=ConsentRequest(e["kind"], e["requester"], frozenset(e["affected"]), at,
                                                     e.get("target"), e.get("version"), e.get("action")))
        if kind == "consent_answer" and t.consent is not None and at is not None:
            return replace(t, consent=t.consent.answer(e["seat"], bool(e["accept"]), at))
        if kind == "consent_settled":
            return replace(t, consent=None)
        if kind == "undo_policy":
            return replace(t, undo_consent=bool(e["consent"]))
        if kind == "table_rules":
            return replace(t, end_game_vote=e.get("end_game") == "vote",
                           purchase_consent=e.get("purchases") == "consent")
        if kind in SEAT_TYPES:  # a seat changes hands with or without a time control
            return apply_seat(t, e, at)
        if t.clock is None:  # undo consent needs no time control; everything else does
            raise ClockError("clock", "this game has no time control")
        if kind == "availability":
            av = Availability(e["tz"], _hm(e.get("quiet_start")), _hm(e.get("quiet_end")),
                              bool(e.get("weekends_off")))
            auto = t.auto_pass | {e["seat"]} if e.get("auto_pass") else t.auto_pass - {e["seat"]}
            return replace(t, clock=replace(t.clock, availability={**t.clock.availability, e["seat"]: av}),
                           auto_pass=auto)
        if kind in CLOCK_TYPES:
            t = replace(t, clock=t.clock.apply(ClockEvent.from_dict(e)))
            if kind == "turn":
                t = replace(t, version=e.get("version"), handled=False)
                if t.stand_in is not None and e["seat"] != t.stand_in[0]:
                    t = replace(t, stand_in=None)  # the absent seat's turn is over
            if kind == "extended":
                t = replace(t, handled=False)
            if kind == "moved":
                t = replace(t, moves=(*t.moves, (int(e.get("version") or 0), e["seat"])))
            return t
        if kind == "deadline":
            return replace(t, handled=True)
        if kind == "vote_opened":
            assert at is not None
            return replace(t, vote=TableVote.open(e["absent"], e["seats"], at), handled=True)
        if kind == "ballot" and t.vote is not None:
            return replace(t, vote=t.vote.cast(e["seat"], e["choice"], e.get("substitute")))
        if kind == "vote_decided":
            if e.get("choice") == "substitute":
                return replace(t, vote=None, stand_in=(e["absent"], e["substitute"]))
            if e.get("choice") == "open_seat":
                return replace(t, vote=None, open_seats=t.open_seats | {e["absent"]})
            return replace(t, vote=None)
        raise ClockError("type", f"unknown table event {kind!r}")

    # -- what players ask ---------------------------------------------------------------------------------

    def view(self, now: datetime, seat: int | None = None) -> dict[str, Any]:
        undo = "consent" if self.undo_consent else "free"
        if self.clock is None:
            return {"time_control": {"kind": "none"}, "undo": undo, "undo_request": self._consent_view(),
                    **self._rules_view(), **self._seats_view()}
        c = self.clock
        due = c.deadline()
        out: dict[str, Any] = {
            "time_control": control_dict(c.control),
            "to_move": c.to_move,
            "since": c.since.isoformat() if c.since else None,
            "deadline": due.isoformat() if due else None,
            "overdue": c.overdue(now),
            "banks_hours": {str(s): b.total_seconds() / 3600 for s, b in c.banks.items()},
            "away": {str(s): {"from": a.isoformat(), "until": u.isoformat()} for s, (a, u) in c.away.items()
                     if u > now},
            "vote": None if self.vote is None else {
                "absent": self.vote.absent, "voters": sorted(self.vote.voters),
                "voted": sorted(self.vote.ballots), "closes": (self.vote.opened + self.vote.timeout).isoformat()},
            "undo": undo,
            "undo_request": self._consent_view(),
            **self._rules_view(),
            "stand_in": None if self.stand_in is None else {"absent": self.stand_in[0], "by": self.stand_in[1]},
            **self._seats_view(),
        }
        if seat is not None and seat in c.availability:
            av = c.availability[seat]
            out["my_hours"] = {"tz": av.tz, "quiet_start": av.quiet_start.isoformat() if av.quiet_start else None,
                               "quiet_end": av.quiet_end.isoformat() if av.quiet_end else None,
                               "weekends_off": av.weekends_off, "auto_pass": seat in self.auto_pass}
        return out


    def _seats_view(self) -> dict[str, Any]:
        return {
            "open_seats": sorted(self.open_seats),
            "seat_claim": None if self.claim is None else {
                "seat": self.claim.seat, "name": self.claim.name, "affected": sorted(self.claim.affected),
                "accepted": sorted(self.claim.accepted),
                "closes": (self.claim.opened + self.claim.timeout).isoformat()},
            "holders": [{"seat": s, "name": n, "from_version": v} for s, n, v in self.holders],
            "resigned": [{"seat": s, "at_version": v} for s, v in self.resigned],
        }

    def _rules_view(self) -> dict[str, Any]:
        """The table's rules for moves reaching into others' game, and the proposal waiting, if any."""
        proposal = self.consent if self.consent is not None and self.consent.action is not None else None
        return {"end_game": "vote" if self.end_game_vote else "any",
                "purchases": "consent" if self.purchase_consent else "free",
                "proposal": None if proposal is None else {
                    "kind": proposal.kind, "by": proposal.requester, "action": proposal.action,
                    "affected": sorted(proposal.affected), "accepted": sorted(proposal.accepted),
                    "version": proposal.version, "closes": (proposal.opened + proposal.timeout).isoformat()}}

    def needs(self, kind: str | None) -> bool:
        """Whether this table's rules put a move of consent kind `kind` (`GameSession.consenters`) to the
        players it touches before it is played."""
        return (kind == "end_game" and self.end_game_vote) or (kind == "purchase" and self.purchase_consent)

    def _consent_view(self) -> dict[str, Any] | None:
        if self.consent is None or self.consent.action is not None:
            return None
        return {"kind": self.consent.kind, "requester": self.consent.requester,
                "affected": sorted(self.consent.affected), "accepted": sorted(self.consent.accepted),
                "target": self.consent.target, "version": self.consent.version,
                "closes": (self.consent.opened + self.consent.timeout).isoformat()}


def _stamp(event_type: str, now: datetime, **data: Any) -> dict[str, Any]:
    return {"type": event_type, "at": now.isoformat(), **data}


def configure(table: Table, control: dict[str, Any], started: bool, now: datetime) -> list[dict[str, Any]]:
    if started:
        raise VoteError("time_control", "the time control is chosen before the game starts", 409)
    control_from(control)  # raises ClockError naming the field
    return [_stamp("configured", now, control=control)]


def set_hours(table: Table, seat: int, hours: dict[str, Any], now: datetime) -> list[dict[str, Any]]:
    _require_clock(table)
    event = _stamp("availability", now, seat=seat, tz=hours.get("tz", "UTC"),
                   quiet_start=hours.get("quiet_start"), quiet_end=hours.get("quiet_end"),
                   weekends_off=bool(hours.get("weekends_off")), auto_pass=bool(hours.get("auto_pass")))
    table.apply(event)  # validates: raises ClockError naming the field
    return [event]


def vacation(table: Table, seat: int, until: datetime | None, now: datetime) -> list[dict[str, Any]]:
    _require_clock(table)
    if until is not None and until <= now:
        raise VoteError("until", "a vacation ends in the future", 400)
    if until is not None and until > now + timedelta(days=90):
        raise VoteError("until", "a vacation lasts at most 90 days", 400)
    return [_stamp("vacation", now, seat=seat, until=until.isoformat() if until else None)]


def ballot(table: Table, seat: int, choice: str, substitute: int | None, now: datetime) -> list[dict[str, Any]]:
    _require_clock(table)
    if table.vote is None:
        raise VoteError("vote", "no vote is open in this game", 409)
    table.vote.cast(seat, choice, substitute)
    return [_stamp("ballot", now, seat=seat, choice=choice, substitute=substitute)]


def undo_policy(consent: bool, now: datetime) -> list[dict[str, Any]]:
    """The game's undo rule, recorded once at creation (a game without this event asks for consent)."""
    return [_stamp("undo_policy", now, consent=consent)]


def request_undo(table: Table, seat: int, kind: str, target: int | None, moves_since: Sequence[int],
                 now: datetime, version: int | None = None) -> tuple[list[dict[str, Any]], bool]:
    """(events, free): an undo of one's own moves while nobody else moved is free (post it as an action),
    and so is any undo in a game that chose free undo; otherwise a request the affected players answer,
    bound to the game `version` it was asked at."""
    if table.consent is not None and table.consent.state(now) == "pending":
        raise VoteError("request", "another undo/redo request is waiting for answers", 409)
    affected = undo_affected(moves_since, seat)
    if not affected or not table.undo_consent:
        return [], True
    return [_stamp("consent_opened", now, kind=kind, requester=seat, affected=sorted(affected),
                   target=target, version=version)], False


def table_rules(end_game: str, purchases: str, now: datetime) -> list[dict[str, Any]]:
    """The table's rules for moves reaching into others' game, recorded once at creation: ending the game
    (`vote`: by agreement; `any`: any player may) and purchases from another player's holding (`consent`:
    the owner agrees first; `free`)."""
    return [_stamp("table_rules", now, end_game=end_game, purchases=purchases)]


def propose(table: Table, seat: int, kind: str, action: dict[str, Any], affected: Sequence[int], now: datetime,
            version: int) -> list[dict[str, Any]]:
    """A move put to the players it touches (`kind` end_game | purchase), bound to the game `version` it was
    proposed at: any move played meanwhile makes it moot. One question at a time, as for undo requests."""
    if table.consent is not None and table.consent.state(now) == "pending":
        raise VoteError("request", "another request is waiting for the table's answers; try again once it is "
                        "settled", 409)
    return [_stamp("consent_opened", now, kind=kind, requester=seat, affected=sorted(set(affected) - {seat}),
                   target=None, version=version, action=action)]


def answer(table: Table, seat: int, accept: bool, now: datetime) -> list[dict[str, Any]]:
    if table.consent is None:
        raise VoteError("request", "no undo/redo request is waiting", 409)
    table.consent.answer(seat, accept, now)
    return [_stamp("consent_answer", now, seat=seat, accept=accept)]


def _require_clock(table: Table) -> None:
    if table.clock is None:
        raise VoteError("time_control", "this game has no time control", 409)


# -- the scheduler's pass over one game ------------------------------------------------------------------


@dataclass
class Follow:
    """What the game looks like now, as the store says."""

    status: str
    version: int
    acting: list[int]
    seats: list[int]


@dataclass
class Tick:
    events: list[dict[str, Any]] = field(default_factory=list)
    actions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (player, action) to queue
    reminders: list[tuple[int, int]] = field(default_factory=list)  # (player, step)
    handovers: list[SeatClaim] = field(default_factory=list)  # claims to carry out in the seats table


def tick(table: Table, game: Follow, now: datetime,
         remedies: Callable[[int], tuple[dict[str, Any] | None, dict[str, Any] | None]]) -> Tick:
    """`remedies(player)` answers (the standing order's action, the pass action), each None when there is
    none. Decide what is due now: follow the turn, escalate reminders, act at the deadline, close votes and
    requests. Returns the events to append (in order) and the moves and reminders they imply."""
    out = Tick()

    def emit(event: dict[str, Any]) -> None:
        nonlocal table
        table = table.apply(event)
        out.events.append(event)

    _settle_consent(table, game, now, emit, out)
    settled, claim = settle_claim(table, game.version, now)
    for event in settled:
        emit(event)
    if claim is not None:
        out.handovers.append(claim)
    if table.clock is None:
        return out
    acting = game.acting[0] if game.status == "active" and game.acting else None
    clock = table.clock
    if table.version != game.version or clock.to_move != acting:
        if clock.to_move is not None:
            emit(_stamp("moved", now, seat=clock.to_move, version=game.version))
        if table.vote is not None:
            emit(_stamp("vote_decided", now, choice="moot", substitute=None))
        if acting is not None:
            emit(_stamp("turn", now, seat=acting, version=game.version))
    assert table.clock is not None
    clock = table.clock
    if clock.to_move is not None:
        step = clock.reminder_due(now)
        if step is not None and not clock.overdue(now):
            emit(_stamp("reminded", now, seat=clock.to_move, step=step))
            out.reminders.append((clock.to_move, step))
        if clock.overdue(now) and not table.handled:
            order, passing = remedies(clock.to_move)
            remedy = at_deadline(order is not None, passing is not None, clock.to_move in table.auto_pass)
            if remedy == "table_vote":
                emit(_stamp("vote_opened", now, absent=clock.to_move, seats=game.seats))
            else:
                action = order if remedy == "standing_order" else passing
                assert action is not None
                emit(_stamp("deadline", now, seat=clock.to_move, remedy=remedy, action=action))
                out.actions.append((clock.to_move, action))
    if table.vote is not None:
        decided = table.vote.outcome(now)
        if decided is not None:
            choice, substitute = decided
            emit(_stamp("vote_decided", now, choice=choice, substitute=substitute, absent=table.vote.absent))
            if choice == "extend" and table.clock.to_move is not None:
                amount = table.clock.control.per_move or DEFAULT_EXTENSION
                emit(_stamp("extended", now, seat=table.clock.to_move, amount=amount.total_seconds()))
    return out


def _settle_consent(table: Table, game: Follow, now: datetime, emit: Callable[[dict[str, Any]], None],
                    out: Tick) -> None:
    """An answered or timed-out request is closed; an accepted one queues the undo as the requester's.
    A move made after the request was asked makes it moot: the consent was given to undo that position."""
    request = table.consent
    if request is None:
        return
    state: str = request.state(now)
    moved_on = request.version is not None and request.version != game.version
    if state == "pending" and not moved_on:
        return
    if moved_on:
        state = "moot"
    emit(_stamp("consent_settled", now, state=state, kind=request.kind, requester=request.requester))
    if state == "accepted":
        if request.action is not None:  # a proposal: its move, in the requester's name
            out.actions.append((request.requester, dict(request.action)))
            return
        action: dict[str, Any] = {"type": request.kind, "entity": request.requester, "entity_type": "player"}
        if request.target is not None and request.kind == "undo":
            action["action_id"] = request.target
        out.actions.append((request.requester, action))

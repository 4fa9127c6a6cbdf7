"""The outbox contract: the kinds of record the store's outbox holds and the typed shape of each payload.

Owned by the store because the store keeps them: `services/play` (and the store's own create/start/import)
produce these events, the notifier reads them back with `parse`. One declaration of every key, so neither
side spells a field its own way; old rows keep working because a field's wire name never changes (a
renamed field keeps its old key in `_WIRE`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar, Self

PlayerId = int | str
GameId = int | str


class OutboxKind(StrEnum):
    GAME_CREATED = "game_created"
    SEAT_JOINED = "seat_joined"
    GAME_STARTED = "game_started"
    TURN = "turn"
    GAME_FINISHED = "game_finished"
    ACTION_REFUSED = "action_refused"
    MESSAGE = "message"
    CLOCK_REMINDER = "clock_reminder"
    TABLE_ASKS = "table_asks"


@dataclass(frozen=True)
class OutboxEvent:
    """Base of every typed outbox payload: `game_id` and `title` on all of them."""

    kind: ClassVar[OutboxKind]
    _WIRE: ClassVar[Mapping[str, str]] = {}  # field name -> payload key, where they differ

    game_id: GameId | None
    title: str | None

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[self._WIRE.get(f.name, f.name)] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> Self:
        """Missing keys take the field's default (None for the base fields): a record written before a field
        existed still reads."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            key = cls._WIRE.get(f.name, f.name)
            if key in payload and payload[key] is not None:
                value = payload[key]
                values[f.name] = tuple(value) if f.default_factory is tuple else value  # type: ignore[comparison-overlap]
            elif f.name in ("game_id", "title"):
                values[f.name] = None
        return cls(**values)


@dataclass(frozen=True)
class GameStarted(OutboxEvent):
    kind: ClassVar[OutboxKind] = OutboxKind.GAME_STARTED
    players: tuple[PlayerId, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class TurnChanged(OutboxEvent):
    """Who must act now: `acting` are players (what alerts are about), `acting_entities` what the engine
    names (corporations included)."""

    kind: ClassVar[OutboxKind] = OutboxKind.TURN
    acting: tuple[PlayerId, ...] = field(default_factory=tuple)
    acting_entities: tuple[Any, ...] = field(default_factory=tuple)
    round: str | None = None
    phase: str | None = None
    turn: Any = None

    @classmethod
    def of_state(cls, game_id: GameId | None, title: str | None, state: Mapping[str, Any]) -> TurnChanged:
        """From a stored state (its `acting_players`) or a bare digest (its acting entities that are
        players)."""
        acting = state.get("acting_players")
        if acting is None:
            acting = [a for a in state.get("acting") or [] if isinstance(a, int)]
        return cls(game_id, title, tuple(acting), tuple(state.get("acting") or ()), state.get("round"),
                   state.get("phase"), state.get("turn"))

    def summary(self) -> dict[str, Any]:
        """The payload without the game's name: what changes from turn to turn."""
        out = self.payload()
        del out["game_id"], out["title"]
        return out


@dataclass(frozen=True)
class GameFinished(OutboxEvent):
    kind: ClassVar[OutboxKind] = OutboxKind.GAME_FINISHED
    result: Any = None


@dataclass(frozen=True)
class ActionRefused(OutboxEvent):
    kind: ClassVar[OutboxKind] = OutboxKind.ACTION_REFUSED
    player_id: PlayerId | None = None
    command_id: str | None = None
    reason: str = ""
    rule: str | None = None


@dataclass(frozen=True)
class MessagePosted(OutboxEvent):
    kind: ClassVar[OutboxKind] = OutboxKind.MESSAGE
    _WIRE: ClassVar[Mapping[str, str]] = {"author": "from"}
    author: PlayerId | None = None
    text: str = ""
    mentions: tuple[PlayerId, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class ClockReminder(OutboxEvent):
    """The game clock's escalating reminder (services/play/timekeeping.py): `step` 0, 1, 2 after half, 80%
    and 95% of the player's time; `deadline` when it runs out (ISO 8601)."""

    kind: ClassVar[OutboxKind] = OutboxKind.CLOCK_REMINDER
    player_id: PlayerId | None = None
    step: int = 0
    deadline: str | None = None


@dataclass(frozen=True)
class TableAsks(OutboxEvent):
    """The table asks some players to decide (services/play/pending.py): `ask` is `vote` (the deadline of
    seat `by` ran out: extend, substitute or open the seat), `undo` or `redo` (player `by` asks to take back
    or bring back their moves: accept or decline), `end_game` or `purchase` (player `by` proposes `move`, which
    is played once the players asked accept: ending the game, buying from their holding), or `seat_claim` (`name` asks to take over seat `by`).
    `players` must answer before `deadline` (ISO 8601); `ask_id` names the question (its clock-log
    position), so an answer cannot land on a later one; `target` is the action an undo goes back to;
    `voters` a vote's electorate (the seats a substitute may be)."""

    kind: ClassVar[OutboxKind] = OutboxKind.TABLE_ASKS
    ask: str = ""
    ask_id: int = 0
    by: PlayerId | None = None
    players: tuple[PlayerId, ...] = field(default_factory=tuple)
    deadline: str | None = None
    name: str | None = None
    target: int | None = None
    voters: tuple[PlayerId, ...] = field(default_factory=tuple)
    move: dict[str, Any] | None = None  # a proposal's move (`end_game`, `purchase`): what `by` would play


EVENTS: dict[str, type[OutboxEvent]] = {e.kind: e for e in (GameStarted, TurnChanged, GameFinished,
                                                               ActionRefused, MessagePosted, ClockReminder,
                                                               TableAsks)}


@dataclass(frozen=True)
class OutboxRecord:
    """One committed outbox row as a reader sees it."""

    position: int
    game_id: str
    version: int | None
    kind: str
    payload: Mapping[str, Any]
    created_at: datetime

    def event(self) -> OutboxEvent | None:
        """The typed event, or None for a kind no reader acts on (game_created, seat_joined)."""
        return parse(self.kind, self.payload)


def parse(kind: str, payload: Mapping[str, Any]) -> OutboxEvent | None:
    event = EVENTS.get(kind)
    return None if event is None else event.from_payload(payload)

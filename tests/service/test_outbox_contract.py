"""The outbox contract (shared/eventstore/outbox.py): what `play` writes is what the notifier reads back,
under one spelling per field, and records written before a field existed still read."""

from __future__ import annotations

import json
from datetime import datetime

from services.notifier import events
from shared.eventstore.outbox import (
    EVENTS,
    ActionRefused,
    GameFinished,
    MessagePosted,
    OutboxKind,
    TurnChanged,
    parse,
)


def test_every_event_round_trips_through_json():
    samples = [
        TurnChanged(7, "1840", (1, 2), (1, "WLB"), "OR 1.1", "2", 3),
        GameFinished(7, "1840", {"1": 500}),
        ActionRefused(7, "1840", 2, "c-1", "not your turn", "not_your_turn"),
        MessagePosted(7, "1840", 1, "hi @Bob", (2,)),
    ]
    for event in samples:
        back = parse(event.kind, json.loads(json.dumps(event.payload())))
        assert back == event
    assert set(EVENTS) <= set(OutboxKind)


def test_message_author_keeps_its_wire_name():
    payload = MessagePosted(7, None, 1, "x", ()).payload()
    assert payload["from"] == 1 and "author" not in payload


def test_turn_from_a_stored_state_and_from_a_bare_digest():
    stored = TurnChanged.of_state(1, "1828", {"acting_players": [4], "acting": ["NYC"], "round": "OR"})
    assert stored.acting == (4,) and stored.acting_entities == ("NYC",)
    digest = TurnChanged.of_state(1, "1828", {"acting": [3, "PRR"]})
    assert digest.acting == (3,)
    assert TurnChanged.from_payload({"game_id": 1}).acting == ()  # an old row without the field


def test_the_notifier_reads_what_play_writes():
    turn = TurnChanged(5, "1825", (1, 2), (1, 2), "SR", "1", None)
    out = events.interpret(position=9, kind=turn.kind, game_id="5", payload=turn.payload(),
                           occurred_at=datetime(2026, 1, 1), title=None,
                           previous_acting=["1"], seated=[])
    assert [(n.event_type, n.recipients, n.title) for n in out] == [(events.TURN, ("2",), "1825")]
    message = MessagePosted(5, "1825", 1, "@2 @1", (2, 1))
    out = events.interpret(position=10, kind=message.kind, game_id="5", payload=message.payload(),
                           occurred_at=datetime(2026, 1, 1), title=None,
                           previous_acting=[], seated=[])
    assert [n.recipients for n in out] == [("2",)]  # the author is not told of his own mention
    assert events.interpret(position=11, kind=OutboxKind.SEAT_JOINED, game_id="5", payload={},
                            occurred_at=datetime(2026, 1, 1), title=None,
                            previous_acting=[], seated=[]) == []

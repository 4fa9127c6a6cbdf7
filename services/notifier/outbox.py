"""The notifier's view of the event store: the store's read side (shared/eventstore/reader.py) and its
outbox contract (shared/eventstore/outbox.py), re-exported under the names the notifier uses."""

from __future__ import annotations

from shared.eventstore.outbox import OutboxRecord
from shared.eventstore.reader import (
    Seat,
    game_key,
    latest_position,
    names_of,
    number_pending,
    outbox_table,
    read_after,
    seats_of,
    seats_table,
)

__all__ = ["OutboxRecord", "Seat", "game_key", "latest_position", "names_of", "number_pending", "outbox_table",
           "read_after", "seats_of", "seats_table"]

"""`make bench`'s legal-actions figures: every position is both worked out and served from a kept answer."""

from __future__ import annotations

import json

from bench.bench_legal import CONFORMANCE, position_seconds, records
from services.play.offers import LocalShelf


def test_every_position_is_worked_out_and_served_from_what_was_kept() -> None:
    path = next(p for p in records() if p.parent.name == "1840")
    record = json.loads(path.read_text())
    record["actions"] = record["actions"][:80]
    shelf = LocalShelf()
    worked, served, waited = position_seconds(record, shelf)  # asserts a kept answer for every acting seat
    assert len(worked) == len(served) == len(waited) == 80
    assert all(t >= 0 for t in worked + served + waited)
    assert path.is_relative_to(CONFORMANCE)

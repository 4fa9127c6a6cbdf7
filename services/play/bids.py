"""Bid ranges in `legal-actions`: stated by the engine (`shared.engine.ranges`), kept importable here for the
mail-in renderer and older callers."""

from __future__ import annotations

from shared.engine.ranges import annotate_bids

__all__ = ["annotate_bids"]

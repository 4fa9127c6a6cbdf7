"""What the engine does by itself in 1840: the moves nobody decides."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .acquisition import AcquisitionRound
from .company import CompanyRound
from .routes import stadtbahn_run
from .state import CITY
from .trams import only_tram_to_only_line

if TYPE_CHECKING:
    from ...game import Game


def automatic_action(game: Game) -> dict[str, Any] | None:
    """The next action nobody decides: a Stadtbahn's best run, or handing a major's only tram to its only
    line. Recorded games carry these as the triggering action's `auto_actions`."""
    round_ = game.round
    if round_.done:
        return None
    if isinstance(round_, CompanyRound) and round_.index < len(round_.entities):
        corp = round_.corp(game)
        if round_.sub == "route" and corp.kind == CITY:
            return {"type": "run_routes", "entity": corp.sym, "entity_type": "corporation",
                    "routes": stadtbahn_run(game, corp), "extra_revenue": 0, "subsidy": 0}
        if round_.sub == "reassign":
            return only_tram_to_only_line(game, corp)
    if isinstance(round_, AcquisitionRound) and round_.turn(game) is not None \
            and round_.interrupt[round_.turn(game)][1] == "reassign":
        return only_tram_to_only_line(game, game.corporations[round_.interrupt[round_.turn(game)][0]])
    return None

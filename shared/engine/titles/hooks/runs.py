"""What a run is measured with, asked by several steps and rounds (the run, the train purchase, 1825's credit,
1840's rounds): the title's train kinds, the tile colours that earn, and whether any train could run. The
per-action rules of runs and dividends are the steps' (`core/runs.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...board.trains import TrainKind
from ...model import Corporation

if TYPE_CHECKING:
    from ...protocol import Game


class RunRules:
    def route_available(self, game: Game, corp: Corporation) -> bool:
        """A train could run: one of the corporation's stations is joined by track to another stop (a city,
        town or halt, or another of its stations). Stations that stand alone — two stations with no track
        between them included — run nothing, so the run (and what depends on it) is not offered and the turn's
        revenue is withheld (rules-1825.md, "No run without a route")."""
        if game.board.runs_from_station(corp.sym):
            return True
        reach = game.board.reach(corp.sym)
        if not reach.token_nodes:
            return False
        if reach.nodes - reach.token_nodes:
            return True
        if len(reach.token_nodes) < 2:
            return False
        kinds = self.train_kinds(game)
        kind = kinds.get("2") or next(iter(kinds.values()))  # any run has two stops
        return bool(game.board.best_routes(corp.sym, {"probe": kind}, self.revenue_colors(game),
                                           game.phase.name, per_train=1, search_limit=500))

    def train_kinds(self, game: Game) -> dict[str, TrainKind]:
        return game.defn.train_kinds

    def revenue_colors(self, game: Game) -> tuple[str, ...]:
        return game.phase.tiles

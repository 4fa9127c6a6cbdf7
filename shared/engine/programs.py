"""Standing orders (program_* actions): the server acts for a player while the order holds; and the
actions a title's rules take by themselves (`TitleRules.auto_action`), which nobody decides.

In live play the engine generates the resulting actions after each submitted action and stores them as
that action's `auto_actions`, exactly as recorded games carry them; a replay applies the recorded ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.stock import StockRound
from .errors import EngineError
from .model import POOL

if TYPE_CHECKING:
    from .game import Game

MAX_AUTO = 64  # a bound on one cascade; every auto action is a pass or one purchase, so this is never hit


def run_programs(game: Game) -> list[dict[str, Any]]:
    """Apply the standing orders of whoever must act now, then the title's automatic actions, until
    someone must decide; returns the actions taken."""
    taken: list[dict[str, Any]] = []
    for _ in range(MAX_AUTO):
        action = _next_auto_action(game)
        if action is None:
            # then whatever the title's rules do by themselves (an 1840 Stadtbahn's run)
            action = None if game.finished else game.rules.auto_action(game)
            if action is None:
                break
            game.process(action)
            taken.append(action)
            continue
        try:
            game.process(action)
        except EngineError:
            player = game.player(action["entity"])
            player.programs = []
            taken.append({"type": "program_disable", "entity": player.id, "entity_type": "player",
                          "reason": "the standing order could not be carried out"})
            continue
        taken.append(action)
    return taken


def _next_auto_action(game: Game) -> dict[str, Any] | None:
    if game.finished or not isinstance(game.round, StockRound):
        return None
    acting = game.acting()
    if not acting or not isinstance(acting[0], int):
        return None
    player = game.player(acting[0])
    if not player.programs:
        return None
    program = player.programs[0]
    base = {"entity": player.id, "entity_type": "player"}
    types = game.round.actions_for(game, player.id)
    if program["type"] == "program_share_pass":
        return {"type": "pass", **base} if "pass" in types else None
    if program["type"] == "program_buy_shares":
        corp = game.corporations.get(program.get("corporation"))
        if corp is None:
            return None
        if _order_fulfilled(game, program, corp, player.id) or game.round.bought():
            return {"type": "pass", **base} if program.get("auto_pass_after") and "pass" in types else None
        from_market = bool(program.get("from_market"))
        for share in corp.shares:
            if share.president or share.owner != (POOL if from_market else corp.sym):
                continue
            return {"type": "buy_shares", **base, "shares": [share.id], "percent": share.percent}
    return None


def _order_fulfilled(game: Game, program: dict[str, Any], corp: Any, pid: int) -> bool:
    until = program.get("until_condition")
    if until == "float":
        return bool(corp.floated)
    if isinstance(until, int):
        return sum(1 for s in corp.shares if s.owner == pid) >= until
    return False

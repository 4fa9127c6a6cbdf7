"""Railpost plays one seeded game with the soak tests' weighted random player and exports it (child process).

usage: python -m bench.campaign.soakplay TITLE PLAYERS SEED OPTS OUT.json MAX_ACTIONS

Pure random choice among legal actions rarely ends an 1825 game (thousands of share trades); the soak
player (tests/engine/randomplay.py) weights the moves that carry a game forward, backs out of dead ends with
an undo as a player would, and checks the invariants after every move. The record is exported even when
the game stopped early (a broken invariant, nobody able to move), so the reference can still judge every
move made; the last stdout line says how far it got.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "engine"))
import randomplay  # noqa: E402

from shared.engine import GameSession  # noqa: E402

# 1840: a major that scraps every tram each company round buys up a whole colour per round, and the
# reference crashes when the depot is empty as CR5 starts (docs/conflicts-1840.md); scrapping seldom lets
# the reference judge the games' later rounds too. A choice of the player, not of the rules.
TITLE_WEIGHTS: dict[str, dict[str, float]] = {"1840": {**randomplay.WEIGHTS, "scrap_train": 0.05}}


def main(argv: list[str]) -> int:
    title, players, seed, opts, out, max_actions = argv
    options = [o for o in opts.split(",") if o]
    held: list[GameSession] = []
    stuck = None
    try:
        stats = randomplay.play(title, options, int(players), int(seed), max_actions=int(max_actions),
                                weights=TITLE_WEIGHTS.get(title), depot_preference=0.8, on_start=held.append)
        finished = stats.finished
    except Exception as err:  # noqa: BLE001 - a broken invariant or a refused offer is the finding
        stuck = f"Railpost's own play stopped: {type(err).__name__}: {err}"[:400]
        finished = False
    session = held[0]
    record: dict[str, Any] = session.to_record()
    Path(out).write_text(json.dumps(record), encoding="utf-8")
    print(json.dumps({"actions": len(record["actions"]), "finished": finished, "stuck": stuck}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

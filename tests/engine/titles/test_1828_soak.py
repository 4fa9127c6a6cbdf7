"""1828 random-play soak: seeded random choices among `game.legal_actions()` (tests/engine/randomplay.py)
play whole 1828.Games games (12 in `make test`, 200 in `make soak`), 3 to 5 players, through `GameSession.submit`, with the money, certificate
and market invariants checked after every action. Every game must reach its end (the red cell, the last
phase's operating rounds or a bankruptcy) without a refused offer and without backing out of a dead end.

The bot buys most trains from the bank (`DEPOT_PREFERENCE`): picked uniformly, purchases between
corporations at $1 dominate the offers and trains circle between treasuries for thousands of actions.
SOAK_1828=N runs another number of games.
"""

from __future__ import annotations

import os
import pickle
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import randomplay  # noqa: E402

from shared.engine import GameSession  # noqa: E402
from shared.engine.errors import EngineError  # noqa: E402

GAMES = int(os.environ.get("SOAK_1828", "12"))  # `make soak` plays 200
MAX_ACTIONS = 8000
# the shared weights, plus 1828's own types: bidding moves the auction on, mergers and train swaps are rarer
WEIGHTS = {**randomplay.WEIGHTS, "bid": 4.0, "choose": 0.5, "merge": 3.0, "swap_train": 0.3, "bankrupt": 0.2,
           "failed_merge": 0.05}
DEPOT_PREFERENCE = 0.8
ENDS = {"stock_market", "final_phase", "bankrupt"}


def options(seed: int) -> list[str]:
    """Every player count is played with and without ensure_good_privates (seeds 0-2 without, 3-5 with...)."""
    return ["ensure_good_privates"] if (seed // 3) % 2 else []


def play(seed: int) -> dict[str, Any]:
    players = 3 + seed % 3
    stats = randomplay.play("1828.Games", options(seed), players, seed, max_actions=MAX_ACTIONS,
                            weights=WEIGHTS, depot_preference=DEPOT_PREFERENCE)
    return {"seed": seed, "players": players, "options": tuple(options(seed)), "finished": stats.finished,
            "reason": stats.reason, "actions": stats.actions, "undos": stats.undos, "types": set(stats.by_type)}


def test_random_play_soak() -> None:
    with randomplay.pool() as pool:
        games = list(pool.map(play, range(GAMES)))
    assert len(games) == GAMES
    for game in games:
        assert game["finished"] and game["reason"] in ENDS, game
        assert game["undos"] == 0, f"seed {game['seed']}: a dead end was offered"
    assert {(g["players"], g["options"]) for g in games} == \
        {(n, o) for n in (3, 4, 5) for o in ((), ("ensure_good_privates",))} or GAMES < 6
    seen = set().union(*(g["types"] for g in games))
    assert {"bid", "par", "buy_shares", "lay_tile", "run_routes", "dividend", "buy_train"} <= seen, seen


def test_every_offer_is_accepted() -> None:
    """On one whole game, every 50th position has up to three offered actions of each type tried on a copy."""
    rng = random.Random(6)
    session = GameSession.new("1828.Games", [{"id": 1000 + i, "name": f"P{i}"} for i in range(1, 4)], 6, [])
    tried = 0
    while not session.finished:
        game = session.game
        if session.version % 50 == 0:
            blob = pickle.dumps(game, pickle.HIGHEST_PROTOCOL)
            by_type: dict[str, list[dict[str, Any]]] = {}
            for option in game.legal_actions():
                by_type.setdefault(option["type"], []).append(option)
            for group in by_type.values():
                for option in rng.sample(group, min(3, len(group))):
                    try:
                        pickle.loads(blob).process(option)
                    except EngineError as err:
                        raise AssertionError(f"offered {option} is refused: {err.rule}: {err}") from err
                    tried += 1
        offered: list[dict[str, Any]] = []
        for kind in sorted(game.action_types(), key=lambda t: -WEIGHTS.get(t, 1.0) * rng.random()):
            offered = game.legal_actions(kinds={kind})
            if offered:
                break
        assert offered, f"{game.action_types()} open in the {game.round.kind} round but nothing offered"
        session.submit(rng.choice(offered))
        assert session.version < MAX_ACTIONS
    assert tried > 20

"""The holders the read model stores (`GameSession.holders`) answer what `consent.taken_from` answers: for every
purchase offered at every position of seeded games of each title (privates from the bank, from players and
between corporations; trains from the depot and from other corporations), the players whose word it needs are
exactly the stored holder of what it buys, unless nobody or the mover holds it. The service's door decides by
the stored holders alone (services/play/moves.py), and asks the engine only when they name another player."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from shared.engine import GameSession
from shared.engine.consent import taken_from
from shared.engine.records import RANGE_HINTS

sys.path.insert(0, str(Path(__file__).resolve().parent))
import randomplay  # noqa: E402

GAMES = [("1825", 3, 11, 260), ("1828", 3, 4, 260), ("1840", 3, 11, 260), ("1833NE", 3, 12, 220)]
KINDS = {"buy_company": ("companies", "company"), "buy_train": ("trains", "train")}


def _by_holders(session: GameSession, action: dict[str, Any]) -> list[int]:
    kind, field = KINDS[action["type"]]
    holder = session.holders()[kind].get(action.get(field))
    mover = session.controller(action.get("entity"))
    return [] if holder is None or holder == mover else [holder]


@pytest.mark.parametrize("title,players,seed,moves", GAMES)
def test_the_stored_holders_name_whose_holding_a_purchase_takes(title: str, players: int, seed: int,
                                                                moves: int) -> None:
    session = GameSession.new(title, [{"id": 1000 + i, "name": f"P{i}"} for i in range(1, players + 1)], seed,
                              [], seed)
    rng = random.Random(seed)
    checked = taking = 0
    for _ in range(moves):
        if session.finished:
            break
        game = session.game
        pool = [o for p in sorted(game.acting_players()) for o in game.legal_actions_of(p, orders=False)
                if o.get("type") != "end_game"]
        for offer in pool:
            if offer.get("type") in KINDS:
                action = {k: v for k, v in offer.items() if k not in RANGE_HINTS}
                expected = taken_from(session.game, action)
                assert _by_holders(session, action) == expected, (session.version, action)
                checked += 1
                taking += bool(expected)
        session.submit(randomplay.random_move(pool, rng))
    assert checked > 0
    print(f"{title}: {checked} purchases offered, {taking} from another player")

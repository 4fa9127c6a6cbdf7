"""Who the game names is who can move, at every position of seeded games played the way a REST client plays
them (only what the named players are offered): the players `acting_players` names are exactly the players
controlling a move offered for the acting entities, and each of them is offered a move of the turn
(`legal_actions_of`): `randomplay.check_who_acts` in full, the same check as ../shared/tools/acting_check.py.
`make test` plays a few games of every title (the positions that once disagreed included: an 1828 merger
started with another player's corporation, 1828's C&P minor acting under the symbol its private shares)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from shared.engine import GameSession

sys.path.insert(0, str(Path(__file__).resolve().parent))
import randomplay  # noqa: E402

GAMES = [("1828", 3, 4, 300), ("1828", 3, 7003, 300), ("1828", 4, 7001, 600), ("1825", 3, 11, 250),
         ("1840", 3, 11, 250), ("1833NE", 3, 12, 200)]


@pytest.mark.parametrize("title,players,seed,moves", GAMES)
def test_the_players_named_are_the_players_who_can_move(title: str, players: int, seed: int, moves: int) -> None:
    session = GameSession.new(title, [{"id": 1000 + i, "name": f"P{i}"} for i in range(1, players + 1)], seed,
                              [], seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if session.finished:
            break
        turn = randomplay.check_who_acts(session, full=True)
        session.submit(randomplay.random_move([o for p in sorted(turn) for o in turn[p]], rng))

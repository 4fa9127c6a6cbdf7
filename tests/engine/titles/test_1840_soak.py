"""1840 random-play soak: seeded random choices among `game.legal_actions()` play whole games (2-6 players and
the 3-player small map) through `GameSession.submit`, checking the title's invariants after every action.

- money: the bank is unlimited, so what it creates or destroys is tracked explicitly (its change from the
  start); every player and company holds a non-negative amount, and player loans only grow in units of 100;
- certificates: 100% of every company is held by players, the company itself or the market;
- limits: at most 60% of a Tram Company or Stadtbahn per player, the certificate limit, at most three lines
  per Tram Company (each line owned once), one directorship per player, one tram per line and at most the
  phase's tram limit per Tram Company;
- `legal_actions` offers only what `submit` accepts: every chosen action is submitted (a refusal fails the
  test) and, at a sampled few states per game, offered actions of every type are tried on a copy of the game;
- no game can get stuck (issue 15): every accepted action changes the state digest (beyond its id) or the
  round's own state (choosing a line to auction shows nowhere in the digest), or ends the game; somebody can
  always act, and every game reaches its fixed end.
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
from shared.engine.model import POOL  # noqa: E402

GAMES = int(os.environ.get("SOAK_1840", "24"))  # `make soak` plays 200
CONFIGS = [(2, []), (3, []), (3, ["three_player_small"]), (4, []), (5, []), (6, [])]
# leaning towards what moves a game on; every type keeps a chance
WEIGHTS = {"par": 6.0, "buy_shares": 3.0, "sell_shares": 0.4, "pass": 1.0, "bid": 2.0, "merge": 3.0,
           "lay_tile": 2.5, "place_token": 1.5, "remove_token": 0.3, "run_routes": 10.0, "dividend": 5.0,
           "buy_train": 4.0, "scrap_train": 0.3, "reassign_trains": 2.0, "buy_company": 0.5, "choose": 1.0}
CHECK_ALL_EVERY = 40  # about one state in this many has its offered actions tried on a copy ...
SAMPLE = 6  # ... at most this many of each type


def players(n: int) -> list[dict[str, Any]]:
    return [{"id": 101 + i, "name": f"P{i + 1}"} for i in range(n)]


def held_money(session: GameSession) -> int:
    game = session.game
    return sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations.values())


def check_invariants(session: GameSession, start: dict[str, Any]) -> None:
    game = session.game
    created = start["bank"] - game.bank_cash  # what the unlimited bank paid out net, loans included
    assert held_money(session) == start["held"] + created, "money appeared or vanished outside the bank"
    for player in game.players:
        assert player.cash >= 0, f"{player.name} has {player.cash}"
        loans = game.title_state.loans[player.id]
        assert loans % 100 == 0 and loans >= start["loans"].get(player.id, 0), "loans come in 100s and stay"
        start["loans"][player.id] = loans
        assert game.num_certs(player) <= game.rules.cert_limit(game) or game.round.kind != "Stock"
    ids = {p.id for p in game.players}
    extra = game.title_state
    majors = game.rules.majors(game)  # type: ignore[attr-defined]
    for corp in game.corporations.values():
        assert corp.cash >= 0, f"{corp.sym} has {corp.cash}"
        assert sum(s.percent for s in corp.shares) == 100, corp.sym
        allowed = ids | {corp.sym, POOL} | ({None} if corp.closed else set())
        assert {s.owner for s in corp.shares} <= allowed, corp.sym
        if corp.kind != "minor":
            for pid in ids:
                assert corp.percent_owned_by(pid) <= 60, f"player {pid} holds over 60% of {corp.sym}"
        else:
            assert len(corp.trains) <= 1, f"line {corp.sym} runs {len(corp.trains)} trams"
    owned = [s for lines in extra.owned_lines.values() for s in lines]
    assert len(owned) == len(set(owned)), "a line has two owners"
    for major in majors:
        lines = extra.owned_lines[major.sym]
        assert len(lines) <= 3, f"{major.sym} owns {len(lines)} lines"
        trams = len(major.trains) + sum(len(game.corporations[s].trains) for s in lines)
        assert trams <= game.phase.train_limit, f"{major.sym} has {trams} trams"
    directors = [m.president for m in majors if m.ipoed and m.president is not None]
    assert len(directors) == len(set(directors)), "a player directs two Tram Companies"


def fingerprint(session: GameSession) -> tuple[dict[str, Any], bytes]:
    """The state an action must change: the digest and the current round's own state."""
    return session.digest(), pickle.dumps(sorted(vars(session.game.round).items(), key=lambda kv: kv[0]))


def check_offers(session: GameSession, offered: list[dict[str, Any]], rng: random.Random) -> int:
    """Try offered actions on a copy of the game: each must be accepted (tile lays and tram reassignments
    come in the hundreds: a few of each are tried)."""
    blob = pickle.dumps(session.game, pickle.HIGHEST_PROTOCOL)
    by_type: dict[str, list[dict[str, Any]]] = {}
    for option in offered:
        by_type.setdefault(option["type"], []).append(option)
    sample = [o for group in by_type.values() for o in rng.sample(group, min(len(group), SAMPLE))]
    for option in sample:
        trial = pickle.loads(blob)
        try:
            trial.process(option)
        except EngineError as err:
            raise AssertionError(f"offered {option} is refused: {err.rule}: {err}") from err
    return len(sample)


def play(seed: int) -> dict[str, Any]:
    """One seeded random game to its end; returns a summary (raises on any broken invariant)."""
    n, options = CONFIGS[seed % len(CONFIGS)]
    rng = random.Random(seed)
    session = GameSession.new("1840", players(n), seed, options)
    try:
        game = session.game
        start = {"bank": game.bank_cash, "held": held_money(session), "loans": {}}
        actions = tried = 0
        types_seen: set[str] = set()
        while not session.finished:
            game = session.game
            types = game.action_types()
            assert types, f"seed {seed}: nobody can act in the {game.round.kind} round"
            if rng.randrange(CHECK_ALL_EVERY) == 0:
                tried += check_offers(session, game.legal_actions(), rng)
            offered: list[dict[str, Any]] = []
            for kind in sorted(types, key=lambda t: -WEIGHTS.get(t, 1.0) * rng.random()):
                offered = game.legal_actions(kinds={kind})
                if offered:
                    break
            assert offered, f"seed {seed}: {types} open in the {game.round.kind} round but none offered"
            action = rng.choice(offered)
            before = fingerprint(session)
            try:
                session.submit(action)
            except EngineError as err:
                raise AssertionError(f"seed {seed}: offered {action} refused: {err.rule}: {err}") from err
            actions += 1
            assert session.finished or fingerprint(session) != before, f"seed {seed}: {action} changed nothing"
            types_seen.add(action["type"])
            check_invariants(session, start)
            randomplay.check_who_acts(session)
            assert actions < 5000, f"seed {seed}: no end in sight"
        result = session.result or {}
        loans = sum(session.game.title_state.loans.values())
        return {"seed": seed, "players": n, "options": options, "actions": actions, "tried": tried,
                "types": types_seen, "reason": session.game.game_end_reason, "result": result, "loans": loans}
    finally:  # with SOAK_EXPORT_DIR set, the record of every game (a reverse-check input)
        randomplay.export_game(session, "1840", options, n, seed)


def test_random_play_soak() -> None:
    with randomplay.pool() as pool:
        games = list(pool.map(play, range(GAMES)))
    assert len(games) == GAMES
    assert all(g["reason"] == "fixed_round" for g in games)
    assert {(g["players"], tuple(g["options"])) for g in games} == {(n, tuple(o)) for n, o in CONFIGS}
    seen = set().union(*(g["types"] for g in games))
    # the soak reaches every kind of decision 1840 has
    assert {"bid", "choose", "par", "buy_shares", "sell_shares", "merge", "buy_train", "reassign_trains",
            "lay_tile", "place_token", "run_routes", "dividend", "pass"} <= seen, seen
    assert sum(g["tried"] for g in games) > 0

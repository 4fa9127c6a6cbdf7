"""Seeded random play among `legal_actions`, with invariant checks after every action.

Not a strategy: weights only steer the bot towards the actions that move a game forward (start and buy
corporations, build, run, pay, buy trains) so that random games reach their end.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared.engine import GameSession
from shared.engine.model import POOL
from shared.engine.records import RANGE_HINTS

WEIGHTS = {
    "par": 6.0, "buy_shares": 8.0, "buy_company": 4.0, "sell_shares": 0.15, "sell_company": 0.1, "pass": 1.0,
    "lay_tile": 6.0, "place_token": 3.0, "run_routes": 20.0, "dividend": 10.0, "buy_train": 8.0,
    "discard_train": 1.0, "special_buy": 0.5,
}



def pool(workers: int = 2) -> ProcessPoolExecutor:
    """Worker processes for the soaks, started fresh (spawn), never forked: the test process holds other
    tests' embedded apps with SQLite connections and threads, and a forked child that garbage-collects a
    connection whose mutex another thread held at the fork waits forever (seen: the 1828 soak hung in CI)."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


@dataclass
class PlayStats:
    actions: int = 0
    finished: bool = False
    reason: str | None = None
    undos: int = 0
    by_type: dict[str, int] = field(default_factory=dict)


def total_money(session: GameSession) -> int:
    game = session.game
    return game.bank_cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations.values())


def in_transit(session: GameSession) -> set[Any]:
    """Holders of certificates on their way out while an 1828 merger runs: the merger's markers and the
    treasuries the exchanges trade through."""
    merger = getattr(session.game.round, "merger", None)
    if merger is None:
        return set()
    from shared.engine.titles.g1828.exchange import DISCARD, USED

    return {USED, DISCARD, merger.initiator, merger.target, merger.system}


def check_invariants(session: GameSession, money: int, totals: dict[str, int] | None = None) -> None:
    """`totals` remembers each corporation's certificate total the first time it is seen (100% for most;
    a minor without certificates has none, a merged system its own): it may never change."""
    game = session.game
    assert total_money(session) == money, "money is neither created nor destroyed"
    players = {p.id for p in game.players}
    for corp in game.corporations.values():
        owners = {s.owner for s in corp.shares}
        allowed = players | {corp.sym, POOL} | ({None} if corp.closed else set()) | in_transit(session)
        assert owners <= allowed, f"{corp.sym} certificates held by unknown owners {owners - allowed}"
        total = sum(s.percent for s in corp.shares)
        if totals is None:
            assert total == 100
        else:
            assert totals.setdefault(corp.sym, total) == total, f"{corp.sym} certificates changed"
        if not corp.closed:
            assert corp.percent_owned_by(POOL) <= game.rules.market_share_limit(game)
            assert corp.cash >= 0
    for player in game.players:
        assert player.cash >= 0, f"{player.name} has negative cash"


def posted(offer: dict[str, Any]) -> dict[str, Any]:
    """An offer as a client posts it: without its range, a negotiated price at its lowest."""
    action = {k: v for k, v in offer.items() if k not in RANGE_HINTS}
    if "price" in offer and isinstance(offer.get("min"), int):
        action["price"] = offer["min"]
    return action


def random_move(pool: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """One of the offers, a pass one time in four at the most, as a client posts it (`posted`)."""
    non_pass = [a for a in pool if a.get("type") != "pass"]
    return posted(rng.choice(non_pass) if non_pass and rng.random() < 0.75 else rng.choice(pool))


def check_who_acts(session: GameSession, full: bool = False) -> dict[int, list[dict[str, Any]]]:
    """Who the game names is who can move: the players `acting_players` names (what the API, the page, the
    turn mail and the clocks tell people) are exactly the players controlling a move offered for the acting
    entities. By default a run's suggested routes are left out of the expansion (the costly offer; its
    entity is always the acting corporation itself). With `full`, every offer is expanded and each named
    player must also be offered a move of the turn (`legal_actions_of`): returns those moves by player."""
    game = session.game
    if game.finished:
        return {}
    named = set(game.acting_players())
    owners: set[int] = set()
    for entity in game.acting():
        open_ = set(game.round.actions_for(game, entity))
        kinds = open_ if full else open_ - {"run_routes"}
        offered = game.legal_actions(entity) if full else game.legal_actions(entity, kinds) if kinds else []
        owners |= {game.controller(o.get("entity"), o.get("entity_type")) for o in offered} - {None}
        if "run_routes" in open_ - kinds:  # the acting corporation's president runs it
            owners |= {game.controller(entity)} - {None}
    where = f"after action {session.next_id() - 1}"
    assert named == owners, (f"{where} the game names {sorted(named)} but the moves offered for {game.acting()} "
                             f"belong to {sorted(owners)}")
    if not full:
        return {}
    turn = {p: [o for o in game.legal_actions_of(p, orders=False) if o.get("type") != "end_game"] for p in named}
    assert all(turn.values()), f"{where} named with nothing offered: {[p for p, m in turn.items() if not m]}"
    return turn


class SoftLock(AssertionError):
    """The game is not over but the acting entities are offered no legal action."""


def soft_lock_report(session: GameSession, title: str, options: list[str], players: int, seed: int) -> str:
    game = session.game
    acting = game.acting()
    entity = acting[0] if acting else None
    corp = game.corporations.get(entity) if isinstance(entity, str) else None
    where = f"{game.round.kind} round, phase {game.phase.name}"
    held = f"; {entity} has ${corp.cash}, trains {[t.name for t in corp.trains]}" if corp is not None else ""
    return (f"soft-lock: {title} {options} {players}p seed {seed}, after action {session.next_id() - 1}: "
            f"{where}, acting {acting} (types {game.action_types()}) offered no legal action{held}")


def export_game(session: GameSession, title: str, options: list[str], players: int, seed: int) -> None:
    """With SOAK_EXPORT_DIR set, the game's 18xx.games record goes there (a reverse-check input:
    /work/shared/oracle/tools/trace.rb REC.json OUT.trace.jsonl.gz --live)."""
    directory = os.environ.get("SOAK_EXPORT_DIR")
    if not directory:
        return
    name = "_".join([title.replace(".", ""), *options, f"{players}p", str(seed)]) + ".json"
    path = Path(directory) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(session.to_record()), encoding="utf-8")


def play(title: str, options: list[str], players: int, seed: int, max_actions: int = 4000,
         weights: dict[str, float] | None = None, depot_preference: float = 0.0,
         on_start: Callable[[GameSession], None] | None = None) -> PlayStats:
    """`weights` replaces WEIGHTS for a title with action types of its own; `depot_preference` is the
    chance that a train purchase is redrawn among the bank's trains; `on_start` is handed the session before
    the first move (bench.campaign exports the game, even one that stopped on a broken invariant). After every
    move of a game that goes on someone must be offered a legal move (else SoftLock); with SOAK_EXPORT_DIR set
    the game's record is written there, also when the game fails."""
    session = GameSession.new(title, [{"id": 1000 + i, "name": f"P{i}"} for i in range(1, players + 1)], seed,
                              options)
    if on_start is not None:
        on_start(session)
    try:
        return _play(session, title, options, players, seed, max_actions, weights, depot_preference)
    finally:
        export_game(session, title, options, players, seed)


def _play(session: GameSession, title: str, options: list[str], players: int, seed: int, max_actions: int,
          weights: dict[str, float] | None, depot_preference: float) -> PlayStats:
    weights = WEIGHTS if weights is None else weights
    rng = random.Random(seed)
    money = total_money(session)
    stats = PlayStats()
    totals: dict[str, int] = {}
    while not session.finished and stats.actions < max_actions:
        action = choose(session.game, rng, weights, depot_preference)
        if action is None:
            # nobody is offered a move although the game goes on: a soft-lock (a player of the real game
            # could only undo). Asserted, never backed out of: the rule that leaves it is what is missing.
            raise SoftLock(soft_lock_report(session, title, options, players, seed))
        session.submit(action)
        stats.actions += 1
        stats.by_type[action["type"]] = stats.by_type.get(action["type"], 0) + 1
        check_invariants(session, money, totals)
        check_who_acts(session)
    stats.finished = session.finished
    stats.reason = session.game.game_end_reason
    return stats


def choose(game: Any, rng: random.Random, weights: dict[str, float], depot_preference: float) -> dict[str, Any] | None:
    """One weighted random legal move (None: nothing is offered). Kinds are tried in a weighted random
    order; a dividend is mostly a payout, and a train mostly comes from the bank, so that phases move on
    instead of trains circling between corporations."""
    for kind in sorted(game.action_types(), key=lambda t: -weights.get(t, 1.0) * rng.random()):
        options = game.legal_actions(kinds={kind})
        if not options:
            continue
        action: dict[str, Any] = rng.choice(options)
        if action["type"] == "dividend" and rng.random() < 0.85:
            action = next((o for o in options if o.get("kind") == "payout"), action)
        if action["type"] == "buy_train" and rng.random() < depot_preference:
            depot = [o for o in options if game.depot.by_id(o["train"]).owner is None]
            action = rng.choice(depot) if depot else action
        return action
    return None


def run(args: Any = None) -> None:  # pragma: no cover - manual exploration helper
    import sys

    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    print(play("1825", ["unit_1"], 3, seed))


if __name__ == "__main__":  # pragma: no cover
    run()

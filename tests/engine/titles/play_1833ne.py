"""Drivers that play 1833NE through `GameSession.submit`: a seeded random player (the soak) and a greedy
scripted player (the golden games). Both choose only among the concrete options the steps list."""

from __future__ import annotations

import random
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shared.engine import GameSession
from shared.engine.legal import legal_actions
from shared.engine.model import POOL
from shared.engine.titles.g1833ne.steps.track import BuildStep
from shared.engine.titles.g1833ne.steps.trains import TrainStep

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from randomplay import check_who_acts  # noqa: E402

Policy = Callable[[GameSession, list[dict[str, Any]], random.Random], dict[str, Any]]
TITLE = "1833NE"


def players(n: int) -> list[dict[str, Any]]:
    return [{"id": i + 1, "name": f"Player {i + 1}"} for i in range(n)]


def random_policy(session: GameSession, options: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Random, but leaning towards play that moves the game on (otherwise the bank never breaks)."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for option in options:
        by_type.setdefault(option["type"], []).append(option)
    weights = {"par": 3, "buy_shares": 4, "sell_shares": 1, "buy_company": 1, "pass": 2, "lay_tile": 4,
               "place_token": 2, "special_buy": 1, "buy_train": 6, "run_routes": 10, "dividend": 10,
               "discard_train": 1, "bankrupt": 1, "merge": 2, "choose": 2}
    kinds = sorted(by_type)
    kind = rng.choices(kinds, [weights.get(k, 1) for k in kinds])[0]
    return rng.choice(by_type[kind])


def _reserve(game: Any, corp: Any) -> int:
    if not TrainStep.must_buy_train(game, corp):
        return 0
    cheapest = TrainStep.cheapest(game)
    return cheapest[1] if cheapest else 0


def _cost(game: Any, option: dict[str, Any]) -> int:
    kind = option["type"]
    if kind == "lay_tile":
        if option.get("ability"):
            return 0
        return 20 + game.board.check_lay(option["entity"], option["hex"], option["tile"], option["rotation"],
                                         set(game.phase.tiles), must_connect=False).cost
    if kind == "place_token":
        corp = game.corporations[option["entity"]]
        return BuildStep.station_price(game, corp, option["city"])
    if kind in ("special_buy", "buy_company"):
        return option.get("cost") or option.get("price") or 0
    return 0


def greedy_policy(session: GameSession, options: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A deterministic-by-seed 'sensible' player used for the scripted games: keeps money for trains,
    launches at most two corporations per player, pays out."""
    game = session.game
    order = ["bankrupt", "discard_train", "run_routes", "choose", "buy_train", "place_token", "lay_tile", "par",
             "buy_shares", "dividend", "special_buy", "buy_company", "merge", "pass", "sell_shares"]
    for kind in order:
        found = [o for o in options if o["type"] == kind]
        if not found:
            continue
        entity = found[0]["entity"]
        if kind in ("lay_tile", "place_token", "special_buy", "buy_company") and isinstance(entity, str):
            corp = game.corporations[entity]
            budget = corp.cash - _reserve(game, corp) - 100
            found = [o for o in found if _cost(game, o) <= budget]
            if not found or rng.random() < 0.3:
                continue
            return found[rng.randrange(len(found))]
        if kind == "dividend":
            return next((o for o in found if o["kind"] == "payout"), found[0])
        if kind == "buy_shares":
            players_only = [o for o in found if isinstance(o["entity"], int)]
            if not players_only or rng.random() < 0.15:
                continue
            return players_only[rng.randrange(len(players_only))]
        if kind == "buy_company" and (rng.random() < 0.5 or game.player(entity).cash < 150):
            continue
        if kind == "buy_train":
            corp = game.corporations[entity]
            if not TrainStep.must_buy_train(game, corp) and (len(corp.trains) >= 2 or rng.random() < 0.3):
                continue
            depot = [o for o in found if o.get("variant")]
            return max(depot or found, key=lambda o: o.get("price", 0))
        if kind == "par":
            player = game.player(entity)
            mine = sum(1 for c in game.corporations.values() if c.president == player.id)
            if mine >= 2:
                continue
            affordable = [o for o in found if int(o["share_price"].split(",")[0]) * 2 <= player.cash * 2 // 3]
            if not affordable:
                continue
            return affordable[rng.randrange(len(affordable))]
        if kind == "merge":
            if rng.random() < 0.5:
                continue
            return found[0]
        if kind == "choose":
            return found[rng.randrange(len(found))]
        if kind == "sell_shares":
            continue
        return found[0]
    return options[-1]


def play(seed: int, n_players: int, optional_rules: list[str] | None = None, policy: Policy = random_policy,
         max_actions: int = 20000, check: Callable[[GameSession], None] | None = None) -> GameSession:
    session = GameSession.new(TITLE, players(n_players), seed=seed, optional_rules=optional_rules or [])
    rng = random.Random(seed)
    for _ in range(max_actions):
        if session.finished:
            break
        options = legal_actions(session.game)
        assert options, f"no options for {session.game.acting()} in {type(session.game.round).__name__}"
        action = policy(session, options, rng)
        session.submit(action)
        if check is not None:
            check(session)
    return session


# the money in play when a session was first checked (by the session's id, dropped with the session): it
# never changes, since no money is made or lost
_MONEY_AT_START: dict[int, int] = {}


def _money_at_start(session: GameSession, money: int) -> int:
    key = id(session)
    if key not in _MONEY_AT_START:
        _MONEY_AT_START[key] = money
        weakref.finalize(session, _MONEY_AT_START.pop, key, None)
    return _MONEY_AT_START[key]


def check_invariants(session: GameSession) -> None:
    game = session.game
    money = game.bank_cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations.values())
    start = _money_at_start(session, money)
    assert money == start, f"money not conserved: {money} != {start}"
    limit = game.rules.cert_limit(game)
    for corp in game.corporations.values():
        assert sum(s.percent for s in corp.shares) == 100
        if corp.closed:
            continue
        assert corp.percent_owned_by(POOL) <= 50 or any(p.bankrupt for p in game.players), corp.sym
        for p in game.players:
            assert corp.percent_owned_by(p.id) <= 60, (corp.sym, p.id)
        assert corp.cash >= 0
    for p in game.players:
        assert p.cash >= 0
    del limit
    check_who_acts(session)


SCRIPTED = {"standard_4p_seed1": (1, 4, []), "takeover_4p_seed3": (3, 4, ["takeover_game"])}


def write_fixtures(directory: str) -> None:
    """Regenerate the scripted golden games: `python -m tests.engine.titles.play_1833ne <dir>`."""
    import json
    from pathlib import Path

    for name, (seed, n, options) in SCRIPTED.items():
        session = play(seed, n, options, policy=greedy_policy)
        assert session.finished
        record = session.to_record()
        record["id"] = name
        Path(directory, f"{name}.json").write_text(json.dumps(record, separators=(",", ":")) + "\n")


def rerecord(directory: str) -> None:
    """Carry the golden games over a rule change: replay each one's actions while the engine accepts them,
    then finish it with the greedy player (`python -m tests.engine.titles.play_1833ne --rerecord <dir>`).
    Unlike `write_fixtures`, the game up to the change stays the recorded one."""
    import json
    from pathlib import Path

    from shared.engine.errors import EngineError

    for name, (seed, n, options) in SCRIPTED.items():
        path = Path(directory, f"{name}.json")
        old = json.loads(path.read_text())
        session = GameSession.new(TITLE, players(n), seed=seed, optional_rules=options)
        for action in old["actions"]:
            try:
                session.submit({k: v for k, v in action.items() if k != "id"})
            except EngineError:
                break
        rng = random.Random(seed)
        while not session.finished:
            session.submit(greedy_policy(session, legal_actions(session.game), rng))
        record = session.to_record()
        record["id"] = name
        path.write_text(json.dumps(record, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    import sys

    if sys.argv[1] == "--rerecord":
        rerecord(sys.argv[2])
    else:
        write_fixtures(sys.argv[1])

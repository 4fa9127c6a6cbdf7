"""Walk a recorded 1825 game against its golden trace, checking every surviving board action."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conftest import CONFORMANCE, GAMES, load_json, load_trace

from shared.engine.board import Board, kinds_from_setup
from shared.engine.errors import EngineError
from shared.engine.session import final_active_flags
from shared.engine.titles import rules_for


@dataclass
class Tally:
    lays: int = 0
    lays_ok: int = 0
    tokens: int = 0
    tokens_ok: int = 0
    runs: int = 0
    runs_ok: int = 0
    routes: int = 0
    routes_ok: int = 0
    digests_ok: int = 0
    failures: list[str] = field(default_factory=list)
    survivors: int = 0
    board: Any = None
    phase: str = ""
    colors: list[str] = field(default_factory=list)
    kinds: dict = field(default_factory=dict)


def setup_for(title: str, optional_rules: list[str]) -> dict | None:
    meta = load_json(GAMES / title / "meta.json")
    want = sorted(optional_rules)
    for conf in meta["configurations"]:
        if sorted(conf["optional_rules"]) == want:
            return load_json(GAMES / title / conf["setup_file"])
    return None


def new_board(title: str, setup: dict) -> Board:
    rules = rules_for(title).board_rules(GAMES / title)  # the title's own knobs and route rules
    return Board.load(GAMES / title, setup["map_file"], setup, rules)


def walk(fixture: Path, *, board_hook=None, stop_before: int | None = None) -> Tally:
    record = load_json(fixture)
    title = record["title"]
    setup = setup_for(title, record["settings"].get("optional_rules") or [])
    assert setup is not None, f"no configuration for {record['settings']}"
    trace = load_trace(Path(str(fixture).replace(".json", ".trace.jsonl.gz")))
    start = load_json(Path(str(fixture).replace(".json", ".setup.json")))
    board = new_board(title, setup)
    phases = {p["name"]: p["tiles"] for p in setup["phases"]}
    kinds = kinds_from_setup(setup["trains"])
    homes = {c["sym"]: c for c in setup["corporations"] + setup.get("minors", [])}
    actions = record["actions"]
    alive = final_active_flags(actions)
    tally = Tally()
    prev = start
    tally.board = board
    tally.survivors = sum(alive)
    for i, action in enumerate(actions):
        line = trace[i]
        if stop_before is not None and action["id"] == stop_before:
            tally.phase = prev["phase"]
            tally.colors = phases[prev["phase"]]
            tally.kinds = kinds
            return tally
        if not alive[i]:
            continue
        entity = action.get("entity")
        colors = phases[prev["phase"]]
        kind = action["type"]
        try:
            if kind == "lay_tile":
                tally.lays += 1
                board.check_lay(entity, action["hex"], action["tile"], action["rotation"], colors)
                tally.lays_ok += 1
            elif kind == "place_token":
                tally.tokens += 1
                board.check_token(entity, action["city"], action["slot"])
                tally.tokens_ok += 1
            elif kind == "run_routes" and action["routes"]:
                tally.runs += 1
                tally.routes += len(action["routes"])
                got = board.route_revenues(entity, action["routes"], kinds, colors, prev["phase"])
                want = [r["revenue"] for r in action["routes"]]
                ok = sum(1 for g, w in zip(got, want, strict=True) if g == w)
                tally.routes_ok += ok
                if ok == len(want):
                    tally.runs_ok += 1
                else:
                    tally.failures.append(f"{fixture.name} id {action['id']}: revenues {got} != {want}")
                if board_hook:
                    board_hook(board, action, kinds, colors, prev["phase"])
        except EngineError as err:
            tally.failures.append(f"{fixture.name} id {action['id']} {kind}: {err.message}")
        # apply (trusted) and sync home tokens from the trace
        if kind == "lay_tile":
            board.lay(action["hex"], action["tile"], action["rotation"])
        elif kind == "place_token":
            board.place_token(entity, action["city"], action["slot"])
        for sym in prev["corporations"]:
            if sym not in line["corporations"] or line["corporations"][sym].get("closed"):
                if board.token_hexes(sym):
                    board.remove_tokens(sym)
        for sym, corp in line["corporations"].items():
            mine = board.token_hexes(sym)
            want_tokens = list(corp["tokens"])
            if len(want_tokens) < len(mine):
                board.remove_tokens(sym)
                mine = []
            for hex_id in mine:
                if hex_id in want_tokens:
                    want_tokens.remove(hex_id)
            for hex_id in want_tokens:
                home = homes.get(sym) or {}
                board.place_home_token(sym, hex_id, home.get("home_city_index") if home.get("home") == hex_id else None)
        if board.digest_tiles() == line["tiles"]:
            tally.digests_ok += 1
        elif kind == "lay_tile":
            tally.failures.append(f"{fixture.name} id {action['id']}: tiles differ")
        prev = line
    return tally


FIXTURES_1825 = [
    CONFORMANCE / "1825" / "1825_game_end_bank.json",
    CONFORMANCE / "1825" / "1825_game_end_stock_market.json",
    CONFORMANCE / "generated" / "1825" / "gen1825_unit1_3p_482113.json",
    CONFORMANCE / "generated" / "1825" / "gen1825_unit1_r1_3p_715733.json",
]

"""REST is live mode: play a public game move by move through the API and compare the state digest the
server stores after every move with the golden trace (the same comparison as `shared.conformance`).

Each recorded action is posted as a client would post it (`shared.engine.session.as_posted`, the same shape
`railpost replay --live` submits: no id, no recorded `auto_actions`; an undo names the server's id of its
target), so the server derives every standing order's consequence
itself, exactly as `railpost replay --live`. Works against the embedded default in-process (SQLite and the
in-process queue, `embedded_call`) or any running gateway (`http_call`: PostgreSQL, Redis and Celery workers).

Import-then-continue (`--import-at random`): each game's first actions, up to a point drawn from `--seed`
and its name, are imported (`POST /games/import`) and the rest is played on over REST with the seat tokens
the import answers, each move by the player who made it, as a table that moved its running game here would;
the state after the import and after every later move must equal the golden trace (docs/conformance.md).

usage: python -m bench.rest_conformance [--title 1828] [--only SUBSTRING] [--url URL --admin TOKEN]
                                        [--import-at random [--seed N] [--operator]]
Exit 0 when every game chosen matches every line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from services.play.apply import READ_MODEL_EXTRAS
from shared.conformance import Outcome, discover, first_diff, fixture_paths, load_trace
from shared.engine.records import META_TYPES
from shared.engine.session import UndoWalk, as_posted, final_active_flags

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance"
UNCOMPARED = frozenset({"action_id", *READ_MODEL_EXTRAS})  # the server's ids and read-model extras
LAST_ACTION = frozenset({"type"})  # what a digest line says of the action that led to it

Call = Callable[..., tuple[int, Any]]  # (method, path, json=..., headers=...) -> (status, body); admin token


def embedded_call(directory: Path) -> tuple[Call, Callable[[], None]]:
    """The embedded default app (SQLite in `directory`, the in-process queue), called in-process as admin.
    Returns (call, close)."""
    from services.config import Config
    from services.gateway import create_app
    from shared.eventstore import migrate

    url = f"sqlite:///{directory / 'rest-conformance.sqlite3'}"
    migrate(url)
    app = create_app(Config(database_url=url, redis_url=None, admin_token="rest-conformance",
                            snapshot_every=50, sweep_interval_seconds=0.5, log_level="WARNING"))
    client = app.test_client()

    def call(method: str, path: str, **kw: Any) -> tuple[int, Any]:
        headers = {"Authorization": "Bearer rest-conformance", **kw.pop("headers", {})}
        reply = client.open(path, method=method, headers=headers, **kw)
        return reply.status_code, reply.get_json(silent=True)

    def close() -> None:  # the in-process queue's thread, then the store
        runtime = app.extensions["railpost"]
        runtime.dispatcher.close()
        runtime.signals.close()
        closer = getattr(runtime.recorder, "close", None)
        if callable(closer):
            closer()

    return call, close


def http_call(base: str, admin_token: str) -> Call:
    """A running gateway over HTTP, called with the admin token."""
    import requests

    http = requests.Session()

    def call(method: str, path: str, **kw: Any) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {admin_token}", **kw.pop("headers", {})}
        reply = http.request(method, base + path, headers=headers, timeout=120, **kw)
        try:
            return reply.status_code, reply.json()
        except ValueError:
            return reply.status_code, None

    return call


def seated_game(call: Call, record: dict[str, Any]) -> int:
    """A started game with the record's set-up and players (bound to the record's ids)."""
    settings = record.get("settings") or {}
    # a record from 18xx.games was played with free undo: it is replayed under that rule
    status, made = call("POST", "/games", json={"title": record["title"], "seats": len(record["players"]),
                                                "seed": settings.get("seed") or 0, "undo": "free",
                                                "options": settings.get("optional_rules") or []})
    if status != 201:
        raise RuntimeError(f"create: {status} {made}")
    game_id = int(made["id"])
    for seat, player in enumerate(record["players"]):
        status, joined = call("POST", f"/games/{game_id}/join",
                              json={"name": player["name"], "seat": seat, "player_id": player["id"]})
        if status != 201:
            raise RuntimeError(f"join: {status} {joined}")
    status, started = call("POST", f"/games/{game_id}/start")
    if status != 200:
        raise RuntimeError(f"start: {status} {started}")
    return game_id


def check_rest(fixture: Path, call: Call, limit: int | None = None, export: Path | None = None) -> Outcome:
    """Post every action of the record (the first `limit`) and compare the stored digest after each with
    the golden trace; the set-up digest first, the result last. With `export` the game's record as
    `GET /games/{id}/export` answers it is written to that file (a reverse-check input for the reference)."""
    record = json.loads(fixture.read_text(encoding="utf-8"))
    trace_path, setup_path, _ = fixture_paths(fixture)
    trace = load_trace(trace_path)
    game_id = seated_game(call, record)
    if setup_path.exists():
        _, state = call("GET", f"/games/{game_id}/state")
        diff = first_diff(_plain(json.loads(setup_path.read_text(encoding="utf-8"))), _plain(state["digest"]))
        if diff:
            return Outcome(0, len(trace), f"set-up differs: {_describe(diff)}")
    return _play_on(call, game_id, record, trace, Position(record["actions"][:limit]), limit, export)


def check_import(fixture: Path, call: Call, at: int, limit: int | None = None, export: Path | None = None,
                 seats: bool = True) -> Outcome:
    """Import-then-continue: the record's first `at` actions imported as a new game (`POST /games/import`,
    as a table moving its running game here does), the state compared with the golden line of the last of
    them, then every further action (up to the first `limit`) posted as a live move and compared as
    `check_rest` compares it. With `seats` each move is posted with the seat token of the player who made
    it (an undo, redo or chat: its sender), as the table's players would post them (a move of an entity no
    player controls, as operator); else every move as operator."""
    record = json.loads(fixture.read_text(encoding="utf-8"))
    trace = load_trace(fixture_paths(fixture)[0])
    head = {k: record[k] for k in ("id", "title", "players", "settings") if k in record}
    status, made = call("POST", "/games/import", json={**head, "actions": record["actions"][:at]},
                        headers={"Idempotency-Key": uuid.uuid4().hex})
    if status != 201:
        return Outcome(0, len(trace), f"import of {at} actions answered {status}: {made}")
    game_id = int(made["game"]["id"])
    _, exported = call("GET", f"/games/{game_id}/export")
    position = Position(record["actions"][:limit])
    for index, (action, stored) in enumerate(zip(record["actions"][:at], exported["actions"], strict=True)):
        position.walk(index, action, stored.get("id"))
    if at:
        _, state = call("GET", f"/games/{game_id}/state")
        diff = first_diff(_plain(trace[at - 1], LAST_ACTION), _plain(state["digest"], LAST_ACTION))
        if diff:
            return Outcome(0, len(trace), f"imported at index {at}: {_describe(diff)}")
    tokens = {int(seat["player_id"]): str(seat["token"]) for seat in made["seats"]} if seats else {}
    return _play_on(call, game_id, record, trace, position, limit, export, tokens)


class Position:
    """Where a REST replay of a record stands: the record's undo/redo walk, the server's version and the
    server's id of each recorded move it holds (an undo names its target by that id), the moves refused
    that the record itself takes back later."""

    def __init__(self, actions: list[dict[str, Any]]) -> None:
        self.log = UndoWalk(actions)
        self.survivors = final_active_flags(actions)
        self.server_id: dict[Any, int] = {}
        self.stored = 0  # the server's version: the moves it holds
        self.taken_back: set[int] = set()  # refused moves the record itself undoes later: never on the server
        self.next = 0  # the record's next action to send

    def walk(self, index: int, action: dict[str, Any], server_id: int | None) -> None:
        """Action `index` is on the server with id `server_id` (None: not sent)."""
        self.next = index + 1
        if server_id is not None:
            self.stored += 1
            self.server_id[action.get("id")] = server_id
        self.log.apply(index, action)


def _play_on(call: Call, game_id: int, record: dict[str, Any], trace: list[dict[str, Any]], at: Position,
             limit: int | None, export: Path | None, tokens: dict[int, str] | None = None) -> Outcome:
    """Post the record's actions from where `at` stands (up to the first `limit`) and compare the stored
    digest after each with the golden trace; the result last. `tokens`: the seat token per player id to
    post each move with (empty or None: the operator's token)."""
    total = len(trace)
    actions = record["actions"][:limit]
    state: dict[str, Any] = {}
    for index in range(at.next, len(actions)):
        action = actions[index]
        where = f"action id {action.get('id')} (index {index}, {action.get('type')})"
        group = at.log.group(action)
        unsent = bool(group) and set(group) <= at.taken_back
        if unsent:
            at.walk(index, action, None)  # it takes back (or gives back) only refused moves: nothing to send
        else:
            if group and set(group) & at.taken_back:
                return Outcome(index - len(at.taken_back), total, f"{where}: takes back refused and stored moves")
            headers = {"Idempotency-Key": uuid.uuid4().hex}
            posted = as_posted(action, at.server_id)
            if tokens:
                if not state:
                    _, state = call("GET", f"/games/{game_id}/state")
                player = mover(action, state.get("digest") or {})
                if player in tokens:
                    headers["Authorization"] = f"Bearer {tokens[player]}"
                    if posted.get("type") not in META_TYPES:
                        posted.pop("user", None)  # who clicked: the seat posting it
            status, reply = call("POST", f"/games/{game_id}/actions?wait=30",
                                 json={"action": posted, "expected_version": at.stored}, headers=headers)
            if status != 200:
                reason = (reply or {}).get("reason") or (reply or {}).get("message") or reply
                if status == 422 and not at.survivors[index]:
                    # the record takes this move back later: refused here, the game carries on without it
                    # (live mode applies it trusted instead; docs/conformance.md, "Loading a record")
                    at.taken_back.add(index)
                    at.walk(index, action, None)
                    continue
                return Outcome(index - len(at.taken_back), total, f"{where} answered {status}: {reason}")
        _, state = call("GET", f"/games/{game_id}/state")
        if not unsent:
            at.walk(index, action, int(state["digest"]["action_id"]))  # the server's id of what it stored
        if state.get("version") != at.stored:
            return Outcome(index - len(at.taken_back), total, f"{where}: state is at version {state.get('version')}")
        # an undo not sent leaves the server's last action the one before it: the state is compared, not that
        ignored = LAST_ACTION if unsent else frozenset()
        diff = first_diff(_plain(trace[index], ignored), _plain(state["digest"], ignored))
        if diff:
            return Outcome(index - len(at.taken_back), total, f"{where}: {_describe(diff)}")
    if export is not None:
        status, exported = call("GET", f"/games/{game_id}/export")
        export.write_text(json.dumps(exported), encoding="utf-8")
    if limit is None and record.get("result") is not None:
        _, state = call("GET", f"/games/{game_id}/state")
        if state.get("result") != record["result"]:
            return Outcome(total, total, f"result {state.get('result')} differs from the record's {record['result']}")
    return Outcome(len(actions) - len(at.taken_back), total if limit is None else len(actions),
                   excused=len(at.taken_back))


def mover(action: dict[str, Any], digest: dict[str, Any]) -> int | None:
    """The player who makes `action` in the position `digest` shows: an undo, redo or chat line's sender
    (`user`, else its entity); a player's own move; a corporation's or minor's president; a private's owner
    (or its owning corporation's president). None when no player controls the entity."""
    entity = action.get("entity")
    if action.get("type") in META_TYPES:
        user = action.get("user", entity)
        return user if isinstance(user, int) else None
    if action.get("entity_type") == "player" or isinstance(entity, int):
        return entity if isinstance(entity, int) else None
    for group in ("corporations", "minors"):
        held = (digest.get(group) or {}).get(entity)
        if held is not None:
            return held.get("president")
    for pid, player in (digest.get("players") or {}).items():
        if entity in player.get("companies", ()):
            return int(pid)
    for corp in (digest.get("corporations") or {}).values():
        if entity in corp.get("companies", ()):
            return corp.get("president")
    return None


def import_point(fixture: Path, seed: int) -> int:
    """The number of leading actions imported: drawn from 1 to the record's length - 1 (at least one action
    imported, at least one played on), by `seed` and the game's name alone (the same point on every run)."""
    count = len(json.loads(fixture.read_text(encoding="utf-8"))["actions"])
    return random.Random(f"{seed}:{fixture.parent.name}/{fixture.stem}").randrange(1, max(2, count))


def _plain(digest: dict[str, Any], ignored: frozenset[str] = frozenset()) -> dict[str, Any]:
    return {k: v for k, v in digest.items() if k not in UNCOMPARED and k not in ignored}


def _describe(diff: tuple[str, Any, Any]) -> str:
    path, expected, actual = diff
    return f"{path} expected {str(expected)[:80]} got {str(actual)[:80]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--title", help="only games of this title folder (1825, 1828, 1840)")
    parser.add_argument("--only", help="only games whose name contains this")
    parser.add_argument("--url", help="a running gateway (default: the embedded app in-process)")
    parser.add_argument("--admin", help="the gateway's admin token (with --url)")
    parser.add_argument("--export", type=Path, help="write each game's export into this directory")
    parser.add_argument("--import-at", choices=("random",), dest="import_at",
                        help="import-then-continue: import each game at a random action (drawn from --seed and "
                             "the game's name), then play it on over REST")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the import points (with --import-at)")
    parser.add_argument("--operator", action="store_true",
                        help="with --import-at, post every move with the admin token instead of the seat tokens")
    args = parser.parse_args(argv)
    failed = 0
    matched = 0
    chosen = [f for f in discover(CONFORMANCE) if (not args.title or f.parent.name == args.title)
              and (not args.only or args.only in f.name)]
    with tempfile.TemporaryDirectory() as tmp:
        if args.url:
            call, close = http_call(args.url, args.admin or ""), (lambda: None)
        else:
            call, close = embedded_call(Path(tmp))
        try:
            for fixture in chosen:
                target = None
                if args.export:
                    args.export.mkdir(parents=True, exist_ok=True)
                    target = args.export / f"{fixture.stem}.json"
                where = ""
                if args.import_at:
                    at = import_point(fixture, args.seed)
                    where = f" imported at index {at}"
                    outcome = check_import(fixture, call, at, export=target, seats=not args.operator)
                else:
                    outcome = check_rest(fixture, call, export=target)
                matched += outcome.complete
                failed += not outcome.complete
                mark = where if outcome.complete else f"{where} ✗ {outcome.note}"
                if outcome.excused:
                    mark += f" (+{outcome.excused} refused, taken back by the record)"
                print(f"{fixture.parent.name} {fixture.stem}: {outcome.matched} / {outcome.total}{mark}", flush=True)
        finally:
            close()
    print(f"REST games matching every line: {matched} / {len(chosen)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

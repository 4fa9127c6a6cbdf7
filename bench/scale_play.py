"""The scale test's client: recorded games played over REST through every app host in turn, as a client the
docs describe would (retry a dropped connection, a timeout, a 503 or a 202 with the same Idempotency-Key,
here through the next host), each stored state checked against its golden trace line (as
`bench.rest_conformance.check_rest`, whose walk of undos and refused moves it follows)."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from bench.rest_conformance import _plain
from shared.conformance import first_diff, fixture_paths, load_trace
from shared.engine.session import UndoWalk, as_posted, final_active_flags

LAST_ACTION = frozenset({"type"})
RETRY_FOR = 120.0  # seconds one move may take to get through the faults before the game is given up


@dataclass
class Hosts:
    """The app hosts' gateways; each call goes to the next one (round robin, like a load balancer)."""

    urls: list[str]
    admin: str
    statuses: Counter[int] = field(default_factory=Counter)
    dropped: int = 0  # connections refused, reset or timed out
    _turn: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _local: threading.local = field(default_factory=threading.local)

    def _session(self) -> requests.Session:
        if not hasattr(self._local, "http"):
            self._local.http = requests.Session()
        return self._local.http

    def call(self, method: str, path: str, timeout: float = 10, **kw: Any) -> tuple[int, Any]:
        """One try through the next host: (status, body), or (0, None) when the connection failed."""
        with self._lock:
            base = self.urls[self._turn % len(self.urls)]
            self._turn += 1
        headers = {"Authorization": f"Bearer {self.admin}", **kw.pop("headers", {})}
        try:
            reply = self._session().request(method, base + path, headers=headers, timeout=(2, timeout), **kw)
        except requests.RequestException:
            with self._lock:
                self.dropped += 1
            self._local.http = requests.Session()  # a half-open keep-alive connection is not reused
            return 0, None
        with self._lock:
            self.statuses[reply.status_code] += 1
        try:
            return reply.status_code, reply.json()
        except ValueError:
            return reply.status_code, None

    def until(self, method: str, path: str, final: tuple[int, ...] = (200,), **kw: Any) -> tuple[int, Any]:
        """Retry (through the next host) until the answer is final: anything but a failed connection, 202,
        503 or, for reads, anything but `final`."""
        deadline = time.monotonic() + RETRY_FOR
        while True:
            status, body = self.call(method, path, **kw)
            if status in final or (status not in (0, 202, 503) and method != "GET"):
                return status, body
            if time.monotonic() > deadline:
                raise TimeoutError(f"{method} {path}: no final answer in {RETRY_FOR} s (last {status} {body})")
            time.sleep(0.2)


@dataclass
class Played:
    fixture: Path
    game_id: int = 0
    sent: list[str] = field(default_factory=list)  # idempotency keys of the moves the server stored, in order
    checked: int = 0  # lines compared equal
    total: int = 0
    failure: str | None = None
    finished: bool = False
    slowest: float = 0.0  # seconds the slowest move took from its first try to its answer
    kinds: list[str] = field(default_factory=list)  # per action index: sent, back (refused), unsent
    restored: bool = False  # played on from a restored backup, which loaded as it should


class Progress:
    """Moves done across all games: the fault schedule reads it."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.lock = threading.Lock()

    def step(self) -> None:
        with self.lock:
            self.done += 1

    @property
    def fraction(self) -> float:
        return self.done / max(1, self.total)


def limit_of(fixture: Path, limit: int) -> int:
    actions = json.loads(fixture.read_text(encoding="utf-8"))["actions"]
    return min(len(actions), limit) if limit > 0 else len(actions)


def play(hosts: Hosts, played: Played, limit: int, progress: Progress, earlier: Played | None = None,
         start: int = 0) -> None:
    """Post every action of the record (the first `limit`) through alternating hosts; compare each state.

    With `earlier` (this game's play before a backup) and `start` (the version the restored database holds),
    the moves up to `start` are walked as `earlier` saw them (none is posted); the restored state must equal
    its trace line and the game's session must load (legal actions) before the rest is played on."""
    record = json.loads(played.fixture.read_text(encoding="utf-8"))
    trace_path, _, _ = fixture_paths(played.fixture)
    trace = load_trace(trace_path)
    actions = record["actions"][:limit] if limit > 0 else record["actions"]
    played.total = len(actions)
    game = played.game_id
    server_id: dict[Any, int] = {}
    survivors = final_active_flags(actions)
    log = UndoWalk(actions)
    taken_back: set[int] = set()
    stored = 0
    last_line: tuple[int, bool] | None = None  # the trace line the state should equal, and whether unsent
    for index, action in enumerate(actions):
        where = f"index {index} ({action.get('type')})"
        if earlier is not None and stored < start:  # restored: walked as before the backup
            kind = earlier.kinds[index]
            played.kinds.append(kind)
            log.apply(index, action)
            if kind == "back":
                taken_back.add(index)
            elif kind == "sent":
                stored += 1
                played.sent.append(earlier.sent[stored - 1])
                server_id[action.get("id")] = stored
            if kind != "back":  # a refused move left no line of its own
                last_line = (index, kind == "unsent")
            continue
        if earlier is not None and not played.restored:
            played.restored = restored_loads(hosts, played, trace, last_line, stored)
            if not played.restored:
                return
        group = log.group(action)
        unsent = bool(group) and set(group) <= taken_back
        if unsent:
            log.apply(index, action)
        else:
            key = f"g{game}-m{index}"
            body = {"action": as_posted(action, server_id), "expected_version": stored}
            began = time.monotonic()
            status, reply = hosts.until("POST", f"/games/{game}/actions?wait=5", json=body,
                                        headers={"Idempotency-Key": key})
            played.slowest = max(played.slowest, time.monotonic() - began)
            if status == 422 and not survivors[index]:
                taken_back.add(index)
                log.apply(index, action)
                played.kinds.append("back")
                progress.step()
                continue
            if status != 200 or (reply or {}).get("new_version") != stored + 1:
                played.failure = f"{where}: answered {status} {str(reply)[:200]}"
                return
            stored += 1
            played.sent.append(f"admin:{key}")
            server_id[action.get("id")] = stored
            log.apply(index, action)
        played.kinds.append("unsent" if unsent else "sent")
        _, state = hosts.until("GET", f"/games/{game}/state")
        if state.get("version") != stored:
            played.failure = f"{where}: state at version {state.get('version')}, expected {stored}"
            return
        ignored = LAST_ACTION if unsent else frozenset()
        diff = first_diff(_plain(trace[index], ignored), _plain(state["digest"], ignored))
        if diff:
            played.failure = f"{where}: {diff[0]} expected {str(diff[1])[:80]} got {str(diff[2])[:80]}"
            return
        played.checked += 1
        progress.step()
    if earlier is not None and not played.restored:
        played.restored = restored_loads(hosts, played, trace, last_line, stored)
    if len(actions) == len(record["actions"]) and record.get("result") is not None and not played.failure:
        _, state = hosts.until("GET", f"/games/{game}/state")
        if state.get("result") != record["result"]:
            played.failure = f"result {state.get('result')} differs from the record's {record['result']}"
            return
        played.finished = True


def restored_loads(hosts: Hosts, played: Played, trace: list[dict[str, Any]], line: tuple[int, bool] | None,
                   version: int) -> bool:
    """A restored game: its state is the trace line of its last stored move, and its session loads."""
    game = played.game_id
    _, state = hosts.until("GET", f"/games/{game}/state")
    if state.get("version") != version:
        played.failure = f"restored at version {state.get('version')}, expected {version}"
        return False
    if line is not None:
        ignored = LAST_ACTION if line[1] else frozenset()
        diff = first_diff(_plain(trace[line[0]], ignored), _plain(state["digest"], ignored))
        if diff:
            played.failure = f"restored state differs: {diff[0]} expected {str(diff[1])[:80]}"
            return False
    status, legal = hosts.until("GET", f"/games/{game}/legal-actions")
    if status != 200 or legal.get("version") != version:
        played.failure = f"restored game does not load: {status} {str(legal)[:200]}"
        return False
    return True


def stored_commands(hosts: Hosts, game_id: int) -> list[str | None]:
    """The command id of every stored event of the game, in version order (all pages)."""
    out: list[str | None] = []
    after = 0
    while True:
        _, page = hosts.until("GET", f"/games/{game_id}/events?after={after}&limit=500")
        out += [e.get("command_id") for e in page["events"]]
        if not page.get("next_after"):
            return out
        after = page["next_after"]


def ledger(expected: list[str], stored: list[str | None]) -> tuple[int, int, bool]:
    """(lost, extra, in order): moves the client had answered that are not stored, events stored that no
    answered move explains (or twice), and whether the stored order is the answered order."""
    seen = Counter(stored)
    lost = sum(1 for key in expected if seen[key] == 0)
    extra = sum(n - 1 for n in seen.values() if n > 1) + sum(n for k, n in seen.items() if k not in set(expected))
    return lost, extra, stored == expected

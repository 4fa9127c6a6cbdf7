"""Conformance checks of one recorded game against its golden trace: replay mode, live mode and refusals.

One implementation for the test suite, `make conformance` (the README's table) and anyone debugging a
divergence, so the three never disagree about what "matches" means. The comparison follows the fixture
README: every digest line after every action, the set-up digest first.
"""

from __future__ import annotations

import gzip
import json
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .engine import EngineError, GameSession
from .engine.session import as_posted, final_active_flags
from .refusals import load_refusals

MODES = ("replay", "live")


@dataclass(frozen=True)
class Outcome:
    """How far one game got: `matched` digest lines of `total`, and what went wrong first (empty if none).
    `excused`: lines not compared because the move was refused and the record itself takes it back later
    (over REST only: bench/rest_conformance.py)."""

    matched: int
    total: int
    note: str = ""
    excused: int = 0

    @property
    def complete(self) -> bool:
        return self.matched + self.excused == self.total and not self.note


def first_diff(expected: Any, actual: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """(path, expected, actual) of the first difference; types compared strictly (bool is not int)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual), key=str):
            if key not in actual:
                return (f"{path}.{key}", expected[key], "<missing>")
            if key not in expected:
                return (f"{path}.{key}", "<absent>", actual[key])
            found = first_diff(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            found = first_diff(e, a, f"{path}[{i}]")
            if found:
                return found
        return (f"{path}.length", len(expected), len(actual)) if len(expected) != len(actual) else None
    if type(expected) is not type(actual) or expected != actual:
        return (path, expected, actual)
    return None


def fixture_paths(fixture: Path) -> tuple[Path, Path, Path]:
    """The trace, set-up digest and refusals file that belong to a game record."""
    stem = fixture.name[: -len(".json")]
    return (fixture.with_name(f"{stem}.trace.jsonl.gz"), fixture.with_name(f"{stem}.setup.json"),
            fixture.with_name(f"{stem}.refusals.jsonl.gz"))


def discover(root: Path) -> list[Path]:
    """Every game record under `root` that has a golden trace, in a stable order."""
    return sorted(p for p in root.rglob("*.json")
                  if not p.name.endswith(".setup.json") and fixture_paths(p)[0].exists())


def load_trace(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def check_trace(fixture: Path, mode: str = "replay") -> Outcome:
    """Play the record action by action (recorded auto actions in replay mode; in live mode every action
    posted as a client posts it to the API, `as_posted`, the engine deriving the auto actions) and compare the
    digest after each with the golden trace."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    record = json.loads(fixture.read_text(encoding="utf-8"))
    trace_path, setup_path, _ = fixture_paths(fixture)
    trace = load_trace(trace_path)
    total = len(trace)
    settings = record.get("settings") or {}
    try:
        session = GameSession.new(record["title"], record["players"], settings.get("seed") or 0,
                                  settings.get("optional_rules") or [], record.get("id", 0))
    except EngineError as err:
        return Outcome(0, total, f"set-up refused: {err.message}")
    if setup_path.exists():
        diff = first_diff(json.loads(setup_path.read_text(encoding="utf-8")), session.digest())
        if diff:
            return Outcome(0, total, f"set-up differs: {_describe(diff)}")
    survivors = final_active_flags(record["actions"])
    posted: dict[Any, int] = {}  # live: recorded id -> the session's id (as the API numbers actions)
    for index, action in enumerate(record["actions"]):
        where = f"action id {action.get('id')} (index {index}, {action.get('type')})"
        try:
            if mode == "live":  # what the API's rules worker submits for a posted move; one the record
                # takes back later applied trusted, as replay does (`GameSession.from_record`)
                posted[action.get("id")] = session.submit(as_posted(action, posted),
                                                          trusted=not survivors[index])["id"]
            else:
                session.submit(action, trusted=not survivors[index], keep_id=True, recorded=True)
        except EngineError as err:
            return Outcome(index, total, f"{where} refused: {err.message}")
        diff = first_diff(trace[index], session.digest(action))
        if diff:
            return Outcome(index, total, f"{where}: {_describe(diff)}")
    if record.get("result") is not None and session.result != record["result"]:
        return Outcome(total, total, f"result {session.result} differs from the record's {record['result']}")
    return Outcome(total, total)


def check_refusals(fixture: Path) -> Outcome:
    """Each reference refusal submitted live at its position: refused, with the state digest unchanged.
    `matched` counts the refusals that hold; `note` names the first that does not."""
    _, _, refusals_path = fixture_paths(fixture)
    lines = load_refusals(refusals_path)
    record = json.loads(fixture.read_text(encoding="utf-8"))
    wanted: dict[int, list[int]] = {}
    for number, line in enumerate(lines):
        wanted.setdefault(int(line["after"]), []).append(number)
    failures: dict[int, str] = {}

    def try_here(session: GameSession, position: int) -> None:
        for number in wanted.get(position, []):
            action = lines[number]["action"]
            before = session.digest()
            trial: GameSession = pickle.loads(pickle.dumps(session, pickle.HIGHEST_PROTOCOL))
            try:
                trial.submit(action)
            except EngineError:
                if trial.digest() != before:
                    failures[number] = "refused but the state changed"
                continue
            failures[number] = "accepted"

    reached = -1

    def step(index: int, _action: dict[str, Any], session: GameSession) -> None:
        nonlocal reached
        reached = index + 1
        try_here(session, index + 1)

    try:
        try_here(GameSession.from_record(record, limit=0), 0)
        reached = 0
        last = max(wanted, default=0)
        if last:
            GameSession.from_record(record, limit=last, on_action=step)
    except Exception as err:  # noqa: BLE001 - refusals past a replay that stops are reported, not checked
        for position, numbers in wanted.items():
            if position > reached:
                for number in numbers:
                    failures[number] = f"not reached (the replay stops before it: {err})"
    note = ""
    if failures:
        number = min(failures)
        line = lines[number]
        note = (f"after {line['after']}: {line['action'].get('type')} by {line['action'].get('entity')} "
                f"{failures[number]} (reference: {line.get('reference_reason')})")
    return Outcome(len(lines) - len(failures), len(lines), note)


def _describe(diff: tuple[str, Any, Any]) -> str:
    path, expected, actual = diff
    return f"{path} expected {str(expected)[:80]} got {str(actual)[:80]}"

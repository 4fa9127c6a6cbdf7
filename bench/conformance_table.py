"""Replay every recorded and generated game and print, per game, the digest lines that match the golden
trace before the first divergence (the README's conformance table)."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

from shared.engine import EngineError, GameSession
from shared.engine.session import final_active_flags

CONFORMANCE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "conformance"


def first_diff(e: Any, a: Any, path: str = "") -> str | None:
    if isinstance(e, dict) and isinstance(a, dict):
        for k in sorted(set(e) | set(a), key=str):
            if k not in a or k not in e:
                return f"{path}.{k}"
            d = first_diff(e[k], a[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(e, list) and isinstance(a, list):
        if len(e) != len(a):
            return f"{path}.length"
        for i, (x, y) in enumerate(zip(e, a, strict=True)):
            d = first_diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if type(e) is type(a) and e == a else path


def check(fixture: Path) -> tuple[int, int, str]:
    record = json.loads(fixture.read_text())
    trace_path = fixture.with_name(fixture.name.replace(".json", ".trace.jsonl.gz"))
    with gzip.open(trace_path, "rt") as f:
        trace = [json.loads(line) for line in f]
    total = len(trace)
    try:
        session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                                  record["settings"].get("optional_rules") or [], record["id"])
    except EngineError as err:
        return 0, total, f"set-up refused: {err.message[:80]}"
    flags = final_active_flags(record["actions"])
    for i, action in enumerate(record["actions"]):
        try:
            session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
        except Exception as err:  # noqa: BLE001 - report and go on with the next game
            return i, total, f"index {i} ({action['type']}) refused: {str(err)[:80]}"
        diff = first_diff(trace[i], session.digest(action))
        if diff:
            return i, total, f"index {i} ({action['type']}): {diff}"
    return total, total, ""


def main() -> int:
    rows = []
    for fixture in sorted(CONFORMANCE.rglob("*.json")):
        if fixture.name.endswith(".setup.json") or fixture.name == "manifest.json":
            continue
        if not fixture.with_name(fixture.name.replace(".json", ".trace.jsonl.gz")).exists():
            continue
        matched, total, note = check(fixture)
        name = str(fixture.relative_to(CONFORMANCE))
        rows.append((name, matched, total, note))
        print(f"{name:58} {matched:5d} / {total:5d}  {note}", flush=True)
    return 0 if all(m == t for _, m, t, _ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

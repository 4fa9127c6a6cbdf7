"""Reverse direction: games Railpost plays from its own legal actions, replayed strictly by the reference.

Each spec is handed to the oracle's reverse_check.py (one spec per call): Railpost plays a seeded random
game from `legal_actions` through `submit`, exports the record, the reference replays it with strict
validation (tools/trace.rb --live) and the two traces are compared. Its one-line verdict is classified
here, and whether Railpost's game reached its end is read back from the exported record.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.campaign.env import Oracle
from bench.campaign.plan import RECORD_TITLE, Spec

OUTCOMES = ("accepted", "refused", "soft-lock", "differ", "unfinished", "error")


def export_name(spec: Spec) -> str:
    """The stem reverse_check.py gives the exported record."""
    title = RECORD_TITLE[spec.title].replace(".", "")
    return f"rp_{title}_{spec.players}p_{spec.seed}" + ("_" + "_".join(spec.options) if spec.options else "")


def classify(verdict: str, finished: bool | None) -> tuple[str, str]:
    """(outcome, first problem) from reverse_check.py's line for one game."""
    body = verdict.split(": ", 1)[1] if ": " in verdict else verdict
    stuck = body.split(" | ", 1)[1] if " | " in body else ""
    if "Railpost play failed" in body or "could not judge" in body:
        return "error", body[:300]
    m = re.search(r"reference REFUSES (action .*)", body)
    if m:
        return "refused", m.group(1).split(" | ")[0][:300]
    if stuck:
        return "soft-lock", stuck[:300]
    if "traces DIFFER" in body:
        return "differ", body.split("traces ", 1)[1][:300]
    if "traces agree" in body:
        return ("accepted", "") if finished else ("unfinished", "no end within the action limit")
    return "error", body[:300]


def finished_of(record_path: Path) -> bool | None:
    """Whether Railpost's exported game is over (replayed by Railpost); None if it cannot be read."""
    from shared.engine import GameSession

    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
        return bool(GameSession.from_record(record).finished)
    except Exception:  # noqa: BLE001 - no verdict, reported as such
        return None


def run_one(oracle: Oracle, spec: Spec, out: Path, max_actions: int, timeout: int) -> dict[str, Any]:
    """Play, export and have the reference judge one game; the result line (without key and revision)."""
    venv = Path(sys.prefix)
    arg = f"{RECORD_TITLE[spec.title]}:{spec.players}:{spec.seed}" + (f":{spec.opts}" if spec.opts else "")
    env = {**oracle.env(), "MAXA": str(max_actions)}
    cmd = [sys.executable, str(oracle.dir / "tools" / "reverse_check.py"), str(venv), str(out), arg]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("rp_")]
        verdict = lines[0] if lines else f"x: could not judge: {(p.stderr or p.stdout).strip()[-300:]}"
    except subprocess.TimeoutExpired:
        verdict = f"x: could not judge: no verdict within {timeout} s"
    record = out / f"{export_name(spec)}.json"
    finished = finished_of(record) if record.exists() else None
    actions = None
    m = re.search(r": (\d+) actions;", verdict)
    if m:
        actions = int(m.group(1))
    outcome, first = classify(verdict, finished)
    return {"outcome": outcome, "first": first, "actions": actions, "finished": finished,
            "record": str(record) if record.exists() else None}



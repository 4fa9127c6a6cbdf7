"""Reverse direction: games Railpost plays from its own legal actions, replayed strictly by the reference.

Two players, one verdict per game:

- `reverse_check` hands the spec to the oracle's reverse_check.py (one spec per call): Railpost plays a
  seeded random game from `legal_actions` through `submit` (non-pass moves preferred 3:1), exports it, the
  reference replays it strictly (tools/trace.rb --live) and the traces are compared. Its one-line verdict
  is classified here; whether Railpost's game ended is read back from the exported record.
- `soak` plays the soak tests' weighted random player (bench/campaign/soakplay.py), which ends 1825 games
  that pure random play does not, then asks the reference the same way (tools/trace.rb --live) and compares
  the reference's trace with Railpost's with shared/conformance.py.

`auto` (the default) uses `soak` for 1825 and `reverse_check` for the others.
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


def driver_for(spec: Spec, driver: str) -> str:
    """The player `auto` stands for: the weighted soak player for 1825 and 1840 (which scraps seldom, so
    the reference's empty-depot crash does not end the check at CR5), reverse_check.py's otherwise."""
    if driver != "auto":
        return driver
    return "soak" if spec.title in ("1825", "1840") else "reverse_check"


def run_one(oracle: Oracle, spec: Spec, out: Path, max_actions: int, timeout: int,
            driver: str = "auto") -> dict[str, Any]:
    """Play, export and have the reference judge one game; the result line (without key and revision)."""
    if driver_for(spec, driver) == "soak":
        return run_soak(oracle, spec, out, max_actions, timeout)
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
    stuck = verdict.split(" | ", 1)[1][:300] if " | " in verdict else None
    return {"outcome": outcome, "first": first, "actions": actions, "finished": finished, "stuck": stuck,
            "driver": "reverse_check", "record": str(record) if record.exists() else None}


def run_soak(oracle: Oracle, spec: Spec, out: Path, max_actions: int, timeout: int) -> dict[str, Any]:
    """The soak player's game, judged by the reference and compared digest by digest."""
    from shared.conformance import check_trace

    stem = f"soak_{spec.name}"
    record = out / f"{stem}.json"
    base = {"driver": "soak", "record": str(record), "actions": None, "finished": None, "stuck": None}
    cmd = [sys.executable, "-m", "bench.campaign.soakplay", RECORD_TITLE[spec.title], str(spec.players),
           str(spec.seed), spec.opts, str(record), str(max_actions)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=Path(__file__).parents[2])
        info = json.loads(p.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, IndexError, json.JSONDecodeError):
        return {**base, "outcome": "error", "first": "Railpost's play gave no record"}
    base.update(actions=info["actions"], finished=info["finished"], stuck=info["stuck"])
    trace = out / f"{stem}.trace.jsonl.gz"
    try:
        r = subprocess.run([oracle.ruby, str(oracle.dir / "tools" / "trace.rb"), str(record), str(trace), "--live"],
                           capture_output=True, text=True, timeout=timeout, env=oracle.env())
    except subprocess.TimeoutExpired:
        return {**base, "outcome": "error", "first": f"the reference gave no verdict within {timeout} s"}
    try:
        judged = json.loads(r.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {**base, "outcome": "error", "first": "the reference could not judge: " + r.stderr.strip()[-250:]}
    if "live_failure" in judged:
        first = f"action {judged['live_failure']} ({judged['type']}): {judged['error']}"[:300]
        return {**base, "outcome": "refused", "first": first}
    if info["stuck"]:
        return {**base, "outcome": "soft-lock", "first": info["stuck"][:300]}
    same = check_trace(record, "replay")
    if not same.complete:
        return {**base, "outcome": "differ", "first": same.note[:300]}
    if bool(judged.get("finished")) != bool(info["finished"]):
        return {**base, "outcome": "differ", "first": f"the reference says finished={judged.get('finished')}"}
    if not info["finished"]:
        return {**base, "outcome": "unfinished", "first": "no end within the action limit"}
    return {**base, "outcome": "accepted", "first": ""}



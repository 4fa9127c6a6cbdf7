"""The campaign's results files: one JSON line per checked game, appended as each game is done.

A run that stops (deadline, crash, Ctrl-C) loses at most the game it was on; the next run skips every key
already recorded with the same code revision, so results of old code are re-checked but nothing is done
twice. Pure apart from reading and appending the file.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any


def load(path: Path) -> list[dict[str, Any]]:
    """Every line of a results file (none if it does not exist); unreadable lines are skipped."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by a killed run
    return out


def latest(lines: list[dict[str, Any]], rev: str | None = None) -> dict[str, dict[str, Any]]:
    """The last result per key (only those of code revision `rev` if given)."""
    out: dict[str, dict[str, Any]] = {}
    for line in lines:
        if rev is None or line.get("rev") == rev:
            out[line["key"]] = line
    return out


def done_keys(path: Path, rev: str) -> set[str]:
    """Keys already checked with this code revision: a resumed run skips them."""
    return set(latest(load(path), rev))


def append(path: Path, line: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    cut = path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n")
    with path.open("a", encoding="utf-8") as fh:
        if cut:  # a killed run left its last line half written: start on a line of our own
            fh.write("\n")
        fh.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")


def code_revision(root: Path) -> str:
    """The engine being measured: the git tree id of `shared/` (a commit that changes only bench or docs
    keeps it, so results stay valid), '+dirty' when `shared/` has uncommitted changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD:shared"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "shared"], cwd=root, capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")

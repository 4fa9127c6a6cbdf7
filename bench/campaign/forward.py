"""Forward direction: games the reference's bot played, replayed by Railpost.

Each banked game (record, golden trace, set-up digest, refusals) is checked with the same machinery as
the public corpus (shared/conformance.py): replay mode (recorded auto actions), live mode (Railpost
derives them) and every refusal submitted at its position. Each game runs in a child process so a crash
or a runaway replay costs one result line, not the campaign.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.campaign.plan import CONFIGS, RECORD_TITLE, Spec

TITLE_FOLDER = {v: k for k, v in RECORD_TITLE.items()}


def config_name(title: str, options: list[str]) -> str:
    """The plan's name for a set of options, or the options joined when the plan has no such config."""
    for cfg in CONFIGS.get(title, ()):
        if set(cfg.options) == set(options):
            return cfg.name
    return "_".join(options) or "base"


def spec_of(record_path: Path) -> Spec:
    """The spec a banked record was played from (read from the record itself)."""
    record = json.loads(record_path.read_text(encoding="utf-8"))
    title = TITLE_FOLDER.get(record["title"], record["title"])
    settings = record.get("settings") or {}
    options = list(settings.get("optional_rules") or [])
    return Spec(title, config_name(title, options), len(record["players"]), int(settings.get("seed") or 0),
                tuple(options))


def discover(bank: Path, titles: list[str] | None = None) -> list[Path]:
    """Every record in the bank with its golden trace, title by title, in a stable order."""
    from shared.conformance import discover as find

    out = []
    for folder in sorted(p for p in bank.iterdir() if p.is_dir()) if bank.exists() else []:
        if titles and folder.name not in titles:
            continue
        out += find(folder)
    return out


def check_one(record_path: Path) -> dict[str, Any]:
    """Replay, live and refusals outcomes of one record (run in the child process)."""
    from shared.conformance import check_refusals, check_trace, fixture_paths

    out: dict[str, Any] = {}
    for mode in ("replay", "live"):
        try:
            o = check_trace(record_path, mode)
            out[mode] = {"matched": o.matched, "total": o.total, "note": o.note}
        except Exception as err:  # noqa: BLE001 - an engine crash is a finding, recorded as such
            out[mode] = {"matched": 0, "total": 0, "note": f"crash: {type(err).__name__}: {err}"[:300]}
    if fixture_paths(record_path)[2].exists():
        try:
            o = check_refusals(record_path)
            out["refusals"] = {"matched": o.matched, "total": o.total, "note": o.note}
        except Exception as err:  # noqa: BLE001
            out["refusals"] = {"matched": 0, "total": 0, "note": f"crash: {type(err).__name__}: {err}"[:300]}
    else:
        out["refusals"] = None
    return out


def run_child(record_path: Path, timeout: int) -> dict[str, Any]:
    """check_one in a fresh interpreter, with a time limit."""
    cmd = [sys.executable, "-m", "bench.campaign", "_check-one", str(record_path)]
    root = Path(__file__).resolve().parents[2]
    try:
        p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        note = f"timeout: no verdict within {timeout} s"
        return {m: {"matched": 0, "total": 0, "note": note} for m in ("replay", "live")} | {"refusals": None}
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        note = f"crash: {p.stderr.strip()[-300:]}"
        return {m: {"matched": 0, "total": 0, "note": note} for m in ("replay", "live")} | {"refusals": None}


def ok(part: dict[str, Any] | None) -> bool:
    """A mode (or the refusals) matched every line."""
    return part is not None and not part.get("note") and part.get("matched") == part.get("total")

"""Shared helpers for the board tests: load 1825 boards and walk recorded games against their traces."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GAMES = ROOT / "shared" / "engine" / "data" / "games"
CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance"

def load_json(path: Path):
    return json.loads(path.read_text())


def load_trace(path: Path) -> list[dict]:
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]

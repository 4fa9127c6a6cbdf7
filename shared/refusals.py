"""`railpost refusals`: every action the reference refused in a recorded position must be refused here too,
and the refusal must leave the state exactly as it was (checked by its digest)."""

from __future__ import annotations

import gzip
import json
import pickle
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from .engine import EngineError, GameSession, ReplayError


def load_refusals(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
        return [json.loads(line) for line in handle if line.strip()]


def judge(session: GameSession, action: dict[str, Any]) -> tuple[bool, str, bool]:
    """Submit `action` live to a copy of `session`: (refused, reason, state unchanged)."""
    before = session.digest()
    trial: GameSession = pickle.loads(pickle.dumps(session, pickle.HIGHEST_PROTOCOL))
    try:
        trial.submit(action)
    except EngineError as err:
        return True, err.message, trial.digest() == before
    return False, "accepted", trial.digest() == before


def check_refusals(game: Path, refusals_path: Path) -> int:
    """One line per refusal, then `{"refused": k, "total": n}`; exit 0 only if every one is refused with
    the state unchanged. The record is replayed once; each refusal is tried on a copy at its position."""
    try:
        record = json.loads(game.read_text(encoding="utf-8"))
        lines = load_refusals(refusals_path)
    except (OSError, json.JSONDecodeError) as err:
        print(f"cannot read input: {err}", file=sys.stderr)
        return 2
    by_position: dict[int, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    for number, line in enumerate(lines):
        by_position[int(line["after"])].append((number, line))
    verdicts: dict[int, tuple[bool, str, bool]] = {}

    def try_here(session: GameSession, position: int) -> None:
        for number, line in by_position.get(position, []):
            verdicts[number] = judge(session, line["action"])

    last = max(by_position, default=0)
    try:
        start = GameSession.from_record(record, limit=0)
    except EngineError as err:
        print(f"cannot set up {game.name}: {err.message}", file=sys.stderr)
        print(json.dumps({"error": err.message, "refused": 0, "total": len(lines)}))
        return 1
    try_here(start, 0)
    try:
        if last > 0:
            GameSession.from_record(record, limit=last,
                                    on_action=lambda index, _action, session: try_here(session, index + 1))
    except ReplayError as err:
        # the refusals past the first refused recorded action cannot be judged: reported, never counted
        print(f"cannot replay {game.name} to every refusal's position: {err}", file=sys.stderr)
    refused = 0
    for number, line in enumerate(lines):
        if number not in verdicts:
            print(f"UNCHECKED after {line['after']}: the record could not be replayed that far")
            continue
        was_refused, reason, unchanged = verdicts[number]
        ok = was_refused and unchanged
        refused += ok
        action = line["action"]
        what = f"after {line['after']} ({action.get('type')} by {action.get('entity')})"
        if ok:
            print(f"refused  {what}: {reason}")
        elif was_refused:
            print(f"CHANGED  {what}: refused ({reason}) but the state changed")
        else:
            print(f"ACCEPTED {what}: the reference refused it: {line.get('reference_reason')}")
    print(json.dumps({"refused": refused, "total": len(lines)}))
    return 0 if refused == len(lines) else 1

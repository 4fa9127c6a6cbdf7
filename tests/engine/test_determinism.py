"""The engine is a pure function of (title, options, seed, players, actions): nothing may depend on the
interpreter's string hashing, which changes from process to process (PYTHONHASHSEED). Two processes with
different hash seeds play the same seeded random games and must offer the same options, in the same
order, at every step and reach the same digest."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAMES = [("1825", ["unit_1", "r1"], 3), ("1828.Games", [], 4), ("1840", [], 3), ("1833NE", [], 4)]
STEPS = 400

SCRIPT = """
import hashlib, json, random, sys
from shared.engine import GameSession
title, options, players, steps = sys.argv[1], sys.argv[2].split(",") if sys.argv[2] else [], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(7)
session = GameSession.new(title, [{"id": 100 + i, "name": f"P{i}"} for i in range(players)], 7, options)
log = hashlib.sha256()
for _ in range(steps):
    if session.finished:
        break
    offered = session.game.legal_actions()
    log.update(json.dumps(offered, sort_keys=True).encode())
    choice = rng.choice([o for o in offered if o["type"] != "undo"] or offered)
    session.submit(choice)
log.update(json.dumps(session.game.digest({}), sort_keys=True).encode())
print(session.version, log.hexdigest())
"""


def _play(hash_seed: str) -> list[str]:
    out = []
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    for title, options, players in GAMES:
        run = subprocess.run([sys.executable, "-c", SCRIPT, title, ",".join(options), str(players), str(STEPS)],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        out.append(f"{title}: {run.stdout.strip()}")
    return out


def test_options_and_states_do_not_depend_on_string_hashing() -> None:
    first, second = _play("1"), _play("2")
    assert first == second
    assert all(int(line.split()[1]) > 50 for line in first), first  # the games got going
    assert len({hashlib.sha256(line.encode()).hexdigest() for line in first}) == len(GAMES)

"""1833NE complete games: the scripted golden games replay through `railpost replay` to their recorded
results, and a seeded random-play soak keeps the invariants (money, certificates, limits) to the end."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from play_1833ne import SCRIPTED, check_invariants, play, random_policy

from shared.cli import main
from shared.engine import GameSession

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "1833NE"
SOAK_GAMES = int(os.environ.get("SOAK_1833NE", "40"))  # `make soak` plays 200


@pytest.mark.parametrize("name", sorted(SCRIPTED))
def test_scripted_game_replays_to_its_result(name: str) -> None:
    path = FIXTURES / f"{name}.json"
    record = json.loads(path.read_text())
    assert record["status"] == "finished"
    session = GameSession.from_record(record)
    assert session.finished and session.result == {k: v for k, v in record["result"].items()}
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["replay", str(path)]) == 0
    assert json.loads(out.getvalue().strip().splitlines()[-1]) == record["result"]


@pytest.mark.parametrize("name", sorted(SCRIPTED))
def test_scripted_game_played_live_matches_the_replay(name: str) -> None:
    """Every action submitted as a live move (`submit(recorded=False)`: the engine derives its own automatic
    actions) is accepted and leaves the same state, action by action, as the recorded replay."""
    record = json.loads((FIXTURES / f"{name}.json").read_text())
    digests: dict[bool, list[dict[str, object]]] = {False: [], True: []}
    for live in (False, True):
        session = GameSession.from_record(record, live=live,
                                          on_action=lambda i, a, s, live=live: digests[live].append(s.digest()))
        assert session.finished and session.result == record["result"]
    assert len(digests[True]) == len(record["actions"]) and digests[True] == digests[False]


@pytest.mark.parametrize("options", [[], ["takeover_game"]])
def test_random_play_soak(options: list[str]) -> None:
    for seed in range(SOAK_GAMES // 2):
        session = play(seed, 3 + seed % 3, options, policy=random_policy, check=check_invariants)
        assert session.finished, f"seed {seed} did not finish"

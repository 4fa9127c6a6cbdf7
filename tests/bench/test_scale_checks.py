"""The scale test's verdicts (bench/scale_play.py, bench/scale_checks.py) on made-up outcomes: a lost, doubled
or reordered move and an untold or twice-told turn are each caught. The run itself needs root and namespaces
(`make scale-test`), so it is not part of `make test`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bench.scale_checks import told_turns, turn_ledger
from bench.scale_play import ledger


def test_ledger_counts_lost_doubled_and_reordered_moves() -> None:
    answered = ["admin:a", "admin:b", "admin:c"]
    assert ledger(answered, list(answered)) == (0, 0, True)
    assert ledger(answered, ["admin:a", "admin:c"]) == (1, 0, False)
    assert ledger(answered, ["admin:a", "admin:b", "admin:b", "admin:c"]) == (0, 1, False)
    assert ledger(answered, ["admin:a", "admin:c", "admin:b"]) == (0, 0, False)
    assert ledger(answered, [*answered, "clock-1-0-0"]) == (0, 1, False)  # a move nobody answered


def test_turns_told_once_from_the_webhook_lines(tmp_path: Path) -> None:
    hooks = tmp_path / "webhooks.jsonl"
    lines = [{"id": "msg_o5_e1", "player": "7", "type": "turn.started", "game": "1"},
             {"id": "msg_o9_e2", "player": "8", "type": "turn.started", "game": "1"},
             {"id": "msg_o9_e2", "player": "8", "type": "turn.started", "game": "1"},  # told twice
             {"id": "msg_o3_e1", "player": "7", "type": "game.started", "game": "1"}]  # not a turn
    hooks.write_text("".join(json.dumps(line) + "\n" for line in lines))
    told = told_turns(hooks)
    assert told == Counter({(5, "7"): 1, (9, "8"): 2})
    expected = Counter({(5, "7"): 1, (9, "8"): 1, (12, "7"): 1})
    assert turn_ledger(expected, told) == {"turns": 3, "told_once": 1, "untold": 1, "told_twice": 1,
                                           "told_unexpected": 0}
    assert turn_ledger(Counter({(5, "7"): 1}), told)["told_unexpected"] == 2

"""`railpost replay [--live]` and `railpost refusals`: the output contract.

replay: progress on a terminal (stderr), the final result JSON as the last stdout line, exit 0; the first
refused action makes it exit 1 with a JSON last line naming the action id, type and reason; an unreadable
file exits 2. `--live` submits every action as a live move (auto actions derived by the engine) and must give
the same trace. refusals: one line per refusal, last line `{"refused": k, "total": n}`, exit 0 only when every
one is refused with the state unchanged.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from shared.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "conformance"
ORDERS_GAME = FIXTURES / "1825" / "1825_game_end_stock_market.json"  # 105 actions carry auto actions
SMALL_GAME = FIXTURES / "generated" / "1840" / "gen1840_2p_516513.json"  # 122 actions, orders, refusals
SMALL_REFUSALS = SMALL_GAME.with_name("gen1840_2p_516513.refusals.jsonl.gz")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out.strip().splitlines(), err


def golden(fixture: Path) -> list[dict[str, Any]]:
    with gzip.open(fixture.with_name(fixture.name.replace(".json", ".trace.jsonl.gz")), "rt") as handle:
        return [json.loads(line) for line in handle]


def test_live_replay_derives_the_orders_and_matches_the_golden_trace(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    trace = tmp_path / "live.jsonl"
    code, out, _ = run(capsys, "replay", str(ORDERS_GAME), "--live", "--trace", str(trace))
    record = json.loads(ORDERS_GAME.read_text())
    assert code == 0
    assert json.loads(out[-1]) == {k: v for k, v in record["result"].items()}
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert lines == golden(ORDERS_GAME)


def test_replay_and_live_give_the_same_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    replayed, live = tmp_path / "r.jsonl", tmp_path / "l.jsonl"
    assert run(capsys, "replay", str(SMALL_GAME), "--trace", str(replayed))[0] == 0
    assert run(capsys, "replay", str(SMALL_GAME), "--live", "--trace", str(live))[0] == 0
    assert replayed.read_text() == live.read_text()
    assert len(live.read_text().splitlines()) == len(json.loads(SMALL_GAME.read_text())["actions"])


@pytest.mark.parametrize("live", [False, True])
def test_a_refused_action_exits_1_naming_it(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            live: bool) -> None:
    record = json.loads(SMALL_GAME.read_text())
    bad = dict(record["actions"][3], type="buy_train", train="9-9", price=1)  # no such train
    record["actions"] = record["actions"][:3] + [bad]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    code, out, err = run(capsys, "replay", str(path), *(["--live"] if live else []))
    assert code == 1
    last = json.loads(out[-1])
    assert last["action_id"] == bad["id"] and last["type"] == "buy_train" and last["reason"]
    assert f"action id {bad['id']}" in err


def test_an_unreadable_game_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    assert run(capsys, "replay", str(path))[0] == 2
    assert run(capsys, "refusals", str(path), str(SMALL_REFUSALS))[0] == 2


def test_every_reference_refusal_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "refusals", str(SMALL_GAME), str(SMALL_REFUSALS))
    with gzip.open(SMALL_REFUSALS, "rt") as handle:
        total = sum(1 for line in handle if line.strip())
    assert json.loads(out[-1]) == {"refused": total, "total": total}
    assert code == 0
    assert len(out) == total + 1 and all(line.startswith("refused ") for line in out[:-1])


def test_an_accepted_refusal_fails_the_check(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A line whose action is in fact legal (the recorded next move) must be reported and fail the run."""
    record = json.loads(SMALL_GAME.read_text())
    legal = {k: v for k, v in record["actions"][10].items() if k not in ("auto_actions", "created_at")}
    with gzip.open(SMALL_REFUSALS, "rt") as handle:
        lines = [line.strip() for line in handle if line.strip()]
    lines.append(json.dumps({"after": 10, "after_id": record["actions"][9]["id"], "action": legal,
                             "reference_reason": "made up"}))
    path = tmp_path / "refusals.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = run(capsys, "refusals", str(SMALL_GAME), str(path))
    assert code == 1
    assert json.loads(out[-1]) == {"refused": len(lines) - 1, "total": len(lines)}
    assert any(line.startswith("ACCEPTED after 10") for line in out)


def test_the_command_line_entry_point() -> None:
    """The installed contract end to end: a separate process, stdout's last line JSON, exit code."""
    proc = subprocess.run([sys.executable, "-m", "shared.cli", "replay", str(SMALL_GAME), "--live"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(SMALL_GAME.read_text())
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == record["result"]
    assert "finished=True" in proc.stderr


def test_progress_is_shown_on_a_terminal(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = run(capsys, "replay", str(SMALL_GAME), "--live")
    total = len(json.loads(SMALL_GAME.read_text())["actions"])
    assert code == 0 and f"{total}/{total}" in err and "replaying [" in err
    assert len(out) == 1  # stdout carries only the result


def test_refusals_past_an_unreplayable_action_are_reported_unchecked(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    record = json.loads(SMALL_GAME.read_text())
    with gzip.open(SMALL_REFUSALS, "rt") as handle:
        lines = [json.loads(line) for line in handle if line.strip()]
    cut = max(line["after"] for line in lines)  # break the record just before the last refusal's position
    record["actions"][cut - 1] = dict(record["actions"][cut - 1], type="buy_train", train="9-9", price=1)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(record))
    code, out, err = run(capsys, "refusals", str(path), str(SMALL_REFUSALS))
    unchecked = sum(1 for line in lines if line["after"] >= cut)
    assert code == 1 and "cannot replay" in err
    assert sum(1 for line in out if line.startswith("UNCHECKED")) == unchecked
    assert json.loads(out[-1]) == {"refused": len(lines) - unchecked, "total": len(lines)}

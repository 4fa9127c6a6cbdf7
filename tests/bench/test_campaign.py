"""The differential campaign's pure parts: seed plan, resume and table rendering (no Ruby, no reference).

The campaign itself (bench/campaign) needs Ruby and the reference engine and never runs in CI; what it
decides without them — which games to play, which are already done, how results read as a table — is
checked here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.campaign import env, results, table  # noqa: E402
from bench.campaign.plan import CONFIGS, SEED_MIN, SEED_SPAN, plan, seed_for  # noqa: E402
from bench.campaign.reverse import classify  # noqa: E402

MANIFEST = Path("/work/shared/conformance/manifest.json")


def test_the_plan_covers_every_configuration_within_its_player_range() -> None:
    specs = plan(games=4)
    for title, configs in CONFIGS.items():
        names = {s.config for s in specs if s.title == title}
        assert names == {c.name for c in configs}
    for spec in specs:
        cfg = next(c for c in CONFIGS[spec.title] if c.name == spec.config)
        assert spec.players in cfg.players and spec.options == cfg.options
    # enough rounds play every player count of a configuration
    counts = {s.players for s in plan(["1840"], games=5, configs=["base"])}
    assert counts == {2, 3, 4, 5, 6}


def test_the_plan_is_stable_unique_interleaved_and_half_odd() -> None:
    specs = plan(games=6)
    assert specs == plan(games=6)
    assert len({s.seed for s in specs}) == len(specs)
    assert all(SEED_MIN <= s.seed < SEED_MIN + SEED_SPAN + 1 for s in specs)
    assert [s.title for s in specs[:3]] == ["1825", "1828", "1840"]
    odd = sum(s.seed % 2 for s in specs)
    assert 0.35 < odd / len(specs) < 0.65
    # a longer plan starts with the shorter one's games of each title
    first = [s for s in plan(games=1) if s.title == "1825"]
    assert [s for s in specs if s.title == "1825"][: len(first)] == first


def test_costly_configurations_get_fewer_games() -> None:
    specs = plan(["1825"], games=8)
    assert sum(s.config == "unit_123" for s in specs) == 2
    assert sum(s.config == "unit_1" for s in specs) == 8


def test_no_seed_of_the_plan_is_a_public_conformance_seed() -> None:
    if not MANIFEST.exists():
        pytest.skip("the shared conformance corpus is not on this machine")
    public = {g["seed"] for g in json.loads(MANIFEST.read_text())["games"]}
    assert not public & {s.seed for s in plan(games=40)}
    assert seed_for("1840", "base", 2, 0) == seed_for("1840", "base", 2, 0)


def test_resume_skips_what_this_revision_already_checked(tmp_path: Path) -> None:
    path = tmp_path / "forward.jsonl"
    results.append(path, {"key": "1840/base/2p/1", "rev": "a"})
    results.append(path, {"key": "1840/base/3p/2", "rev": "b"})
    with path.open("a") as fh:
        fh.write('{"key": "cut sho')  # a line a killed run left half written
    assert results.done_keys(path, "a") == {"1840/base/2p/1"}
    assert results.done_keys(path, "c") == set()
    results.append(path, {"key": "1840/base/2p/1", "rev": "b", "x": 1})
    assert results.latest(results.load(path))["1840/base/2p/1"]["x"] == 1
    assert results.load(tmp_path / "missing.jsonl") == []


def _fwd(config: str, seed: int, live_note: str = "", refused: int = 2) -> dict:
    part = {"matched": 10, "total": 10, "note": ""}
    live = {"matched": 4, "total": 10, "note": live_note} if live_note else part
    return {"key": f"1825/{config}/3p/{seed}", "name": f"g{seed}", "title": "1825", "config": config,
            "players": 3, "seed": seed, "replay": part, "live": live,
            "refusals": {"matched": refused, "total": 2, "note": "" if refused == 2 else "after 5: pass accepted"}}


def test_forward_table_counts_identical_games_and_names_the_first_divergence() -> None:
    text = table.forward_table([_fwd("unit_1", 1), _fwd("unit_1", 2, "action id 5 | refused"), _fwd("unit_2", 3)])
    rows = text.splitlines()
    assert rows[0].startswith("| title | configuration | games | identical in replay | identical in live")
    assert rows[2] == ("| 1825 | unit_1 | 2 | 2 / 2 | 1 / 2 | 4 / 4 | g2 (live): action id 5 \\| refused |")
    assert rows[3].startswith("| 1825 | unit_2 | 1 | 1 / 1 | 1 / 1 | 2 / 2 | — |")
    assert rows[-1] == "| **all** | | **3** | **3 / 3** | **2 / 3** | **6 / 6** | |"


def test_reverse_table_and_verdicts() -> None:
    assert classify("rp_1840_3p_5: 375 actions; reference REFUSES action 260 (sell_shares): Blocking step",
                    True) == ("refused", "action 260 (sell_shares): Blocking step")
    assert classify("rp_x: 10 actions; reference accepts every move; traces agree | no legal action offered at "
                    "action 11", False)[0] == "soft-lock"
    assert classify("rp_x: 10 actions; reference accepts every move; traces agree", True) == ("accepted", "")
    assert classify("rp_x: 10 actions; reference accepts every move; traces agree", False)[0] == "unfinished"
    assert classify("rp_x: Railpost play failed: Traceback", None)[0] == "error"
    lines = [{"key": f"1840/base/{n}p/{n}/{d}", "title": "1840", "config": "base", "players": n, "seed": n,
              "outcome": o, "first": f, "driver": d}
             for n, o, f, d in [(2, "accepted", "", "soak"), (3, "refused", "action 9 (pass): no", "soak"),
                                (4, "soft-lock", "nobody", "reverse_check")]]
    rows = table.reverse_table(lines).splitlines()
    assert rows[2] == "| 1840 | base | reverse_check | 1 | 0 / 1 | 0 | 1 | 0 | 4p seed 4 (soft-lock): nobody |"
    assert rows[3] == "| 1840 | base | soak | 2 | 1 / 2 | 1 | 0 | 0 | 3p seed 3 (refused): action 9 (pass): no |"
    assert rows[-1] == "| **all** | | | **3** | **1 / 3** | **1** | **1** | **0** | |"


def test_tables_are_written_between_the_markers_only() -> None:
    doc = "intro\n<!-- campaign:forward:start -->\nold\n<!-- campaign:forward:end -->\nrest\n"
    out = table.splice(doc, "forward", "| new |")
    assert out == "intro\n<!-- campaign:forward:start -->\n| new |\n<!-- campaign:forward:end -->\nrest\n"
    assert table.splice(out, "forward", "| new |") == out
    with pytest.raises(ValueError):
        table.splice(doc, "reverse", "x")


def test_without_ruby_or_the_reference_the_campaign_says_what_to_do(monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.setenv("REF_18XX", str(tmp_path))
    monkeypatch.setattr(env.shutil, "which", lambda _name: None)
    with pytest.raises(SystemExit) as exc:
        env.require_oracle(str(tmp_path))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Ruby is not installed" in err and "holds no reference checkout" in err and "no oracle scripts" in err
    assert "CI never need" in err

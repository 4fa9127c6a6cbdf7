"""The machinery of the in-process page bench (`bench/bench_draw.py`), run small: one page drawn cold and
warm with its times and digest, and two runs compared page for page. No timing is asserted beyond that."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import bench_draw  # noqa: E402


def test_the_draw_bench_times_a_page_cold_and_warm_and_compares_runs(capsys: pytest.CaptureFixture[str]) -> None:
    (page,) = bench_draw.worker(bench_draw.ROOT, [0.1], ["1840"])
    assert page["title"] == "1840" and page["upto"] > 0 and page["bytes"] > 10_000 and len(page["sha"]) == 64
    assert page["cold_wall"] > 0 and len(page["warm_wall"]) == len(page["warm_cpu"]) == bench_draw.WARM
    other = {**page, "sha": "0" * 64}
    bench_draw.report({bench_draw.ROOT: [[page]], Path("/other"): [[other]]})
    printed = capsys.readouterr().out
    assert "byte for byte the same in every tree: False (1 pages)" in printed
    assert "1840 at" in printed and "cold p50" in printed

"""The machinery of the benches of what a player waits for (issue 47), run small: the page bench reaches the
page's `railpost:rendered` mark on a fully drawn page (map, players, acting line, the seat's moves) and reads
the server time of its requests; the mail bench's turn mail reaches its SMTP sink, its times in order and
within the run's own timeout. No timing is asserted beyond that."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import bench_mail, bench_page  # noqa: E402


def test_the_page_bench_reaches_the_mark_on_a_drawn_page(tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    (spot,) = bench_page.run(["1840"], {"early": 0.1}, 1, shots, tmp_path / "site")
    assert spot.game_id > 0 and spot.load_ms > 0 and spot.fetch_ms and min(spot.fetch_ms) > 0
    for got in (spot.first, *spot.cold, *spot.warm):  # bench_page.check has asserted the page's parts
        assert 0 < got["rendered"] < bench_page.TIMEOUT_MS
        assert got["hexes"] > 0 and got["players"] >= 2 and got["acting"] and got["turn"]
        served = {line["path"].rsplit("/", 1)[-1] for line in got["server"]}
        assert {"page", "me", "legal-actions", "clock"} <= served, served
        assert all(line["ms"] > 0 for line in got["server"])
    assert len(spot.cold) == 1 and len(spot.warm) == 1
    assert (shots / "1840_early.png").stat().st_size > 10_000


def test_the_mail_bench_times_a_turn_mail_to_its_sink(tmp_path: Path) -> None:
    (phase,) = bench_mail.run(tmp_path, 2, deployed=False, titles=("1840",), shares=(0.35,))
    assert len(phase.mails) >= 2 and phase.moves >= len(phase.mails)
    for mail in phase.mails:
        assert mail.commit <= mail.queued <= mail.due <= mail.picked <= mail.handed
        assert 0 < mail.total < bench_mail.TIMEOUT
        assert 0 <= mail.wait <= mail.total and mail.work > 0
    assert "turn mails" in bench_mail.describe(phase)

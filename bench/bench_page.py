"""What a player waits for, the page: the game page's first render in headless Chromium (issue 47).

`make run`'s embedded default (`bench/embedded.py`) holds the people's 1825, 1828 and 1840 games imported at
an early, a middle and a late position. Each game's page is opened as its acting seat would open it from a
turn mail (`/games/{id}/page#seat=...`) in Debian's Chromium driven by Playwright: from navigation start to
the page's `railpost:rendered` mark (`page.js`: map, players table and acting line drawn by the server, the
seat's moves and the clock panel by the script). Cold: a fresh browser context (no cache, no stored seat),
the first of them the game's first request since the server started (its session built from the store);
warm: the same context reloaded. Beside it, in the same run: the page's HTML fetched alone (`requests`,
no browser) and the game's engine load in this process (`GameSession.from_record`, best of 3, wall
time), and the server-side time of every request the page made (the gateway's access log: `ms`).
The page's long-poll (`/page/version`) is blocked in the browser: it starts after the mark, and a closed
page's poll would hold a gateway thread for its 20 s.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from bench.embedded import ROOT, Site, acting_seat, import_at, load_record
from shared.engine import GameSession

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SAMPLES = int(os.environ.get("RAILPOST_BENCH_PAGE_SAMPLES", "10"))  # cold and warm opens per game
POSITIONS = {"early": 0.1, "middle": 0.5, "late": 0.9}
SHOTS = ROOT / "var" / "bench" / "page"
TIMEOUT_MS = 60_000
MARK = "railpost:rendered"
# what the page is at the mark: the drawn map, the players' rows, the acting line, the seat's turn box
TIMINGS_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const mark = performance.getEntriesByName('MARK')[0];
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const acting = document.getElementById('acting');
  const turn = document.getElementById('turn');
  return {
    rendered: mark ? mark.startTime : null,
    fcp: paint ? paint.startTime : null,
    ttfb: nav.responseStart, html: nav.responseEnd, dcl: nav.domContentLoadedEventEnd,
    hexes: document.querySelectorAll('svg.map g.hex').length,
    players: document.querySelectorAll('table.players tbody tr').length,
    acting: acting ? acting.textContent.trim() : '',
    turn: turn && !turn.hidden ? document.getElementById('turn-title').textContent : '',
  };
}""".replace("MARK", MARK)


@dataclass
class Spot:
    """One game at one position, and what was measured on it."""

    title: str
    where: str
    upto: int
    game_id: int = 0
    token: str = ""
    load_ms: float = 0.0
    fetch_ms: list[float] = field(default_factory=list)
    first: dict[str, Any] = field(default_factory=dict)
    cold: list[dict[str, Any]] = field(default_factory=list)
    warm: list[dict[str, Any]] = field(default_factory=list)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def engine_load_ms(record: dict[str, Any], upto: int) -> float:
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        GameSession.from_record(record, limit=upto)
        best = min(best, time.perf_counter() - began)
    return best * 1000


def prepare(site: Site, titles: list[str], positions: dict[str, float]) -> list[Spot]:
    """Import every game at every position; the acting seat's token is what the page is opened with."""
    spots = []
    for title in titles:
        record = load_record(title)
        for where, share in positions.items():
            upto = int(len(record["actions"]) * share)
            for attempt in range(upto, min(len(record["actions"]), upto + 20)):
                game_id, seats = import_at(site, record, attempt)
                seat = acting_seat(site, game_id, seats)
                if seat is not None:
                    break
            else:
                raise RuntimeError(f"{title} {where}: no acting seat near action {upto}")
            spots.append(Spot(title, where, attempt, game_id, seat["token"], engine_load_ms(record, attempt)))
    return spots


def open_page(site: Site, browser: Any, spot: Spot, shot: Path | None = None, warm: int = 0,
              ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One cold open in a fresh context, then `warm` reloads in it; each measured to the mark, with the
    access lines of the requests it made."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setBlockedURLs", {"urls": ["*/page/version*"]})
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        out = []
        for i in range(1 + warm):
            offset = site.log_offset()
            if i == 0:
                page.goto(f"{site.base}/games/{spot.game_id}/page#seat={spot.token}", wait_until="commit")
            else:
                page.reload(wait_until="commit")
            page.wait_for_function(f"() => performance.getEntriesByName('{MARK}').length > 0", timeout=TIMEOUT_MS)
            got = page.evaluate(TIMINGS_JS)
            if i == 0 and shot is not None:
                page.screenshot(path=str(shot), full_page=True)
            got["server"] = [line for line in site.requests_since(offset) if not line["path"].endswith("/page/version")]
            got["errors"] = list(errors)
            out.append(got)
        return out[0], out[1:]
    finally:
        context.close()


def check(got: dict[str, Any], spot: Spot) -> None:
    """The page at the mark is the whole page: every part the player looks at is there."""
    problems = []
    if not got["rendered"] or got["rendered"] <= 0:
        problems.append("no mark")
    if got["hexes"] <= 0:
        problems.append("no map")
    if got["players"] < 2:
        problems.append("no players table")
    if not got["acting"]:
        problems.append("no acting line")
    if not got["turn"]:
        problems.append("no turn box for the acting seat")
    if got["errors"]:
        problems.append(f"page errors {got['errors']}")
    if problems:
        raise AssertionError(f"{spot.title} {spot.where} (game {spot.game_id}): {', '.join(problems)}")


def fetch_html_ms(site: Site, spot: Spot, count: int) -> list[float]:
    out = []
    with requests.Session() as http:
        for _ in range(count):
            began = time.perf_counter()
            r = http.get(f"{site.base}/games/{spot.game_id}/page", headers={"Accept": "text/html"}, timeout=60)
            r.raise_for_status()
            out.append((time.perf_counter() - began) * 1000)
    return out


def measure(site: Site, spots: list[Spot], samples: int, shots: Path | None) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for spot in spots:  # the first open of each game since the server started
                shot = shots / f"{spot.title}_{spot.where}.png" if shots else None
                spot.first, _ = open_page(site, browser, spot, shot)
                check(spot.first, spot)
            for spot in spots:
                spot.fetch_ms = fetch_html_ms(site, spot, samples)
                for _ in range(samples):
                    cold, warm = open_page(site, browser, spot, warm=1)
                    for got in (cold, *warm):
                        check(got, spot)
                    spot.cold.append(cold)
                    spot.warm.extend(warm)
        finally:
            browser.close()


def server_ms(opens: list[dict[str, Any]]) -> tuple[float, dict[str, float]]:
    """The p50 over opens of the summed server time of an open's requests, and the p50 per kind of request."""
    per: dict[str, list[float]] = defaultdict(list)
    totals = []
    for got in opens:
        totals.append(sum(line["ms"] for line in got["server"]))
        for line in got["server"]:
            path = line["path"]
            kind = path.split("/", 3)[3] if path.startswith("/games/") else path.rsplit("/", 1)[-1]
            per[kind].append(line["ms"])
    return statistics.median(totals), {k: statistics.median(v) for k, v in sorted(per.items())}


def report(spots: list[Spot]) -> None:
    print(f"page first render, ms from navigation start to the '{MARK}' mark (Chromium headless, 1280x900, the "
          f"acting seat's link; {len(spots[0].cold)} cold = fresh context, {len(spots[0].warm)} warm = reload):")
    print(f"  {'game':<18}{'action':>7}{'load':>7}{'html':>7}{'first':>8}{'cold p50':>9}{'p95':>7}"
          f"{'warm p50':>9}{'p95':>7}{'cold/html':>10}{'cold/load':>10}  server ms (cold p50 per request)")
    for s in spots:
        cold = [g["rendered"] for g in s.cold]
        warm = [g["rendered"] for g in s.warm]
        html = statistics.median(s.fetch_ms)
        total, per = server_ms(s.cold)
        parts = ", ".join(f"{k} {v:.1f}" for k, v in per.items())
        print(f"  {s.title + ' ' + s.where:<18}{s.upto:>7}{s.load_ms:>7.0f}{html:>7.1f}{s.first['rendered']:>8.0f}"
              f"{statistics.median(cold):>9.0f}{pct(cold, 95):>7.0f}{statistics.median(warm):>9.0f}"
              f"{pct(warm, 95):>7.0f}{statistics.median(cold) / html:>10.1f}{statistics.median(cold) / s.load_ms:>10.2f}"
              f"  sum {total:.0f}: {parts}")
    cold_all = [g["rendered"] for s in spots for g in s.cold]
    warm_all = [g["rendered"] for s in spots for g in s.warm]
    fcp = [g["fcp"] for s in spots for g in s.cold if g["fcp"]]
    print(f"  all games: cold p50 {statistics.median(cold_all):.0f} ms, p95 {pct(cold_all, 95):.0f} ms; warm p50 "
          f"{statistics.median(warm_all):.0f} ms, p95 {pct(warm_all, 95):.0f} ms; first contentful paint (cold) p50 "
          f"{statistics.median(fcp):.0f} ms | load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


def run(titles: list[str], positions: dict[str, float], samples: int, shots: Path | None,
        workdir: Path) -> list[Spot]:
    site = Site(workdir)
    site.start()
    try:
        spots = prepare(site, titles, positions)
        site.restart()  # every game's first open then builds its session from the store, as after a deploy
        measure(site, spots, samples, shots)
        return spots
    finally:
        site.stop()


def main() -> None:
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: the page bench needs Debian's chromium (apt-get install -y chromium)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="railpost-page-"))
    try:
        report(run(["1825", "1828", "1840"], POSITIONS, SAMPLES, SHOTS, workdir))
        print(f"  screenshots at the mark: {SHOTS.relative_to(ROOT)}/", flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

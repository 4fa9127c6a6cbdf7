"""The game page's HTML drawn in process (issue 47): the page handler's own time, without a browser or a network.

Each of the people's 1825, 1828 and 1840 games (tests/fixtures/conformance) is imported into a fresh
embedded gateway (SQLite, Flask's test client) at every tenth of its actions, and its page
(`GET /games/{id}/page`) fetched: once untimed (the session built from the store), once with the drawing
caches emptied (*cold*: what the first open of a game costs after a restart, the title's tiles not yet
placed) and `WARM` times more (*warm*: a reopen, or a move that changed a few hexes). Each fetch is timed
in wall time and in this process's CPU time (on a shared host the CPU time is the steadier of the two).

`RAILPOST_BENCH_DRAW_AGAINST=/path/to/other/tree` measures that tree too, in the same run, alternately
(this tree, the other, the other, this ...; `ROUNDS` rounds), each in its own process with its own tree's
code, and checks both trees drew every page byte for byte the same. An exported commit does as the other
tree: `git archive <commit> | tar -x -C /tmp/base`.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GAMES = {"1825": "1825/141331.json", "1828": "1828/23366.json", "1840": "1840/218809.json"}
SHARES = [k / 10 for k in range(1, 10)]
WARM = int(os.environ.get("RAILPOST_BENCH_DRAW_WARM", "3"))
ROUNDS = int(os.environ.get("RAILPOST_BENCH_DRAW_ROUNDS", "2"))
ADMIN = "bench-draw-admin"


def _timed(fetch: Any) -> tuple[float, float, bytes]:
    wall, cpu = time.perf_counter(), time.process_time()
    body = fetch()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, body


def _empty_caches() -> None:
    """The drawing caches of the tree under test, if it has them (an older tree has none)."""
    from services.gateway.web import svg

    for name in ("HEXES", "PLACED"):
        cache = getattr(svg, name, None)
        if cache is not None:
            cache.clear()


def worker(tree: Path, shares: list[float], titles: list[str]) -> list[dict[str, Any]]:
    """Every page of `titles` at `shares` of their actions, drawn by the code this process imported."""
    from services.config import Config
    from services.gateway import create_app
    from shared.eventstore import migrate

    url = f"sqlite:///{tempfile.mkdtemp(prefix='railpost-draw-')}/draw.sqlite3"
    migrate(url)
    client = create_app(Config(database_url=url, admin_token=ADMIN, log_level="WARNING")).test_client()
    out = []
    for title in titles:
        record = json.loads((tree / "tests" / "fixtures" / "conformance" / GAMES[title]).read_text())
        for share in shares:
            upto = int(len(record["actions"]) * share)
            prefix = {**record, "actions": record["actions"][:upto], "status": "active"}
            prefix.pop("result", None)
            prefix.pop("game_end_reason", None)
            made = client.post("/games/import", json=prefix, headers={"Authorization": f"Bearer {ADMIN}"})
            if made.status_code not in (200, 201):
                raise RuntimeError(f"import of {title} at {upto}: {made.status_code} {made.get_data()[:300]!r}")
            path = f"/games/{made.json['game']['id']}/page"

            def fetch(path: str = path) -> bytes:
                page = client.get(path)
                if page.status_code != 200:
                    raise RuntimeError(f"{path}: {page.status_code}")
                return page.get_data()

            fetch()  # the session from the store: not the drawing's
            _empty_caches()
            cold = _timed(fetch)
            warm = [_timed(fetch) for _ in range(WARM)]
            if any(body != cold[2] for _, _, body in warm):
                raise RuntimeError(f"{title} at {upto}: the page drawn again differs")
            out.append({"title": title, "upto": upto, "cold_wall": cold[0], "cold_cpu": cold[1],
                        "warm_wall": [w for w, _, _ in warm], "warm_cpu": [c for _, c, _ in warm],
                        "bytes": len(cold[2]), "sha": hashlib.sha256(cold[2]).hexdigest()})
    return out


def _run_worker(tree: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-P", str(Path(__file__).resolve()), "--worker", str(tree)], cwd=tree,
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"worker on {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(trees: list[Path], rounds: int) -> dict[Path, list[list[dict[str, Any]]]]:
    """Each tree's pages `rounds` times, the trees taking turns (ABBA...) so a change of load hits both."""
    got: dict[Path, list[list[dict[str, Any]]]] = {t: [] for t in trees}
    for r in range(rounds):
        for tree in trees if r % 2 == 0 else list(reversed(trees)):
            print(f"  round {r + 1}: {tree} ...", flush=True)
            got[tree].append(_run_worker(tree))
    return got


def summary(runs: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """Per page the median over the rounds (cold: one fetch a round, warm: all), then over all pages."""
    pages: dict[tuple[str, int], dict[str, list[float]]] = {}
    for one in runs:
        for p in one:
            slot = pages.setdefault((p["title"], p["upto"]), {k: [] for k in ("cold_wall", "cold_cpu", "warm_wall",
                                                                              "warm_cpu")})
            for k in ("cold_wall", "cold_cpu"):
                slot[k].append(p[k])
            for k in ("warm_wall", "warm_cpu"):
                slot[k].extend(p[k])
    per = {key: {k: statistics.median(v) for k, v in slot.items()} for key, slot in pages.items()}
    overall = {k: (statistics.median(v[k] for v in per.values()), max(v[k] for v in per.values()))
               for k in ("cold_wall", "cold_cpu", "warm_wall", "warm_cpu")}
    return {"pages": per, "overall": overall}


def report(got: dict[Path, list[list[dict[str, Any]]]]) -> None:
    trees = list(got)
    sums = {t: summary(got[t]) for t in trees}
    if len(trees) > 1:
        shas = {t: {(p["title"], p["upto"]): p["sha"] for one in got[t] for p in one} for t in trees}
        same = all(shas[t] == shas[trees[0]] for t in trees)
        print(f"  pages byte for byte the same in every tree: {same} ({len(shas[trees[0]])} pages)")
    print("  ms per page fetch, median over the rounds; wall / cpu")
    head = "  game at action".ljust(22) + "".join(f"| {t.name[:18]:18} cold | warm ".ljust(36) for t in trees)
    print(head)
    for key in sums[trees[0]]["pages"]:
        cells = ""
        for t in trees:
            v = sums[t]["pages"][key]
            cells += (f"| {v['cold_wall']:6.0f} / {v['cold_cpu']:4.0f} | {v['warm_wall']:5.0f} / "
                      f"{v['warm_cpu']:4.0f} ").ljust(36)
        print(f"  {key[0]} at {key[1]}".ljust(22) + cells)
    for t in trees:
        o = sums[t]["overall"]
        print(f"  {t}: cold p50 {o['cold_wall'][0]:.0f} ms wall / {o['cold_cpu'][0]:.0f} ms cpu (max "
              f"{o['cold_wall'][1]:.0f} / {o['cold_cpu'][1]:.0f}); warm p50 {o['warm_wall'][0]:.0f} / "
              f"{o['warm_cpu'][0]:.0f} (max {o['warm_wall'][1]:.0f} / {o['warm_cpu'][1]:.0f})")


def main() -> None:
    other = os.environ.get("RAILPOST_BENCH_DRAW_AGAINST")
    trees = [ROOT] + ([Path(other).resolve()] if other else [])
    report(run(trees, ROUNDS))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        print(json.dumps(worker(Path(sys.argv[2]), SHARES, list(GAMES))))
    else:
        main()

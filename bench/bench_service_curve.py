"""The service curve: moves/s against accept→commit p50/p99 for 1, 2 and 4 rules-worker processes over
1,000 active games, then the same with 10,000 games stored; a cold game's service time; memory per cached
game and per worker process.

The games are seeded straight into PostgreSQL (one real game is created and started through the API, then
cloned with COPY: seats with their own tokens, the events, receipts and snapshots of the recorded 1825 game
up to a version of its own, and the read model at that version), so 1,000 games stand at every stage of
the game, not all at its first stock round, and 10,000 take seconds to store. Each stage then replays the
record's next actions through the HTTP API exactly as `bench_service` does (expected version,
Idempotency-Key, `?wait=`), at a few offered rates and flat out. The machine's load average is printed
beside every figure, and before each worker count the CPU of a fixed loop (`calibration_ms`): on a shared
host the same code's cost drifts with the machine, and this says by how much. `RAILPOST_CURVE_WORKERS`
(default `1,2,4`), `RAILPOST_CURVE_RATES` (`100,300`), `RAILPOST_CURVE_SECONDS` (5), `RAILPOST_CURVE_ACTIVE` (1000), `RAILPOST_CURVE_STORED` (10000),
`RAILPOST_CURVE_PLOT` (a PNG path: the curve drawn with matplotlib) change the run.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import psycopg
import redis
import requests

from bench.bench_service import (
    ADMIN,
    PORT,
    QUEUE,
    RECORD,
    REDIS_URL,
    CpuMeter,
    Stack,
    Table,
    calibration_ms,
    load_text,
    pct,
    run_phase,
    scripted_actions,
    settle,
)
from services.config import Config

WORKERS = [int(w) for w in os.environ.get("RAILPOST_CURVE_WORKERS", "1,2,4").split(",")]
RATES = [float(r) for r in os.environ.get("RAILPOST_CURVE_RATES", "100,300").split(",")]
SECONDS = float(os.environ.get("RAILPOST_CURVE_SECONDS", "5"))
ACTIVE = int(os.environ.get("RAILPOST_CURVE_ACTIVE", "1000"))
STORED = int(os.environ.get("RAILPOST_CURVE_STORED", "10000"))
PLOT = os.environ.get("RAILPOST_CURVE_PLOT", "")
SNAPSHOT_EVERY = Config().snapshot_every  # the seeded snapshots follow the service's default
HEADROOM = 80  # an active game is seeded at least this many actions before the record's end
CACHE = str(max(256, ACTIVE + ACTIVE // 4))  # every active game's session fits in one worker's cache


class Seeder:
    """The recorded game's events, receipts, snapshots and read models per version, worked out once by a
    local replay exactly as the rules worker stores them, then copied into any number of games."""

    def __init__(self, record: dict[str, Any], script: list[tuple[int, dict[str, Any]]]) -> None:
        from services.play.apply import read_model
        from services.play.commands import body_hash
        from shared.engine import GameSession
        from shared.eventstore import ACTION_APPLIED, CURRENT_VERSIONS

        session = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                                  record["settings"]["optional_rules"])
        self.type, self.type_version = ACTION_APPLIED, CURRENT_VERSIONS[ACTION_APPLIED]
        self.states = [json.dumps(read_model(session))]
        self.events: list[tuple[int, str, str, str]] = []  # (player, event data, action, body hash) per version
        self.snapshots: dict[int, bytes] = {}
        for version, (sender, body) in enumerate(script, start=1):
            stored = session.submit(body)
            self.events.append((sender, json.dumps({"action": stored, "player_id": sender}), json.dumps(body),
                                body_hash({"action": body, "expected_version": version - 1})))
            self.states.append(json.dumps(read_model(session, stored)))
            if version % SNAPSHOT_EVERY == 0:
                self.snapshots[version] = session.snapshot()

    def seed(self, url: str, template: int, versions: list[int], tokens: bool) -> list[tuple[int, int]]:
        """Clone game `template` once per entry of `versions`, each at that version; returns (id, version)
        per new game.
        With `tokens`, seat tokens are `bench-<game>-<seat>` (the driver knows them)."""
        from services.tokens import hash_token
        from shared.eventstore.postgres import SEQUENCER_LOCK

        now = time.time()
        with psycopg.connect(url, autocommit=False) as conn:
            row = conn.execute("SELECT title, options, seed, seat_count, visibility FROM games WHERE id = %s",
                               (template,)).fetchone()
            seats = conn.execute("SELECT seat_index, player_id, name FROM seats WHERE game_id = %s "
                                 "ORDER BY seat_index", (template,)).fetchall()
            made = conn.execute(
                "INSERT INTO games (title, options, seed, seat_count, status, visibility, version, state, "
                "created_at, updated_at) SELECT %s, %s, %s, %s, 'active', %s, v, NULL, %s, %s "
                "FROM unnest(%s::int[]) AS v RETURNING id, version", (*row, now, now, versions)).fetchall()
            ids, versions = [r[0] for r in made], [r[1] for r in made]
            finished = len(self.events)
            with conn.cursor() as cur:
                cur.execute("CREATE TEMP TABLE seed_state (id bigint, version int, state text) ON COMMIT DROP")
                with cur.copy("COPY seed_state FROM STDIN") as copy:
                    for game_id, version in zip(ids, versions, strict=True):
                        copy.write_row((game_id, version, self.states[version]))
                cur.execute("UPDATE games g SET state = s.state, status = CASE WHEN s.version >= %s THEN "
                            "'finished' ELSE 'active' END FROM seed_state s WHERE g.id = s.id", (finished,))
                with cur.copy("COPY seats (game_id, seat_index, player_id, name, token_hash, joined_at) "
                              "FROM STDIN") as copy:
                    for game_id in ids:
                        for seat, player, name in seats:
                            token = hash_token(f"bench-{game_id}-{seat}") if tokens else None
                            copy.write_row((game_id, seat, player, name, token, now))
                # the recorded game's events once, in a temporary table; every game's share of them is then
                # copied inside the server (a join on version), which is what makes 10,000 games quick
                cur.execute("CREATE TEMP TABLE seed_events (version int, sender bigint, data text, action text, "
                            "digest text, snapshot bytea) ON COMMIT DROP")
                with cur.copy("COPY seed_events FROM STDIN") as copy:
                    for v, (sender, data, action, digest) in enumerate(self.events, start=1):
                        copy.write_row((v, sender, data, action, digest, self.snapshots.get(v)))
                # numbered as `number_pending` would have numbered them (left unnumbered, the sweep would number
                # the whole seed inside the first measured phase), under the numbering lock
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (SEQUENCER_LOCK,))
                cur.execute("WITH c AS (SELECT value FROM counters WHERE name = 'event_position'), ins AS ("
                            "INSERT INTO events (game_id, version, position, command_id, type, type_version, data, "
                            "created_at) SELECT s.id, e.version, c.value + row_number() OVER (ORDER BY s.id, e.version), "
                            "'p' || e.sender || ':seed-' || s.id || '-' || e.version, %s, %s, e.data, %s "
                            "FROM seed_state s JOIN seed_events e ON e.version <= s.version CROSS JOIN c RETURNING 1) "
                            "UPDATE counters SET value = value + (SELECT count(*) FROM ins) WHERE name = 'event_position'",
                            (self.type, self.type_version, now))
                cur.execute("INSERT INTO receipts (game_id, command_id, body_hash, status, expected_version, "
                            "player_id, action, new_version, http_status, created_at, settled_at) "
                            "SELECT s.id, 'p' || e.sender || ':seed-' || s.id || '-' || e.version, e.digest, "
                            "'applied', e.version - 1, e.sender, e.action, e.version, 200, %s, %s "
                            "FROM seed_state s JOIN seed_events e ON e.version <= s.version", (now, now))
                cur.execute("INSERT INTO snapshots (game_id, version, data, created_at) SELECT DISTINCT ON (s.id) "
                            "s.id, e.version, e.snapshot, %s FROM seed_state s JOIN seed_events e ON e.version <= "
                            "s.version AND e.snapshot IS NOT NULL ORDER BY s.id, e.version DESC", (now,))
            conn.commit()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ANALYZE")
        return list(zip(ids, versions, strict=True))


class SeededTable(Table):
    """A seeded game the driver plays on from its stored version."""

    def __init__(self, game_id: int, version: int, players: list[int]) -> None:  # noqa: D107 - no API calls
        self.url = f"http://127.0.0.1:{PORT}/games/{game_id}"
        self.path = f"/games/{game_id}"
        self.tokens = {player: f"bench-{game_id}-{seat}" for seat, player in enumerate(players)}
        self.version = version
        self.lock = threading.Lock()

    def token_for(self, sender: int, action: dict[str, Any]) -> str:
        """The record's undos were agreed at the table; late in a game one may touch another player's moves,
        which needs their consent (an undo request and votes) from a seat: the operator's token stands in."""
        return ADMIN if action.get("type") in ("undo", "redo") else self.tokens[sender]


def warm_all(stack: Stack, game_ids: list[int]) -> float:
    """Ask each game's worker to build its session (the `railpost.warm` task a started game sends), then wait
    until the queues are drained; returns the seconds it took."""
    from celery import Celery

    from services.config import Config
    from services.play.dispatch import WARM_TASK

    layout = Config(redis_url=REDIS_URL, celery_queue=QUEUE, worker_shards=stack.shards)
    app = Celery("bench", broker=REDIS_URL)
    started = time.monotonic()
    with app.producer_or_acquire() as producer:
        for game_id in game_ids:
            app.send_task(WARM_TASK, args=[game_id], queue=layout.queue_for(game_id), producer=producer)
    settle(stack)
    return time.monotonic() - started


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def worker_rss(stack: Stack) -> list[float]:
    return [rss_mib(p.pid) for p in stack.procs[1:]]


def curve(stack: Stack, tables: list[SeededTable], script: list, label: str, meter: CpuMeter,
          order: list[int]) -> list[dict[str, Any]]:
    rows = []
    for shards in order:
        if shards != stack.shards:
            stack.restart(shards)
        idle = worker_rss(stack)
        took = warm_all(stack, [int(t.path.rsplit("/", 1)[1]) for t in tables])
        print(f"       [{label}] {shards} worker process(es): {len(tables)} sessions built in {took:.1f}s; "
              f"worker RSS {' + '.join(f'{r:.0f}' for r in worker_rss(stack))} MiB "
              f"(idle {' + '.join(f'{r:.0f}' for r in idle)}) | calibration loop {calibration_ms():.0f} ms | "
              f"load {load_text()}", flush=True)
        for rate in [*RATES, None]:
            name = f"{shards}w " + (f"{rate:.0f}/s" if rate else "flood")
            figures = run_phase(name, tables, script, rate=rate, seconds=SECONDS,
                                threads=64 if rate is None else 32, meter=meter)
            rows.append({**figures, "workers": shards, "store": label})
            settle(stack)
        print(f"       [{label}] {shards} worker process(es) after play: RSS "
              f"{' + '.join(f'{r:.0f}' for r in worker_rss(stack))} MiB", flush=True)
    return rows


def cold_games(url: str, game_ids: list[int], samples: int = 200) -> None:
    """Serve games not in the session cache: the worker's own path (`SessionCache.use`: newest snapshot plus
    the events after it), in this process, against the bench's PostgreSQL; wall time per game."""
    from services.play.sessions import HEAP, RECLAIM_AFTER, SessionCache
    from shared.eventstore import open_recorder

    HEAP.enable()  # as in the rules worker
    recorder = open_recorder(url, pool_size=2)
    try:
        chosen = random.Random(28).sample(game_ids, min(samples, len(game_ids)))
        games = [recorder.get_game(g) for g in chosen]
        cache = SessionCache(recorder, size=len(games) + 1)
        times, behind = [], []
        for game in games:
            assert game is not None
            started = time.perf_counter()
            with cache.use(game) as session:
                assert session.version == game.version
            times.append(time.perf_counter() - started)
            behind.append(game.version % SNAPSHOT_EVERY)
        print(f"cold game: {len(times)} games not cached, served from snapshot + catch-up "
              f"(0-{max(behind)} events after the snapshot, mean {statistics.mean(behind):.0f}): "
              f"p50 {pct(times, .5):.1f} ms p99 {pct(times, .99):.1f} ms max {max(times) * 1000:.1f} ms "
              f"(target p99 < 50 ms) | load {load_text()}", flush=True)
        started = time.perf_counter()
        HEAP.reclaim()
        every = max(RECLAIM_AFTER, len(games) // 4)
        print(f"       the collection that reclaims dropped sessions (once per {every} dropped here): "
              f"{(time.perf_counter() - started) * 1000:.0f} ms with {len(games)} sessions cached", flush=True)
        # memory per cached session: what the loaded sessions hold, measured by tracemalloc on a second load
        some = games[:50]
        del cache
        cache = SessionCache(recorder, size=len(some) + 1)
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for game in some:
            with cache.use(game):  # type: ignore[arg-type]
                pass
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        mean_version = statistics.mean(g.version for g in some if g is not None)
        print(f"memory per cached game: {held / len(some) / 1024:.0f} KiB (tracemalloc over {len(some)} "
              f"sessions, mean version {mean_version:.0f})", flush=True)
    finally:
        recorder.close()


def plot(rows: list[dict[str, Any]], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("       (matplotlib is not installed: no plot; `pip install -e '.[dev]'`)", flush=True)
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=False)
    for ax, store in zip(axes, sorted({r["store"] for r in rows}, key=len), strict=False):
        for shards in WORKERS:
            part = [r for r in rows if r["store"] == store and r["workers"] == shards]
            if not part:
                continue
            xs = [r["rate"] for r in part]
            line, = ax.plot(xs, [r["p99"] for r in part], marker="o", label=f"{shards} worker(s) p99")
            ax.plot(xs, [r["p50"] for r in part], marker=".", linestyle="--", color=line.get_color(),
                    label=f"{shards} worker(s) p50")
        ax.set_title(f"{ACTIVE} active games, {store}")
        ax.set_xlabel("moves/s sustained")
        ax.set_ylabel("accept→commit ms")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"Railpost service curve (2 cores; load {rows[0]['load']:.1f}–{max(r['load'] for r in rows):.1f})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"       plot: {path}", flush=True)


def main() -> None:
    record = json.loads(RECORD.read_text())
    script = scripted_actions(record)
    players = [p["id"] for p in record["players"]]
    stack = Stack(shards=WORKERS[0], env={"SESSION_CACHE_SIZE": CACHE})
    try:
        http = requests.Session()
        template = Table(http, record)  # one real game: created, joined and started through the API
        template_id = int(template.path.rsplit("/", 1)[1])
        seeder = Seeder(record, script)
        rng = random.Random(28)
        versions = [rng.randrange(0, len(script) - HEADROOM) for _ in range(ACTIVE)]
        started = time.monotonic()
        active = seeder.seed(stack.url, template_id, versions, tokens=True)
        print(f"seeded {ACTIVE} active games (versions 0-{max(versions)}, {sum(versions)} events) in "
              f"{time.monotonic() - started:.1f}s | load {load_text()}", flush=True)
        tables = [SeededTable(g, v, players) for g, v in active]
        meter = CpuMeter(stack)
        rows = curve(stack, tables, script, f"{ACTIVE} stored", meter, WORKERS)
        stored = list(active)
        if STORED > ACTIVE:
            extra = [rng.randrange(0, len(script) + 1) for _ in range(STORED - ACTIVE)]
            started = time.monotonic()
            stored += seeder.seed(stack.url, template_id, extra, tokens=False)
            with psycopg.connect(stack.url) as conn:
                events = conn.execute("SELECT count(*) FROM events").fetchone()[0]
                size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
            print(f"seeded {STORED - ACTIVE} more stored games in {time.monotonic() - started:.1f}s: "
                  f"{len(stored) + 1} games, {events} events, {size / 2**20:.0f} MiB | load {load_text()}",
                  flush=True)
            stack.restart(stack.shards)  # the workers see the grown store afresh
            rows += curve(stack, tables, script, f"{len(stored) + 1} stored", meter, WORKERS[::-1])
        print(f"{'store':>14} {'workers':>7} {'offered':>8} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
              f"{'cpu ms/move':>11} {'load':>5}", flush=True)
        for r in sorted(rows, key=lambda r: (len(r["store"]), r["store"], r["workers"])):
            offered = f"{r['offered']:.0f}" if r["offered"] else "flood"
            print(f"{r['store']:>14} {r['workers']:7d} {offered:>8} {r['rate']:8.0f} {r['p50']:7.1f} "
                  f"{r['p99']:7.1f} {sum(r['cpu'].values()):11.2f} {r['load']:5.2f}", flush=True)
        if PLOT:
            plot(rows, PLOT)
        # cold: the stored games not played on (their versions are as seeded), in a process of their own
        cold_games(stack.url, [g for g, v in stored[ACTIVE:] or active if v > 0])
    finally:
        stack.close()
        redis.Redis.from_url(REDIS_URL).flushdb()


if __name__ == "__main__":
    main()

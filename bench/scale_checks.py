"""The scale test's end checks read straight from the db host: outbox and event positions without a gap, and
every turn told once (the webhook lines the players' endpoint wrote, against the turns the outbox holds)."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg


def settle(url: str, timeout: float = 90.0) -> dict[str, Any]:
    """Wait until every queued receipt is settled, every row is numbered and the notifier has read and
    delivered everything; returns what was still open at the end (empty values when all is done)."""
    deadline = time.monotonic() + timeout
    while True:
        with psycopg.connect(url, autocommit=True) as conn:
            open_ = {
                "queued": conn.execute("SELECT count(*) FROM receipts WHERE status = 'queued'").fetchone()[0],
                "unnumbered": conn.execute("SELECT (SELECT count(*) FROM outbox WHERE position IS NULL) + "
                                           "(SELECT count(*) FROM events WHERE position IS NULL)").fetchone()[0],
                "unread": conn.execute("SELECT coalesce(max(o.position), 0) - coalesce(max(t.position), 0) "
                                       "FROM outbox o, notifier_tracking t").fetchone()[0],
                "undelivered": conn.execute("SELECT count(*) FROM notifier_deliveries "
                                            "WHERE status <> 'succeeded'").fetchone()[0],
            }
        if not any(open_.values()) or time.monotonic() > deadline:
            return open_
        time.sleep(0.5)


def position_gaps(url: str) -> dict[str, int]:
    """Per table: how many positions between 1 and the highest are missing or taken twice."""
    out = {}
    with psycopg.connect(url, autocommit=True) as conn:
        for table in ("outbox", "events"):
            positions = [r[0] for r in conn.execute(f"SELECT position FROM {table} WHERE position IS NOT NULL "
                                                    "ORDER BY position")]
            out[table] = len(set(range(1, (positions[-1] if positions else 0) + 1)) ^ set(positions)) + (
                len(positions) - len(set(positions)))
    return out


def expected_turns(url: str, games: set[int]) -> Counter[tuple[int, str]]:
    """(outbox position, player) for every player a turn row makes acting who was not acting just before
    in that game (what docs/notifier.md promises a `turn.started` for)."""
    out: Counter[tuple[int, str]] = Counter()
    acting: dict[int, set[str]] = {}
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT position, game_id, kind, payload FROM outbox ORDER BY position").fetchall()
    for position, game, kind, payload in rows:
        if game not in games:
            continue
        if kind == "game_finished":
            acting[game] = set()
        if kind != "turn":
            continue
        now = [str(p) for p in json.loads(payload).get("acting") or []]
        for player in dict.fromkeys(now):
            if player not in acting.get(game, set()):
                out[(position, player)] += 1
        acting[game] = set(now)
    return out


def told_turns(hooks: Path) -> Counter[tuple[int, str]]:
    """(outbox position, player) of every turn.started the endpoint received (webhook-id msg_o<pos>_e<ep>)."""
    out: Counter[tuple[int, str]] = Counter()
    if not hooks.exists():
        return out
    for line in hooks.read_text(encoding="utf-8").splitlines():
        hook = json.loads(line)
        if hook.get("type") == "turn.started" and str(hook.get("id", "")).startswith("msg_o"):
            position = int(hook["id"][len("msg_o"):].split("_", 1)[0])
            out[(position, hook["player"])] += 1
    return out


def turn_ledger(expected: Counter[tuple[int, str]], told: Counter[tuple[int, str]]) -> dict[str, int]:
    return {"turns": len(expected), "told_once": sum(1 for k in expected if told[k] == 1),
            "untold": sum(1 for k in expected if told[k] == 0),
            "told_twice": sum(n - 1 for n in told.values() if n > 1),
            "told_unexpected": sum(n for k, n in told.items() if k not in expected)}

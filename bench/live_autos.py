"""Live play against the record: do the auto actions the engine derives equal the recorded ones?

For every conformance fixture: replay in replay mode (recorded auto_actions applied) while the digest equals
the golden trace; on that same prefix, submit every action live (the engine derives the auto actions, as for
a move posted to the API) and compare, action by action, the derived `auto_actions` with the recorded ones
and the live digest with the golden trace. Prints one row per game and the first mismatch.

usage: python -m bench.live_autos [--title 1825|1828|1840] [--only SUBSTRING] [--verbose]
Exit 0 when no game shows a mismatch inside its replayable prefix.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path
from typing import Any

from shared.conformance import first_diff
from shared.engine import EngineError, GameSession, ReplayError

ROOT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "conformance"
IGNORED = frozenset({"created_at", "id", "user"})
# the public records renamed their players ("Player 1") but kept the reasons' original names
NAMED = re.compile(r"^.+? (bought on corporation|has bought, shares exist|must sell shares)")


def normalise(autos: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """An auto action as the record compares it: without timestamps, ids or submitting user.

    A route is compared by what it is (train, revenue, the hexes it visits), not by the direction the
    reference happened to walk it, and zero extras count as absent.
    """
    out = []
    for auto in autos or []:
        plain = {k: v for k, v in auto.items() if k not in IGNORED}
        if isinstance(plain.get("reason"), str):
            plain["reason"] = NAMED.sub(r"<player> \1", plain["reason"])
        if plain.get("type") == "run_routes":
            for key in ("extra_revenue", "subsidy"):
                if not plain.get(key):
                    plain.pop(key, None)
            plain["routes"] = sorted(
                (r.get("train"), r.get("revenue"), sorted(r.get("hexes") or [])) for r in plain.get("routes") or []
            )
        out.append(plain)
    return out


def fixtures(title: str | None, only: str | None) -> list[Path]:
    out = []
    for trace in sorted(ROOT.rglob("*.trace.jsonl.gz")):
        fixture = trace.with_name(trace.name.replace(".trace.jsonl.gz", ".json"))
        if title and trace.parent.name != title:
            continue
        if only and only not in fixture.name:
            continue
        out.append(fixture)
    return out


def load_trace(fixture: Path) -> list[dict[str, Any]]:
    trace = fixture.with_name(fixture.name.replace(".json", ".trace.jsonl.gz"))
    with gzip.open(trace, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def replay_prefix(record: dict[str, Any], golden: list[dict[str, Any]]) -> tuple[int, str]:
    """How many leading actions replay (recorded autos applied) with the golden digest; and why it stops."""
    state = {"ok": 0, "why": ""}

    class Stop(Exception):
        pass

    def check(index: int, action: dict[str, Any], session: GameSession) -> None:
        found = first_diff(golden[index], session.digest(action))
        if found:
            state["why"] = f"digest {found[0]} expected {found[1]!r} got {found[2]!r}"
            raise Stop
        state["ok"] = index + 1

    try:
        GameSession.from_record(record, on_action=check)
    except Stop:
        pass
    except EngineError as err:
        state["why"] = f"cannot set up: {err.message}"
    except ReplayError as err:
        state["why"] = f"refused: {err}"
    return state["ok"], state["why"]


def live_check(record: dict[str, Any], golden: list[dict[str, Any]], prefix: int) -> dict[str, Any]:
    """Submit the first `prefix` actions live; the first action whose derived autos or digest differ."""
    actions = record.get("actions") or []
    report: dict[str, Any] = {"autos_compared": 0, "mismatch": None}

    class Stop(Exception):
        pass

    def check(index: int, action: dict[str, Any], session: GameSession) -> None:
        stored = session.entries[-1].action
        if action["type"] not in ("undo", "redo", "message"):
            want = normalise(action.get("auto_actions"))
            got = normalise(stored.get("auto_actions"))
            if want or got:
                report["autos_compared"] += 1
            if want != got:
                report["mismatch"] = {"index": index, "id": action.get("id"), "type": action["type"],
                                      "entity": action.get("entity"), "recorded": want, "derived": got}
                raise Stop
        found = first_diff(golden[index], session.digest(action))
        if found:
            report["mismatch"] = {"index": index, "id": action.get("id"), "type": action["type"],
                                  "digest": f"{found[0]} expected {found[1]!r} got {found[2]!r}"}
            raise Stop

    try:
        GameSession.from_record(record, live=True, limit=prefix, on_action=check)
    except Stop:
        pass
    except ReplayError as err:
        report["mismatch"] = {"index": err.index, "id": err.action.get("id"), "type": err.action.get("type"),
                              "refused": err.error.message}
    report["recorded_autos"] = sum(1 for a in actions[:prefix] if a.get("auto_actions"))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--title")
    parser.add_argument("--only")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    bad = 0
    for fixture in fixtures(args.title, args.only):
        record = json.loads(fixture.read_text(encoding="utf-8"))
        golden = load_trace(fixture)
        total = len(record.get("actions") or [])
        prefix, why = replay_prefix(record, golden)
        if prefix == 0:
            print(f"{fixture.parent.name}/{fixture.stem}: replay 0/{total}: {why}")
            continue
        report = live_check(record, golden, prefix)
        mismatch = report["mismatch"]
        status = "ok" if mismatch is None else f"MISMATCH at index {mismatch['index']} (id {mismatch['id']})"
        bad += mismatch is not None
        print(f"{fixture.parent.name}/{fixture.stem}: replay {prefix}/{total}; live autos compared "
              f"{report['autos_compared']} (recorded {report['recorded_autos']}): {status}")
        if mismatch is not None:
            print("    " + json.dumps(mismatch)[:2000])
        if args.verbose and why:
            print(f"    replay stops: {why}")
        sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

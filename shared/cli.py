"""`railpost` command line: replay recorded games (and, for operators, run the service)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from .engine import EngineError, GameSession, ReplayError


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty() and (done == total or done % 25 == 0):
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\rreplaying [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def replay(args: argparse.Namespace) -> int:
    path = Path(args.game)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        print(f"cannot read {path}: {err}", file=sys.stderr)
        return 2
    trace_file = open(args.trace, "w", encoding="utf-8") if args.trace else None  # noqa: SIM115

    def on_action(index: int, action: dict[str, Any], session: GameSession) -> None:
        if trace_file is not None:
            trace_file.write(json.dumps(session.digest(action), separators=(",", ":")) + "\n")

    started = time.perf_counter()
    try:
        session = GameSession.from_record(record, progress=_progress, live=args.live,
                                          on_action=on_action if trace_file is not None else None)
    except EngineError as err:
        valid = f"; valid: {', '.join(map(str, err.valid))}" if err.valid else ""
        print(f"cannot set up {path.name}: {err.message}{valid}", file=sys.stderr)
        print(json.dumps({"error": err.message, "rule": err.rule, "valid": err.valid}))
        return 1
    except ReplayError as err:
        print(f"replay stopped: {err}", file=sys.stderr)
        print(json.dumps({"error": str(err), "action_id": err.action.get("id"), "type": err.action.get("type"),
                          "reason": err.error.message, "rule": err.error.rule}))
        return 1
    finally:
        if trace_file is not None:
            trace_file.close()
    elapsed = time.perf_counter() - started
    result = session.result or {}
    print(f"{len(record.get('actions') or [])} actions in {elapsed:.3f}s; finished={session.finished}",
          file=sys.stderr)
    print(json.dumps(result))
    return 0


def refusals(args: argparse.Namespace) -> int:
    from .refusals import check_refusals

    return check_refusals(Path(args.game), Path(args.refusals))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="railpost", description="Railpost 18xx play-by-mail server tools")
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="replay an 18xx.games game record and print the final result JSON")
    rp.add_argument("game", help="path to the game record (JSON)")
    rp.add_argument("--trace", help="write one state digest per action (JSON lines) to this file")
    rp.add_argument("--live", action="store_true",
                    help="submit every action as a live move: recorded auto_actions are ignored and the engine "
                         "derives them (standing orders, automatic passes), as for a move posted to the API")
    rp.set_defaults(func=replay)
    rf = sub.add_parser("refusals", help="check that every action of a refusals file is refused in its position")
    rf.add_argument("game", help="path to the game record (JSON)")
    rf.add_argument("refusals", help="refusals file (JSON lines, optionally .gz): after, after_id, action")
    rf.set_defaults(func=refusals)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())

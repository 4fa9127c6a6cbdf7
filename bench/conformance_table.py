"""Replay every recorded and generated game in replay and live mode, play it over REST (the embedded
default app in-process: every move posted to the API, bench/rest_conformance.py) and check its refusals;
print the README's conformance table (digest lines matched before the first divergence, refusals refused).
`--no-rest` leaves the REST column out (it is the slowest: every move is a request and a stored event).

`--write-known` rewrites tests/engine/conformance_known.json, the list of divergences the test suite
expects (each an xfail that turns into a failure the moment the game passes, so the list stays true).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bench.rest_conformance import Call, check_rest, embedded_call
from shared.conformance import Outcome, check_refusals, check_trace, discover, fixture_paths

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance"
KNOWN = ROOT / "tests" / "engine" / "conformance_known.json"


def _cell(outcome: Outcome | None) -> str:
    if outcome is None:
        return "—"
    excused = f" (+{outcome.excused} refused, taken back by the record)" if outcome.excused else ""
    return f"{outcome.matched} / {outcome.total}{excused}" + ("" if outcome.complete else " ✗")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--title", help="only games of this title folder (1825, 1828, 1840)")
    parser.add_argument("--write-known", action="store_true", help="rewrite " + str(KNOWN.relative_to(ROOT)))
    parser.add_argument("--no-rest", action="store_true", help="leave the REST column out")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        call, close = (None, None) if args.no_rest else embedded_call(Path(tmp))
        try:
            return _table(args, call)
        finally:
            if close is not None:
                close()


def _table(args: argparse.Namespace, call: Call | None) -> int:
    known: dict[str, dict[str, str]] = {"replay": {}, "live": {}, "rest": {}, "refusals": {}}
    print("| title | game | replay | live | REST | refusals |\n| --- | --- | --- | --- | --- | --- |")
    for fixture in discover(CONFORMANCE):
        name = str(fixture.relative_to(CONFORMANCE))[: -len(".json")]
        title = fixture.parent.name
        if args.title and title != args.title:
            continue
        outcomes: dict[str, Outcome | None] = {mode: check_trace(fixture, mode) for mode in ("replay", "live")}
        outcomes["rest"] = check_rest(fixture, call) if call is not None else None
        outcomes["refusals"] = check_refusals(fixture) if fixture_paths(fixture)[2].exists() else None
        for mode, outcome in outcomes.items():
            if outcome is not None and not outcome.complete:
                known[mode][name] = outcome.note
        print(f"| {title} | {fixture.stem} | {_cell(outcomes['replay'])} | {_cell(outcomes['live'])} "
              f"| {_cell(outcomes['rest'])} | {_cell(outcomes['refusals'])} |", flush=True)
    for mode, games in known.items():
        for name, note in games.items():
            print(f"{mode:8} {name}: {note}", file=sys.stderr)
    if args.write_known:
        if call is None:  # the REST column was not played: keep what the file says about it
            known["rest"] = json.loads(KNOWN.read_text(encoding="utf-8")).get("rest", {})
        KNOWN.write_text(json.dumps(known, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0 if not any(known.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

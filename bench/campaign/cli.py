"""`python -m bench.campaign`: the differential campaign against the reference 18xx engine.

  bank     the oracle bot plays the seed plan's games into a bank folder (needs Ruby and REF_18XX)
  forward  Railpost replays every banked game in replay and live mode and submits its refusals
           (plays the plan's missing games first unless --no-generate; that part needs Ruby and REF_18XX)
  reverse  Railpost plays the plan's games from its own legal actions, the reference replays them strictly
           (needs Ruby and REF_18XX)
  corners  human corners (chat, end_game by anyone, undo by action_id, undo then redo) grafted onto the
           public corpus; the reference traces each, Railpost replays it in both modes (needs Ruby and REF_18XX)
  table    the campaign tables as markdown, optionally written into docs/conformance.md (needs neither)
  plan     list the seed plan

Results are appended to var/campaign/{forward,reverse}.jsonl as each game is done; a re-run skips the
games already checked with the same code revision, so an interrupted run resumes where it stopped.
This is a development tool: the product, its tests and CI never need Ruby or the reference.
"""

from __future__ import annotations

import argparse
import calendar
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.campaign import bank, corners, forward, results, reverse, table
from bench.campaign.env import DEFAULT_VAR, ROOT, require_oracle
from bench.campaign.plan import plan

DOC = ROOT / "docs" / "conformance.md"


def _deadline(text: str | None) -> float | None:
    """'23:55' (UTC, today) -> epoch seconds."""
    if not text:
        return None
    h, m = (int(x) for x in text.split(":"))
    now = time.gmtime()
    return float(calendar.timegm((now.tm_year, now.tm_mon, now.tm_mday, h, m, 0, 0, 0, 0)))


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bench.campaign", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--oracle", help="the oracle scripts' folder (default ../shared/oracle or $RAILPOST_ORACLE)")
    sub = ap.add_subparsers(dest="cmd", required=True)

    def planned(p: argparse.ArgumentParser, games: int) -> None:
        p.add_argument("--games", type=int, default=games, help=f"games per configuration (default {games})")
        p.add_argument("--title", action="append", choices=["1825", "1828", "1840"], help="only this title")
        p.add_argument("--config", action="append", help="only this configuration (repeatable)")
        p.add_argument("--until", help="start no game that might not end before HH:MM UTC")
        p.add_argument("--first", type=int, default=0,
                       help="the first round of the plan (default 0): rounds before it, and their seeds, are skipped")

    b = sub.add_parser("bank", help="the oracle bot fills a bank with the plan's games")
    planned(b, 40)
    b.add_argument("--bank", type=Path, default=DEFAULT_VAR / "bank")
    b.add_argument("--work", type=Path, help="the bot's scratch folder (default BANK/../oracle-work)")
    b.add_argument("--index-only", action="store_true", help="only (re)write BANK/INDEX.md (no Ruby needed)")
    f = sub.add_parser("forward", help="Railpost replays the banked games (replay, live, refusals)")
    planned(f, 1)
    f.add_argument("--bank", type=Path, default=DEFAULT_VAR / "bank")
    f.add_argument("--work", type=Path, help="the bot's scratch folder (default BANK/../oracle-work)")
    f.add_argument("--no-generate", action="store_true", help="only check what the bank holds (no Ruby needed)")
    f.add_argument("--results", type=Path, default=DEFAULT_VAR / "forward.jsonl")
    f.add_argument("--timeout", type=int, default=900, help="seconds per game (default 900)")
    r = sub.add_parser("reverse", help="Railpost plays, the reference replays strictly")
    planned(r, 1)
    r.add_argument("--out", type=Path, default=DEFAULT_VAR / "reverse", help="where exported games go")
    r.add_argument("--results", type=Path, default=DEFAULT_VAR / "reverse.jsonl")
    r.add_argument("--max-actions", type=int, default=6000, help="Railpost's game stops here (default 6000)")
    r.add_argument("--timeout", type=int, default=1200, help="seconds per game (default 1200)")
    r.add_argument("--driver", choices=["auto", "soak", "reverse_check"], default="auto",
                   help="Railpost's player: the soak tests' weighted one or reverse_check.py's (auto: soak for 1825 and 1840)")
    c = sub.add_parser("corners", help="human corners grafted onto reference records, checked forward")
    c.add_argument("--source", type=Path, action="append",
                   help="folder of records with golden traces (default tests/fixtures/conformance; repeatable)")
    c.add_argument("--bank", type=Path, default=DEFAULT_VAR / "corners")
    c.add_argument("--kind", action="append", choices=list(corners.KINDS), help="only this corner (repeatable)")
    c.add_argument("--title", action="append", choices=["1825", "1828", "1840"], help="only this title")
    c.add_argument("--seed", type=int, default=1, help="draws the points of each corner (default 1)")
    c.add_argument("--each", action="store_true", help="one corner per source record, the kinds taking turns")
    c.add_argument("--results", type=Path, default=DEFAULT_VAR / "corners.jsonl")
    c.add_argument("--timeout", type=int, default=900, help="seconds per check (default 900)")
    t = sub.add_parser("table", help="render the campaign tables (markdown)")
    t.add_argument("--forward-results", type=Path, default=DEFAULT_VAR / "forward.jsonl")
    t.add_argument("--reverse-results", type=Path, default=DEFAULT_VAR / "reverse.jsonl")
    t.add_argument("--rev", help="only results of this code revision (default: the latest per game)")
    t.add_argument("--corpus", type=Path, help="also write this saved `python -m bench.conformance_table` output")
    t.add_argument("--write", nargs="?", type=Path, const=DOC, help=f"write them into DOC (default {DOC.name})")
    p = sub.add_parser("plan", help="print the seed plan")
    planned(p, 1)
    one = sub.add_parser("_check-one")  # internal: one forward check in a child process
    one.add_argument("record", type=Path)
    return ap


def _forward(args: argparse.Namespace) -> int:
    if not args.no_generate:
        oracle = require_oracle(args.oracle)
        work = args.work or args.bank.parent / "oracle-work"
        bank.fill(oracle, args.bank, plan(args.title, args.games, args.config, args.first), work, _deadline(args.until))
    records = forward.discover(args.bank, args.title)
    rev = results.code_revision(ROOT)
    done = results.done_keys(args.results, rev)
    todo = [(r, s) for r in records if (s := forward.spec_of(r)).key not in done
            and (not args.config or s.config in args.config)]
    print(f"forward: {len(records)} banked games, {len(records) - len(todo)} already checked at {rev}", flush=True)
    until = _deadline(args.until)
    for i, (record, spec) in enumerate(todo, 1):
        if until is not None and time.time() > until:
            print("forward: deadline reached", flush=True)
            break
        start = time.time()
        out = forward.run_child(record, args.timeout)
        line = {"key": spec.key, "name": spec.name if record.stem == spec.name else record.stem,
                "title": spec.title, "config": spec.config, "players": spec.players, "seed": spec.seed,
                "options": list(spec.options), "rev": rev, "at": _now(), **out}
        results.append(args.results, line)
        verdict = " ".join(f"{m}={'ok' if forward.ok(out.get(m)) else 'DIFF'}" for m in ("replay", "live"))
        if out.get("refusals") is not None:
            verdict += f" refusals={out['refusals']['matched']}/{out['refusals']['total']}"
        print(f"[{i}/{len(todo)}] {spec.key}: {verdict} ({time.time() - start:.0f} s)", flush=True)
    return 0


def _reverse(args: argparse.Namespace) -> int:
    oracle = require_oracle(args.oracle)
    specs = plan(args.title, args.games, args.config, args.first)
    rev = results.code_revision(ROOT)
    done = results.done_keys(args.results, rev)
    todo = [s for s in specs if f"{s.key}/{reverse.driver_for(s, args.driver)}" not in done]
    print(f"reverse: {len(specs)} planned games, {len(specs) - len(todo)} already checked at {rev}", flush=True)
    until = _deadline(args.until)
    args.out.mkdir(parents=True, exist_ok=True)
    for i, spec in enumerate(todo, 1):
        if until is not None and time.time() > until:
            print("reverse: deadline reached", flush=True)
            break
        start = time.time()
        out = reverse.run_one(oracle, spec, args.out, args.max_actions, args.timeout, args.driver)
        key = f"{spec.key}/{reverse.driver_for(spec, args.driver)}"
        results.append(args.results, {"key": key, "title": spec.title, "config": spec.config,
                                      "players": spec.players, "seed": spec.seed, "options": list(spec.options),
                                      "rev": rev, "at": _now(), **out})
        print(f"[{i}/{len(todo)}] {spec.key}: {out['outcome']} after {out['actions']} actions"
              f"{' — ' + out['first'] if out['first'] else ''} ({time.time() - start:.0f} s)", flush=True)
    return 0


def _corners(args: argparse.Namespace) -> int:
    from shared.conformance import discover

    oracle = require_oracle(args.oracle)
    bank.nice()
    sources = [r for root in (args.source or [ROOT / "tests" / "fixtures" / "conformance"]) for r in discover(root)
               if not args.title or r.parent.name in args.title]
    made = corners.make(oracle, sources, args.bank, args.kind or list(corners.KINDS), args.seed, args.each)
    rev = results.code_revision(ROOT)
    done = results.done_keys(args.results, rev)
    for i, record in enumerate(made, 1):
        spec, kind = forward.spec_of(record), corners.kind_of(record)
        key = f"{spec.title}/{kind}/{record.stem}"
        if key in done:
            continue
        out = forward.run_child(record, args.timeout)
        results.append(args.results, {"key": key, "name": record.stem, "title": spec.title, "config": kind,
                                      "players": spec.players, "seed": args.seed, "rev": rev, "at": _now(), **out})
        verdict = " ".join(f"{m}={'ok' if forward.ok(out.get(m)) else 'DIFF'}" for m in ("replay", "live"))
        print(f"[{i}/{len(made)}] {record.stem}: {verdict}", flush=True)
    print(table.forward_table(list(results.latest(results.load(args.results), rev).values())))
    return 0


def _table(args: argparse.Namespace) -> int:
    fwd = list(results.latest(results.load(args.forward_results), args.rev).values())
    rev = list(results.latest(results.load(args.reverse_results), args.rev).values())
    tables = {"forward": table.forward_table(fwd), "reverse": table.reverse_table(rev)}
    if args.corpus:
        lines = args.corpus.read_text(encoding="utf-8").splitlines()
        tables["corpus"] = "\n".join(ln for ln in lines if ln.startswith("|"))
    if args.write:
        doc = args.write.read_text(encoding="utf-8")
        for which, text in tables.items():
            doc = table.splice(doc, which, text)
        args.write.write_text(doc, encoding="utf-8")
        print(f"wrote the campaign tables into {args.write}")
    else:
        print("Forward (reference bot games replayed by Railpost)\n\n" + tables["forward"])
        print("\nReverse (Railpost's games replayed strictly by the reference)\n\n" + tables["reverse"])
        if "corpus" in tables:
            print("\nPublic corpus\n\n" + tables["corpus"])
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.cmd == "bank" and args.index_only:
        print(f"wrote {bank.write_index(args.bank)}")
        return 0
    if args.cmd == "bank":
        oracle = require_oracle(args.oracle)
        bank.nice()
        work = args.work or args.bank.parent / "oracle-work"
        bank.fill(oracle, args.bank, plan(args.title, args.games, args.config, args.first), work, _deadline(args.until))
        return 0
    if args.cmd == "forward":
        return _forward(args)
    if args.cmd == "reverse":
        return _reverse(args)
    if args.cmd == "corners":
        return _corners(args)
    if args.cmd == "table":
        return _table(args)
    if args.cmd == "plan":
        for spec in plan(args.title, args.games, args.config, args.first):
            print(f"{spec.key}\t{spec.opts or '-'}\t{spec.name}")
        return 0
    if args.cmd == "_check-one":
        import json

        print(json.dumps(forward.check_one(args.record)))
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())

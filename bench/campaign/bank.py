"""Fill a bank of fresh bot-played games: the oracle bot plays each spec of the plan against the reference.

One game at a time (the bot is one core for up to ten minutes), each written as NAME.json,
NAME.trace.jsonl.gz, NAME.setup.json and NAME.refusals.jsonl.gz into BANK/<title>/. A spec is skipped when
its trace is already there or when an earlier attempt failed (the bot ran out of time, or the reference's
validation did not reach the record's result): attempts are logged to BANK/attempts.jsonl so a restarted
filler neither repeats a failure nor loses its place.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from bench.campaign.env import Oracle
from bench.campaign.plan import RECORD_TITLE, Spec

#: Wall-clock seconds the bot may spend on one game, and about how long one takes, for a bank at nice 15 on a
#: busy shared machine: the bot counts wall time, and at nice 15 among other engineers' jobs it gets a few
#: per cent of a core, so the limits are generous (a game cut short is lost) and the deadline check uses
#: the typical length instead. An idle core needs about a tenth of it (BANK_TIME_SCALE scales both).
LIMITS = {"1840": 900, "1828": 2400, "1825": 3000, "1825 combined": 4200, "1825 all": 6000}
TYPICAL = {"1840": 120, "1828": 600, "1825": 600, "1825 combined": 1500, "1825 all": 3000}


def _kind(spec: Spec) -> str:
    if spec.title == "1825" and "unit_123" in spec.options:
        return "1825 all"
    if spec.title == "1825" and {"unit_12", "unit_23"} & set(spec.options):
        return "1825 combined"
    return spec.title


def time_limit(spec: Spec) -> int:
    """Seconds the bot may spend on one game."""
    return int(LIMITS[_kind(spec)] * float(os.environ.get("BANK_TIME_SCALE", "1")))


def typical(spec: Spec) -> int:
    """About how long one game takes (for the deadline: a game not likely to end before it is not started)."""
    return int(TYPICAL[_kind(spec)] * float(os.environ.get("BANK_TIME_SCALE", "1")))


def banked(bank: Path, spec: Spec) -> Path | None:
    """The spec's record in the bank, if the bot finished it."""
    record = bank / spec.title / f"{spec.name}.json"
    return record if (bank / spec.title / f"{spec.name}.trace.jsonl.gz").exists() else None


def attempted(bank: Path) -> set[str]:
    """Names of the specs already tried (finished or failed)."""
    log = bank / "attempts.jsonl"
    if not log.exists():
        return set()
    return {json.loads(line)["name"] for line in log.read_text().splitlines() if line.strip()}


def fill(oracle: Oracle, bank: Path, specs: list[Spec], work: Path, until: float | None = None) -> None:
    """Play every spec not yet banked or tried, in order, until the plan or the time (epoch s) runs out."""
    done = attempted(bank)
    todo = [s for s in specs if s.name not in done and not banked(bank, s)]
    print(f"bank {bank}: {len(specs) - len(todo)} of {len(specs)} specs done or tried", flush=True)
    for i, spec in enumerate(todo, 1):
        limit = time_limit(spec)
        if until is not None and time.time() + typical(spec) > until:
            continue  # might not end before the deadline; a shorter game later in the plan still may
        (bank / spec.title).mkdir(parents=True, exist_ok=True)
        start = time.time()
        env = {**oracle.env(), "OUTROOT": str(bank), "ORACLE_WORK": str(work), "BOT_TIME_LIMIT": str(limit)}
        cmd = ["bash", str(oracle.dir / "bot" / "make_game.sh"), RECORD_TITLE[spec.title], spec.title,
               str(spec.players), str(spec.seed), spec.opts, spec.name]
        rc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        ok = rc == 0 and banked(bank, spec) is not None
        line = {"name": spec.name, "key": spec.key, "ok": ok, "rc": rc, "seconds": round(time.time() - start)}
        with (bank / "attempts.jsonl").open("a") as fh:
            fh.write(json.dumps(line) + "\n")
        print(f"[{i}/{len(todo)}] {spec.key} {'banked' if ok else 'FAILED'} in {line['seconds']} s", flush=True)
        if ok:
            write_index(bank)


def nice() -> None:
    """Run at low priority: the machine is shared and the bank is background work."""
    try:
        os.nice(max(0, 15 - os.nice(0)))
    except OSError:
        pass


def write_index(bank: Path) -> Path:
    """BANK/INDEX.md: one row per banked game (title, configuration, players, seed, actions, standing-order
    actions, refusals, end reason), so whoever uses the bank sees what it holds."""
    import gzip

    from bench.campaign.forward import discover, spec_of

    rows = ["| title | configuration | players | seed | record | actions | standing-order actions | refusals "
            "| end |", "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- |"]
    counts: dict[tuple[str, str], int] = {}
    for record_path in discover(bank):
        spec = spec_of(record_path)
        record = json.loads(record_path.read_text(encoding="utf-8"))
        actions = record.get("actions") or []
        programs = sum(str(a.get("type", "")).startswith("program_") for a in actions)
        refusals_path = record_path.with_name(record_path.name[: -len(".json")] + ".refusals.jsonl.gz")
        refusals = len(gzip.open(refusals_path, "rt").read().splitlines()) if refusals_path.exists() else 0
        end = record.get("game_end_reason") or ("finished" if record.get("result") else "?")
        rows.append(f"| {spec.title} | {spec.config} | {spec.players} | {spec.seed} | {record_path.parent.name}/"
                    f"{record_path.stem} | {len(actions)} | {programs} | {refusals} | {end} |")
        counts[(spec.title, spec.config)] = counts.get((spec.title, spec.config), 0) + 1
    summary = ", ".join(f"{t} {c}: {n}" for (t, c), n in sorted(counts.items()))
    text = ("# Bank of bot-played games\n\nMade by `python -m bench.campaign bank` (the oracle bot against the "
            "reference; odd seeds set and clear standing orders). Per configuration: " + (summary or "none")
            + ".\n\n" + "\n".join(rows) + "\n")
    out = bank / "INDEX.md"
    out.write_text(text, encoding="utf-8")
    return out

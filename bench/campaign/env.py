"""Where the campaign's outside tools are, and a clear refusal when they are missing.

The campaign is a development tool: it needs the reference engine (REF_18XX) and Ruby, which neither the
product nor CI has. Everything that needs them goes through `require_oracle`, which says what is missing
and how to get it, so a run without them stops at once with a useful message instead of a traceback.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_ORACLE = ROOT.parent / "shared" / "oracle"
DEFAULT_VAR = ROOT / "var" / "campaign"


class MissingOracle(SystemExit):
    """Raised (exit status 2) when Ruby, the reference checkout or the oracle scripts are missing."""


@dataclass(frozen=True)
class Oracle:
    """The oracle scripts' folder and the reference checkout they drive."""

    dir: Path
    ref: Path
    ruby: str

    def env(self) -> dict[str, str]:
        """Environment for the oracle's scripts (the level silences the reference's logging)."""
        return {**os.environ, "REF_18XX": str(self.ref), "ENGINE_LOG_LEVEL": "4"}


def require_oracle(oracle_dir: str | None = None) -> Oracle:
    """The oracle, or exit non-zero saying what is missing and what to do."""
    problems = []
    ruby = shutil.which("ruby")
    if not ruby:
        problems.append("Ruby is not installed (apt-get install -y ruby; Debian's Ruby 3.1 is enough)")
    ref = os.environ.get("REF_18XX", "")
    if not ref:
        problems.append("REF_18XX is not set (export REF_18XX=$HOME/ref18xx, the reference 18xx checkout)")
    elif not (Path(ref) / "lib" / "engine.rb").exists():
        problems.append(f"REF_18XX={ref} holds no reference checkout (lib/engine.rb is missing)")
    odir = Path(oracle_dir or os.environ.get("RAILPOST_ORACLE", "") or DEFAULT_ORACLE)
    if not (odir / "bot" / "make_game.sh").exists():
        problems.append(f"no oracle scripts at {odir} (pass --oracle DIR or set RAILPOST_ORACLE)")
    if problems:
        raise _exit("\n  - ".join(problems))
    return Oracle(odir.resolve(), Path(ref).resolve(), ruby or "ruby")


def _exit(problems: str) -> MissingOracle:
    print(
        "bench.campaign needs the reference 18xx engine and Ruby, which the product and CI never need:\n  - "
        + problems
        + "\nSet them up as ../shared/oracle/README.md says, then re-run. (`python -m bench.campaign table` "
        "needs neither.)",
        file=sys.stderr,
    )
    return MissingOracle(2)

"""Summarise py-spy collapsed stacks (`py-spy record -f raw`): where a process's samples go.

`python -m bench.profiles.summarise OUT.txt FILE...` merges the files (one process each, e.g. both gateway
workers) and writes the costliest functions by inclusive and by own samples, and the share per package."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")


def frame_key(frame: str) -> tuple[str, str]:
    match = FRAME.match(frame.strip())
    if not match:
        return frame.strip(), ""
    path = match["file"]
    for marker in ("site-packages/", "/work/", "lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
    path = re.sub(r"^wt-[^/]+/", "", path)
    return match["func"], path


def package(path: str) -> str:
    parts = path.split("/")
    if parts[0] in ("services", "shared") and len(parts) > 2:
        return "/".join(parts[:2]) + ("/" + parts[2] if parts[1] in ("eventstore", "engine", "gateway", "play") and len(parts) > 3 else "")
    return parts[0].replace(".py", "") if parts else "?"


def summarise(files: list[Path], top: int = 30) -> str:
    inclusive: Counter[tuple[str, str]] = Counter()
    own: Counter[tuple[str, str]] = Counter()
    own_pkg: Counter[str] = Counter()
    total = 0
    for file in files:
        for line in file.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            n = int(count)
            total += n
            frames = [frame_key(f) for f in stack.split(";") if f.strip()]
            frames = [f for f in frames if not f[0].startswith("process ") and not f[0].startswith("thread ")]
            for key in set(frames):
                inclusive[key] += n
            if frames:
                own[frames[-1]] += n
                own_pkg[package(frames[-1][1])] += n
    lines = [f"{total} samples over {len(files)} process(es): {', '.join(f.name for f in files)}", "",
             f"## by inclusive samples (top {top})"]
    lines += [f"{n / total * 100:6.1f}%  {func}  {path}" for (func, path), n in inclusive.most_common(top)]
    lines += ["", f"## by own samples (top {top})"]
    lines += [f"{n / total * 100:6.1f}%  {func}  {path}" for (func, path), n in own.most_common(top)]
    lines += ["", "## own samples per package"]
    lines += [f"{n / total * 100:6.1f}%  {name}" for name, n in own_pkg.most_common(25)]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    out, *files = argv
    Path(out).write_text(summarise([Path(f) for f in files]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

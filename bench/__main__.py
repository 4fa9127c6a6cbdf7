"""Run every benchmark script in this folder (`bench_*.py`, each with a `main()`) and print its figures."""

import importlib
import pkgutil
import sys
from pathlib import Path


def main() -> int:
    names = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name.startswith("bench_"))
    only = sys.argv[1:]
    for name in names:
        if only and not any(o in name for o in only):
            continue
        print(f"== {name}", flush=True)
        importlib.import_module(f"bench.{name}").main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

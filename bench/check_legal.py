"""The offers at every position, written down to be compared between two trees (issue 47: making
legal-actions cheaper must not change which moves are offered).

`python -m bench.check_legal OUT [--generated]` steps through every people's game of
`tests/fixtures/conformance/<title>/` (`--generated`: and the generated ones) as `bench_legal` does and
writes one line per position: the game, the action index and a digest of every acting seat's answer
(`seat_actions`, in order). Run it on the old tree and the new one and compare the files (`diff`); a line
that differs names the first position whose offers changed. Not part of `make bench`."""

from __future__ import annotations

import hashlib
import json
import sys

from bench.bench_legal import CONFORMANCE, _new, records
from services.play.legal import seat_actions
from shared.engine.session import final_active_flags


def offers_digest(session: object) -> str:
    answers = [(pid, seat_actions(session, pid)) for pid in session.acting_players()]  # type: ignore[attr-defined]
    return hashlib.sha1(json.dumps(answers, sort_keys=True, default=str).encode()).hexdigest()


def main() -> None:
    out = open(sys.argv[1], "w")
    for path in records(generated="--generated" in sys.argv):
        record = json.loads(path.read_text())
        name = str(path.relative_to(CONFORMANCE))
        session = _new(record)
        flags = final_active_flags(record["actions"])
        for i, action in enumerate(record["actions"]):
            session.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
            out.write(f"{name} {i} {offers_digest(session)}\n")
        out.flush()
        print(name, len(record["actions"]), flush=True)
    out.close()


if __name__ == "__main__":
    main()

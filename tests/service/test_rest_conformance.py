"""REST is live mode: public games played move by move through the API, the stored digest after every move
equal to the golden trace's line (bench/rest_conformance.py; `make conformance` plays every game so).

Each recorded action is posted as a client posts it (no id, no recorded auto actions; an undo names the
server's id of its target), so the server derives every standing order's consequence itself. A sample keeps
the normal run fast: the 1828 stock-market game through its undo and re-sale of OSH at index 104-109 (the
standing order's end, `program_disable`, derived at index 107) and the buys after it, a short 1840 game with
standing orders, an 1828 game with undos across orders and a merger, and the people's 1840 game 218809,
whose id 898 (a second ordinary tile) the API refuses and its player takes back at once: the game carries
on without it and every other line matches (its line is counted apart, `Outcome.excused`). Played on the embedded default
(SQLite, in-process queue) and on PostgreSQL + Redis + a real Celery worker; both then export the game, and
the export replays live in the engine to the same state.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from shared.engine import GameSession

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.rest_conformance import CONFORMANCE, check_rest, embedded_call, http_call  # noqa: E402

KNOWN = json.loads((Path(__file__).resolve().parents[1] / "engine" / "conformance_known.json").read_text())
STOCK_MARKET = "1828/1828Games_game_end_stock_market"
EXCUSED = {"1840/218809": 1}  # moves refused over the API that the record takes back (id 898)
SAMPLE = [(STOCK_MARKET, 160), ("generated/1840/gen1840_2p_516513", None), ("generated/1828/gen1828_4p_612537", 320),
          ("1840/218809", None)]


def _check(call: object, name: str, limit: int | None, tmp_path: Path) -> None:
    export = tmp_path / f"{Path(name).name}.export.json"
    outcome = check_rest(CONFORMANCE / f"{name}.json", call, limit=limit, export=export)  # type: ignore[arg-type]
    assert outcome.complete, f"{name}: {outcome.matched}/{outcome.total} lines; {outcome.note}"
    assert outcome.excused == EXCUSED.get(name, 0)
    record = json.loads(export.read_text())
    replayed = GameSession.from_record(record, live=True)  # the export is a record the engine plays live
    assert replayed.version == len(record["actions"])


@pytest.mark.parametrize(("name", "limit"), SAMPLE, ids=[n for n, _ in SAMPLE])
def test_public_games_over_the_embedded_api_match_every_line(name: str, limit: int | None, tmp_path: Path) -> None:
    if name in KNOWN.get("rest", {}):
        pytest.xfail(KNOWN["rest"][name])
    call, close = embedded_call(tmp_path)
    try:
        _check(call, name, limit, tmp_path)
    finally:
        close()


def test_public_games_over_postgres_redis_and_celery_match_every_line(gateway: LiveServer, worker: WorkerProcess,
                                                                      tmp_path: Path) -> None:
    call = http_call(gateway.url, ADMIN_TOKEN)
    for name, limit in SAMPLE[:2]:
        _check(call, name, limit, tmp_path)

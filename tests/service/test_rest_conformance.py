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

Import-then-continue is live mode (docs/service.md, "Import"): a record's first actions imported
(`POST /games/import`) and the rest played on over REST with the seat tokens the import answers, each move
by the player who made it, match the golden trace as a game played here from the start does. The sample:
the 1828 stock-market game imported at index 103, with 3581's pass order among the imported moves; 11345's
sale ends it (id 112, derived live), his undo (id 113) takes that back, which touches 3581's order, so it
is played only because the import keeps the record's free undo (a consent game answers 409), then the buy
at id 184 after another undo; and bot game gen1828_5p_226194 imported at index 741, a merger waiting for
an answer with CPR's float already seen by the table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from shared.engine import GameSession

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.rest_conformance import CONFORMANCE, check_import, check_rest, embedded_call, http_call  # noqa: E402

KNOWN = json.loads((Path(__file__).resolve().parents[1] / "engine" / "conformance_known.json").read_text())
STOCK_MARKET = "1828/1828Games_game_end_stock_market"
EXCUSED = {"1840/218809": 1}  # moves refused over the API that the record takes back (id 898)
IMPORTS = [(STOCK_MARKET, 103, 190), ("generated/1828/gen1828_5p_226194", 741, 770)]  # (game, imported, limit)
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


def _check_import(call: object, name: str, at: int, limit: int) -> None:
    outcome = check_import(CONFORMANCE / f"{name}.json", call, at, limit=limit)  # type: ignore[arg-type]
    assert outcome.complete and outcome.matched == limit, f"{name}: {outcome.matched}/{outcome.total}; {outcome.note}"


@pytest.mark.parametrize(("name", "at", "limit"), IMPORTS, ids=[n for n, _, _ in IMPORTS])
def test_an_imported_game_played_on_over_the_embedded_api_matches_every_line(name: str, at: int, limit: int,
                                                                             tmp_path: Path) -> None:
    call, close = embedded_call(tmp_path)
    try:
        _check_import(call, name, at, limit)
    finally:
        close()


def test_an_imported_game_played_on_over_postgres_redis_and_celery_matches_every_line(
        gateway: LiveServer, worker: WorkerProcess) -> None:
    name, at, limit = IMPORTS[0]
    _check_import(http_call(gateway.url, ADMIN_TOKEN), name, at, limit)

"""Issue 49: the history names who sold a train to a corporation (the selling corporation and its
president), who went bankrupt, and why the game ended — in the engine's notes, in the words of the page and
the mail (services/words), and on the page of an imported game."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.config import Config
from services.gateway import create_app
from services.words.describe import END_REASONS, describe
from shared.engine import GameSession
from shared.eventstore import migrate

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "conformance"
BANKRUPT = FIXTURES / "1828" / "1828Games_game_end_bankrupt.json"
ADMIN = {"Authorization": "Bearer history-admin"}


def _said(path: Path) -> tuple[GameSession, dict[int, str]]:
    """The game replayed, and each noted action's line as the page and the mail print it."""
    record = json.loads(path.read_text())
    session = GameSession.from_record(record)
    game = session.game
    names = {p.id: p.name for p in game.players}

    def namer(e: Any) -> str:
        return names.get(e, str(e))

    by_id = {a["id"]: a for a in record["actions"]}
    return session, {k: describe(by_id[k], namer, game.rules, note) for k, note in game.history_notes.items()}


def test_a_train_sold_by_another_corporation_names_it_and_its_president() -> None:
    session, lines = _said(BANKRUPT)
    game = session.game
    names = {p.id: p.name for p in game.players}
    sold = {k: v for k, v in game.history_notes.items() if "seller" in v}
    assert sold, "the record has trains bought from other corporations"
    for action_id, note in sold.items():
        assert f" from {note['seller']} (president {names[note['seller_president']]})" in lines[action_id]
    first = min(sold)
    assert lines[first] == "MP buys train 3-6 for 59 from PRR (president Player 3)"


@pytest.mark.parametrize("path,reason", [
    ("1828/1828Games_game_end_stock_market.json", "stock_market"), ("1825/1825_game_end_bank.json", "bank"),
    ("1840/2player.json", "fixed_round"), ("1840/218809.json", "manually_ended")])
def test_the_line_that_ends_the_game_says_why(path: str, reason: str) -> None:
    session, lines = _said(FIXTURES / path)
    assert session.game.game_end_reason == reason
    last = max(session.game.history_notes)
    assert session.game.history_notes[last]["ended"] == reason
    assert lines[last].endswith(f". The game ends: {END_REASONS[reason]}")


def test_every_reason_the_engine_gives_has_words() -> None:
    """A reason code the engine can end a game with is never printed raw ("final phase")."""
    codes: set[str] = set()
    for source in (ROOT / "shared" / "engine").rglob("*.py"):
        text = source.read_text()
        codes |= set(re.findall(r'end_game\("([a-z_]+)"\)', text))
        codes |= set(re.findall(r'end_trigger = \("([a-z_]+)"', text))
    assert {"bank", "stock_market", "bankrupt", "final_phase", "fixed_round", "manually_ended"} <= codes
    assert codes <= set(END_REASONS), codes - set(END_REASONS)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    url = f"sqlite:///{tmp_path_factory.mktemp('history') / 'history.sqlite3'}"
    migrate(url)
    yield create_app(Config(database_url=url, admin_token="history-admin", log_level="WARNING")).test_client()


def test_the_page_of_an_imported_game_names_the_seller_the_bankrupt_and_the_end(client: Any) -> None:
    record = json.loads(BANKRUPT.read_text())
    made = client.post("/games/import", json=record, headers=ADMIN)
    assert made.status_code in (200, 201), made.json
    game_id = made.json["game"]["id"]
    names = {s["player_id"]: s["name"] for s in made.json["game"]["seats"]}
    page = html.unescape(client.get(f"/games/{game_id}/page").get_data(as_text=True))
    bankrupt = next(a for a in record["actions"] if a["type"] == "bankrupt")
    broke = GameSession.from_record(record).game.history_notes[bankrupt["id"]]["bankrupt"][0]
    assert (f"{bankrupt['entity']} declares bankruptcy; {names[broke]} goes bankrupt. "
            f"The game ends: {END_REASONS['bankrupt']}") in page
    index = next(i for i, a in enumerate(record["actions"]) if a["id"] == 273)  # MP buys PRR's 3 train
    then = html.unescape(client.get(f"/games/{game_id}/page?at={index + 1}").get_data(as_text=True))
    assert "MP buys train 3-6 for 59 from PRR (president Player 3)" in then

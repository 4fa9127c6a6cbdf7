"""The move language against real positions of every title: each legal move read back from its words, and
the short forms of the documentation resolving to a legal move of the right kind."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.mailin import language, tokens
from services.mailin.render import move_text, seat_moves, turn_text
from services.mailin.settings import MailinSettings
from services.words.names import share_sources
from shared.engine import GameSession
from shared.engine.records import RANGE_HINTS

TITLES = [("1825", 3), ("1828", 3), ("1840", 2), ("1833NE", 3)]


def _short_form(game: Any, a: dict[str, Any]) -> str | None:
    kind = a["type"]
    if kind == "par":
        return f"par {a['corporation']} {str(a['share_price']).split(',')[0]}"
    if kind == "bid":
        return f"bid {a['min']} on {a.get('company') or a.get('corporation') or a.get('minor')}"
    if kind == "lay_tile":
        return f"lay {str(a['tile']).rsplit('-', 1)[0]} {a['hex']} {a['rotation']}"
    if kind == "place_token":
        return f"token {game.board.city_hex(a['city'])}"
    if kind == "dividend" and a["kind"] in ("payout", "withhold"):
        return str(a["kind"])
    if kind == "run_routes":
        return "run"
    if kind == "pass":
        return "pass"
    if kind == "buy_shares":
        return f"buy {str(a['shares'][0]).rsplit('_', 1)[0]}"
    if kind == "sell_shares":
        return f"sell {len(a['shares'])} {str(a['shares'][0]).rsplit('_', 1)[0]}"
    if kind == "buy_train":
        return f"buy train {str(a['train']).rsplit('-', 1)[0]}"
    return None


@pytest.mark.parametrize("title,seats", TITLES, ids=[t for t, _ in TITLES])
def test_words_resolve_to_legal_moves(title: str, seats: int) -> None:
    session = GameSession.new(title, [{"id": i + 1, "name": f"P{i + 1}"} for i in range(seats)], 3, [])
    rng = random.Random(5)
    kinds: set[str] = set()
    for _ in range(240):
        if session.finished:
            break
        player = session.acting_players()[0]
        moves = seat_moves(session, player)
        if not moves:
            break
        game = session.game
        sources = share_sources(game)
        for i, a in enumerate(moves[:40]):
            same = language.resolve(move_text(game, a, sources), moves, game, player, None)
            assert same.action is not None, (move_text(game, a, sources), same.error)
            assert same.action["type"] == a["type"]
            assert language.resolve(str(i + 1), moves, game, player, moves).action == a
            short = _short_form(game, a)
            if short is not None:
                got = language.resolve(short, moves, game, player, None)
                assert got.action is not None and got.action["type"] == a["type"], (short, got.error)
                kinds.add(a["type"])
        passes = [a for a in moves if a["type"] == "pass"]
        others = [a for a in moves if a["type"] != "pass"]
        pick = rng.choice(passes if passes and (rng.random() < 0.4 or not others) else others)
        pick = {k: v for k, v in pick.items() if k not in RANGE_HINTS}
        session.submit(pick)
    assert {"pass", "par"} <= kinds and len(kinds) >= 4, kinds


def test_lines_quotes_and_refusals() -> None:
    assert language.lines_of("1\n> 2 quoted\n\n  buy   LNWR ; pass.\n") == ["1", "buy LNWR", "pass"]
    session = GameSession.new("1825", [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}, {"id": 3, "name": "C"}], 1, [])
    moves = seat_moves(session, 1)
    game = session.game
    assert "numbers refer" in (language.resolve("2", moves, game, 1, None).error or "")
    assert "no move 99" in (language.resolve("99", moves, game, 1, moves).error or "")
    assert "not a move" in (language.resolve("dance", moves, game, 1, moves).error or "")
    assert language.resolve("undo", moves, game, 1, None).action == {"type": "undo", "entity": 1,
                                                                     "entity_type": "player"}
    assert language.resolve("stop orders", moves, game, 1, None).action["type"] == "program_disable"


def test_tokens_are_signed_per_game_seat_and_version() -> None:
    settings = MailinSettings(secret="s", address="moves@play.test")
    address = tokens.reply_address(settings, 12, 3, 40)
    assert address.startswith("moves+g12p3v40-") and address.endswith("@play.test")
    assert tokens.find(settings, [address]) == (tokens.ReplyToken(12, 3, 40), True)
    assert tokens.find(settings, [address.upper()])[0] == tokens.ReplyToken(12, 3, 40)  # case folded
    tampered = address.replace("g12p3v40", "g12p4v40")
    assert tokens.find(settings, [tampered]) == (None, True)
    assert tokens.find(MailinSettings(secret="other", address="moves@play.test"), [address])[0] is None
    assert tokens.find(settings, ["moves@play.test"]) == (None, False)


def test_turn_text_names_state_and_moves() -> None:
    session = GameSession.new("1840", [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}], 1, [])
    text = turn_text(session, 5, session.acting_players()[0], "http://x/games/5", "moves+t@x").text
    assert "Stock round" in text or "round" in text
    assert "cash" in text and "Your moves:" in text and "    1  " not in text and "  1  " in text
    assert "Page: http://x/games/5" in text and "moves+t@x" in text


def test_html_quotes_are_left_out() -> None:
    from services.mailin.message import html_text

    html = '<div>pass</div><blockquote><img src="x"><p>1 old</p><br></blockquote><div>buy LNWR</div>'
    assert language.lines_of(html_text(html)) == ["pass", "buy LNWR"]

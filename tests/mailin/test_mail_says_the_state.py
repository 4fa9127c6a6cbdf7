"""Issue 49: a mail tells what is true when it leaves. Its subject and body come from one reading of the
game at sending time; a bid line states the range the engine's offer states (its minimum, its smallest
raise, or the multiple every bid must be), never a constant."""

from __future__ import annotations

import pytest

from services.mailin.render import numbered, seat_moves
from shared.engine import GameSession

from .conftest import Site


def test_a_turn_played_before_the_mail_leaves_is_not_its_subject(site: Site) -> None:
    """Ann's turn is queued, then she moves before the notifier sends: her mail's body (read now) says
    there is nothing for her to do, and so must its subject — never "it is your turn" over that body."""
    gid = site.game("1840", ["Ann", "Bob"])
    site.rest_move(gid, "Ann", lambda acts: next(a for a in acts if a["type"] == "pass"))
    assert site.acting(gid) == ["Bob"]
    mail = site.mails_to("Ann", 1)[-1]
    body = mail.get_content()
    assert "Nothing for you to do" in body and "Your moves:" not in body, body
    assert "your turn" not in str(mail["Subject"]).lower() and "your turn" not in body.lower(), (mail["Subject"], body)
    bob = site.mails_to("Bob", 1)[-1]  # Bob's mail, read at the same moment, is his turn, subject and body
    assert "your turn" in str(bob["Subject"]) and f"game {gid} (1840)" in str(bob["Subject"])
    assert "Your moves:" in bob.get_content()


def _bids(title: str, seats: int) -> tuple[GameSession, list[dict], list[str]]:
    session = GameSession.new(title, [{"id": i + 1, "name": f"P{i + 1}"} for i in range(seats)], 1, [])
    moves = seat_moves(session, session.acting_players()[0])
    lines = numbered(session.game, moves)
    bids = [(a, line) for a, line in zip(moves, lines, strict=False) if a["type"] == "bid"]
    assert bids, title
    return session, [a for a, _ in bids], [line for _, line in bids]


@pytest.mark.parametrize("title,seats", [("1840", 2), ("1828", 3)])
def test_a_bid_line_says_the_range_the_offer_states(title: str, seats: int) -> None:
    session, offers, lines = _bids(title, seats)
    for offer, line in zip(offers, lines, strict=True):
        assert "steps of" not in line, line
        if offer.get("multiple_of"):  # 1828: every bid a multiple of the step
            assert f"any multiple of ${offer['multiple_of']} from ${offer['min']}" in line, line
        else:  # 1840: any amount from the minimum up; later bids raise by at least the step
            assert f"any amount from {offer['min']} to {offer['max']}" in line, line
            assert f"raises of at least {offer['step']}" in line, line
    # the words are the rules': an amount between the steps is legal exactly when the line says "any amount"
    offer = offers[0]
    between = {k: v for k, v in offer.items() if k not in ("min", "step", "max", "multiple_of")}
    between["price"] = offer["min"] + 1
    assert session.game.accepts(between) is (not offer.get("multiple_of")), (title, between)

"""Answering the table by email, through the real mail-in path (SMTP to the receiver, the notifier's mails
from a real SMTP sink): the mail that asks a player to consent or to vote carries an answer address of its
own (docs/time-controls.md); a reply `accept` / `decline` answers an undo or redo request, `vote extend` /
`vote substitute <player>` / `vote open` a deadline vote; anything else is answered with what fits. The
answer takes the same path as REST and the page (services/play/pending.py)."""

from __future__ import annotations

import re
import time
from email.message import EmailMessage
from typing import Any

from services.play.scheduler import Scheduler, session_remedies
from services.play.table_log import TableLog

from .conftest import Site, version

ANSWER = re.compile(r"moves\+g\d+p\d+a\d+-[a-z2-7]+@play\.test")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def scheduler(site: Site) -> Scheduler:
    h = site.handler
    return Scheduler(h.recorder, TableLog(h.engine), h.dispatcher, session_remedies(h.recorder, h.sessions))


def answer_address(mail: EmailMessage) -> str:
    found = ANSWER.findall(mail.get_content())
    assert found, mail.get_content()
    return found[0]


def newest(site: Site, name: str, count: int) -> EmailMessage:
    got = site.mails_to(name, count)
    assert len(got) >= count, [m.get_content()[:200] for m in got]
    return got[-1]


def wait(check: Any, what: str, seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, what
        time.sleep(0.05)


def test_an_undo_request_is_answered_by_mail(site: Site) -> None:
    gid = site.game("1840", ["Ann", "Bob"])
    first = site.acting(gid)[0]
    site.rest_move(gid, first, lambda moves: moves[0])
    second = site.acting(gid)[0]
    while second == first:
        site.rest_move(gid, first, lambda moves: moves[0])
        second = site.acting(gid)[0]
    site.rest_move(gid, second, lambda moves: moves[0])  # the second player's move: the first may not undo it
    asked = len(site.mails_to(second, 0))
    request = site.client.post(f"/games/{gid}/undo-requests", json={"kind": "undo"},
                               headers=bearer(site.seats[gid][first]))
    assert request.status_code == 202, request.json
    mail = newest(site, second, asked + 1)  # the table asks him: a mail with an answer address of its own
    body = mail.get_content()
    assert f"{first} asks to undo the last move" in body and "\u201caccept\u201d or \u201cdecline\u201d" in body
    address = answer_address(mail)
    assert all(answer_address(m) != address for m in site.sink.to(site.players[first]["email"])
               if ANSWER.search(m.get_content()))  # the requester is not asked

    # the requester's turn mail shows where his request stands (TurnMailer builds each mail's block)
    own = site.notifier.blocks.text(gid, site.players[first]["id"])  # type: ignore[union-attr]
    assert own is not None and f"Pending: {first} asks to undo the last move; waiting for {second}" in own.text
    assert not ANSWER.search(own.text)
    # the asked player's mail, read at sending, leads with the question, never "nothing for you to do"
    his = site.notifier.blocks.text(gid, site.players[second]["id"])  # type: ignore[union-attr]
    assert his is not None and not his.moves
    assert his.headline == f"{first} asks to undo the last move in game {gid}: you are asked to answer."

    before = version(site, gid)
    site.reply(second, address, "perhaps later\n")
    wait(lambda: len(site.sink.to(site.players[second]["email"])) > asked + 1, "no answer to a wrong word")
    error = site.sink.to(site.players[second]["email"])[-1].get_content()
    assert "Not recorded" in error and "\u201caccept\u201d or \u201cdecline\u201d" in error, error
    assert site.client.get(f"/games/{gid}/clock").json["undo_request"]["accepted"] == []

    # a move address is not an answer address, and an answer address plays no move
    site.reply(second, address, "1\n")
    wait(lambda: len(site.sink.to(site.players[second]["email"])) > asked + 2, "no answer to a move number")
    assert version(site, gid) == before

    site.reply(second, address, "> quoted text\nAccept\n\n-- \nBob\n")
    wait(lambda: len(site.sink.to(site.players[second]["email"])) > asked + 3, "no answer to accept")
    assert "Your answer is recorded: you accept the undo" in \
        site.sink.to(site.players[second]["email"])[-1].get_content()
    scheduler(site).run_once()  # the accepted request: the undo is played as the requester's
    wait(lambda: version(site, gid) > before, "the undo was not played")
    last = site.client.get(f"/games/{gid}/events").json["events"][-1]["data"]
    assert last["action"]["type"] == "undo" and last["player_id"] == site.players[first]["id"]
    assert site.client.get(f"/games/{gid}/clock").json["undo_request"] is None

    site.reply(second, address, "accept\n")  # the question is closed
    wait(lambda: len(site.sink.to(site.players[second]["email"])) > asked + 4, "no answer to a closed one")
    assert "That question is closed" in site.sink.to(site.players[second]["email"])[-1].get_content()


def clocked_pair(site: Site) -> tuple[int, str, str]:
    """A started two-player 1840 game (Ann, Bob with their own identities) whose clock gives about a second
    a move: its id, the absent player's name (whoever must act first) and the other's."""
    gid = int(site.client.post("/games", json={"title": "1840", "seats": 2, "seed": 7}).json["id"])
    site.seats[gid] = {}
    for name in ("Ann", "Bob"):
        p = site.player(name)
        joined = site.client.post(f"/games/{gid}/join", json={"name": name, "player_id": p["id"]},
                                  headers=bearer(p["token"]))
        site.seats[gid][name] = joined.json["token"]
    ann = bearer(site.seats[gid]["Ann"])
    assert site.client.put(f"/games/{gid}/clock", json={"kind": "deadline", "per_move_hours": 0.0003},
                           headers=ann).status_code == 200  # about a second a move
    assert site.client.post(f"/games/{gid}/start", headers=ann).status_code == 200
    absent = site.acting(gid)[0]
    voter = "Bob" if absent == "Ann" else "Ann"
    return gid, absent, voter


def test_a_deadline_vote_is_cast_by_mail(site: Site) -> None:
    gid, absent, voter = clocked_pair(site)
    clock = scheduler(site)
    clock.run_once()
    time.sleep(1.5)
    seen = len(site.mails_to(voter, 0))
    clock.run_once()  # the absent player's time ran out: no order, no pass chosen, so the table votes
    vote = site.client.get(f"/games/{gid}/clock").json["vote"]
    assert vote is not None and vote["voters"] == [site.players[voter]["id"]]
    mail = newest(site, voter, seen + 1)
    body = mail.get_content()
    assert f"The table votes on {absent}'s turn" in body and "vote substitute <player>" in body, body
    address = answer_address(mail)
    assert str(mail["Reply-To"]) == address  # not on move: replying answers the vote

    for words, expect in (("vote maybe", "is not a vote"), ("extend", "is not a vote"),
                          ("vote substitute Zed", f"name one of {voter}"), ("vote substitute", "names the player")):
        count = len(site.sink.to(site.players[voter]["email"]))
        site.reply(voter, address, words + "\n")
        wait(lambda c=count: len(site.sink.to(site.players[voter]["email"])) > c, f"no answer to {words!r}")
        text = site.sink.to(site.players[voter]["email"])[-1].get_content()
        assert "Not recorded" in text and expect in text, (words, text)
    assert site.client.get(f"/games/{gid}/clock").json["vote"]["voted"] == []

    count = len(site.sink.to(site.players[voter]["email"]))
    site.reply(voter, address, f"vote substitute {voter.lower()}\n")
    wait(lambda: len(site.sink.to(site.players[voter]["email"])) > count, "no answer to the vote")
    assert f"Your vote is recorded: substitute ({voter} moves this turn)" in \
        site.sink.to(site.players[voter]["email"])[-1].get_content()
    clock.run_once()  # a majority of one: decided
    view = site.client.get(f"/games/{gid}/clock").json
    assert view["vote"] is None and view["stand_in"] == {"absent": site.players[absent]["id"],
                                                         "by": site.players[voter]["id"]}

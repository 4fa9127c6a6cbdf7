"""The full loop for each title: a move over REST, the next player's turn mail (numbered moves, a signed
reply address, the game's thread), a reply with a number over SMTP to the real receiver, the move played
through the same queue as REST moves, the answer, and the next player's mail."""

from __future__ import annotations

import pytest

from services.words.describe import describe

from .conftest import Site, version

TITLES = [("1825", ["Ann", "Bob", "Cyd"]), ("1828", ["Ann", "Bob", "Cyd"]), ("1840", ["Ann", "Bob"]),
          ("1833NE", ["Ann", "Bob", "Cyd"])]


@pytest.mark.parametrize("title,names", TITLES, ids=[t for t, _ in TITLES])
def test_rest_move_then_reply_by_number(site: Site, title: str, names: list[str]) -> None:
    gid = site.game(title, names)
    first = site.acting(gid)[0]
    site.rest_move(gid, first, lambda acts: next(a for a in acts if a["type"] != "pass"))
    now = site.acting(gid)[0]
    before = len(site.sink.to(site.players[now]["email"]))
    mails = site.mails_to(now, before + 1)
    turn = mails[-1]
    body = turn.get_content()
    assert "  1  " in body and "Your moves:" in body and f"{site.mailin.address.split('@')[0]}+" in body
    assert f"{title}" in str(turn["Subject"]) or f"game {gid}" in body
    reply_to = str(turn["Reply-To"])
    assert reply_to.startswith("moves+g") and reply_to.endswith("@play.test")
    assert str(turn["References"]) == f"<railpost.game.{gid}@play.test>"
    assert site.seats[gid][now] not in body  # never the seat token
    v = version(site, gid)

    mid = site.reply(now, reply_to, f"1\n\nOn Tuesday, Railpost wrote:\n> {body.splitlines()[0]}\n")
    assert version(site, gid) > v  # played before the receiver answered 250
    answer = site.sink.to(site.players[now]["email"])[-1]
    assert str(answer["In-Reply-To"]) == mid and mid in str(answer["References"])
    # the event store names the mail behind the move, and the answer names the move in the history's words
    events = site.client.get(f"/games/{gid}/events?after={v}").json["events"]
    assert events[0]["command_id"] == f"p{events[0]['data']['player_id']}:mail:{mid}#1"  # scoped to the seat
    played = describe(events[0]["data"]["action"], lambda e: site.name_of(e) if isinstance(e, int) else str(e))
    said = answer.get_content().replace("\r\n", "\n")
    assert said.startswith(f"Played \u201c1\u201d: {played}.\n"), said

    after = site.acting(gid)[0]
    if after != now:  # the next player's turn mail, with its own reply address
        count = len(site.sink.to(site.players[after]["email"]))
        nxt = site.mails_to(after, count + 1)[-1]
        assert "Your moves:" in nxt.get_content() and str(nxt["Reply-To"]) != reply_to

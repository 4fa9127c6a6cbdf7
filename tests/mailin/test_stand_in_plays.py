"""A stand-in plays for real (docs/time-controls.md, "Hand-over"): once the table votes `substitute`, the
chosen player is named among those who must act (state, `/players/me/games`), is offered the absent seat's
moves (legal-actions, the page, the turn mail, which he answers by mail), and the stored move and the
history name both who moved and for whom. Through the gateway, the scheduler, the notifier and a real SMTP
sink and receiver (tests/mailin/conftest.py)."""

from __future__ import annotations

import re
import time

from .conftest import Site
from .test_answers import bearer, clocked_pair, newest, scheduler, wait


def test_the_stand_in_is_named_offered_mailed_and_plays_the_absent_seat_by_mail(site: Site) -> None:
    gid, absent, voter = clocked_pair(site)
    absent_id, voter_id = site.players[absent]["id"], site.players[voter]["id"]
    seat, absent_seat = bearer(site.seats[gid][voter]), bearer(site.seats[gid][absent])
    clock = scheduler(site)
    clock.run_once()
    time.sleep(1.5)
    clock.run_once()  # the time ran out: the table votes
    before = site.client.get(f"/games/{gid}/legal-actions", headers=seat).json["actions"]
    theirs = site.client.get(f"/games/{gid}/legal-actions", headers=absent_seat).json["actions"]
    assert theirs and not [a for a in before if a in theirs]  # not yet his to make
    number = next(s["seat"] for s in site.client.get(f"/games/{gid}").json["seats"] if s["player_id"] == voter_id)
    seen = len(site.mails_to(voter, 0))
    assert site.client.post(f"/games/{gid}/clock/vote", json={"choice": "substitute", "substitute": number},
                            headers=seat).status_code == 201
    clock.run_once()  # decided (a majority of one)
    assert site.client.get(f"/games/{gid}/clock").json["stand_in"] == {"absent": absent_id, "by": voter_id}

    # named where the players who must act are named, and offered the absent seat's moves of the turn
    assert site.client.get(f"/games/{gid}/state").json["acting_players"] == [absent_id, voter_id]
    mine = site.client.get("/players/me/games", headers=bearer(site.players[voter]["token"])).json["games"]
    assert next(g for g in mine if g["game_id"] == gid)["your_turn"] is True
    offered = site.client.get(f"/games/{gid}/legal-actions", headers=seat).json["actions"]
    turn = [a for a in theirs if not str(a["type"]).startswith("program_") and a["type"] != "end_game"]
    assert [a for a in offered if a in theirs] == turn and all(a in offered for a in before)
    page = site.client.get(f"/games/{gid}/page", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert f'"stand_in":{{"absent":{absent_id},"by":{voter_id}}}' in page  # the page's turn is his

    # his turn mail: the absent seat's moves, numbered, and a reply address that plays them
    mail = newest(site, voter, seen + 1)
    body = mail.get_content()
    assert f"Your moves (the table chose you to move for {absent} this turn):" in body, body
    assert mail["Reply-To"] is not None and "answer" not in str(mail["Reply-To"]), mail["Reply-To"]
    count = len(site.sink.to(site.players[voter]["email"]))
    listed = re.findall(r"^\s+(\d+)  ", body, re.M)  # his own moves of the turn (none here), then the seat's
    assert len(listed) == len(turn), body
    site.reply(voter, str(mail["Reply-To"]), "1\n")
    wait(lambda: len(site.sink.to(site.players[voter]["email"])) > count, "no answer to the mail move")
    answer = site.sink.to(site.players[voter]["email"])[-1].get_content()
    assert site.state(gid)["version"] == 1 and "Played \u201c" in answer, answer

    data = site.client.get(f"/games/{gid}/events").json["events"][-1]["data"]
    assert {k: v for k, v in data["action"].items() if k in turn[0]} == {k: v for k, v in turn[0].items()
                                                                         if k not in ("min", "max", "step")}
    assert data["action"]["user"] == voter_id and data["for_player"] == absent_id and data["player_id"] is None
    page = site.client.get(f"/games/{gid}/page", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert re.search(rf"{voter} for {absent}: ", page), "the history line names who moved and for whom"

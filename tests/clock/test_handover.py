"""The table's remedies change who may act for a seat (docs/time-controls.md): a `substitute` vote lets the
chosen player move for the absent one this turn, recorded as his; an `open_seat` vote lets a seated player
offer the seat by invitation, a newcomer claim it, and once the table accepts, the newcomer's seat token
acts for the seat (its holdings and orders) while the old one stops working."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta
from typing import Any

from flask.testing import FlaskClient

from services import signin

from .conftest import SIGNIN_SECRET, bearer, wait_version

H = timedelta(hours=1)


def to_deadline(client: FlaskClient, game_id: int, seats: dict[str, Any], vc: Any, scheduler: Any,
                choice: str) -> tuple[int, dict[str, str], int, dict[str, str]]:
    """A 24 h game whose first mover lets the time run out; the other votes `choice` (naming himself)."""
    ann, bob = bearer(seats["Ann"][0]), bearer(seats["Bob"][0])
    assert client.put(f"/games/{game_id}/clock", json={"kind": "deadline", "per_move_hours": 24},
                      headers=ann).status_code == 200
    assert client.post(f"/games/{game_id}/start", headers=ann).status_code == 200
    scheduler.run_once()
    first = int(client.get(f"/games/{game_id}/state").json["acting_players"][0])
    absent, other = (ann, bob) if first == seats["Ann"][1] else (bob, ann)
    other_id = seats["Bob"][1] if first == seats["Ann"][1] else seats["Ann"][1]
    vc.advance(24 * H)
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["vote"]["absent"] == first
    action = client.get(f"/games/{game_id}/legal-actions", headers=absent).json["actions"][0]
    assert post(client, game_id, other, action, 0).status_code == 403  # not his before the table decides
    if choice == "open_seat":
        no = seat_no(client, game_id, first)
        assert client.post(f"/games/{game_id}/seats/{no}/offer", headers=other).status_code == 409  # not yet
    body = {"choice": choice, **({"substitute": seat_no(client, game_id, other_id)} if choice == "substitute" else {})}
    assert client.post(f"/games/{game_id}/clock/vote", json=body, headers=other).status_code == 201
    return first, absent, other_id, other


def seat_no(client: FlaskClient, game_id: int, player_id: int) -> int:
    """The seat number `GET /games/{id}` shows for the player: what the seat endpoints take."""
    return next(s["seat"] for s in client.get(f"/games/{game_id}").json["seats"] if s["player_id"] == player_id)


def post(client: FlaskClient, game_id: int, headers: dict[str, str], action: dict[str, Any], version: int) -> Any:
    return client.post(f"/games/{game_id}/actions?wait=10", json={"action": action, "expected_version": version},
                       headers={**headers, "Idempotency-Key": uuid.uuid4().hex})


def test_substitute_moves_for_the_absent_seat_this_turn(table: Any) -> None:
    client, game_id, seats, vc, scheduler, app = table
    first, absent, other_id, other = to_deadline(client, game_id, seats, vc, scheduler, "substitute")
    action = client.get(f"/games/{game_id}/legal-actions", headers=absent).json["actions"][0]
    # the one vote of two seats is a majority: decided in the request that cast it, no tick waited for
    assert client.get(f"/games/{game_id}/clock").json["stand_in"] == {"absent": first, "by": other_id}
    moved = post(client, game_id, other, action, 0)
    assert moved.json["status"] == "applied", moved.json
    data = client.get(f"/games/{game_id}/events").json["events"][-1]["data"]
    assert data["action"]["user"] == other_id and data["action"].get("entity") == action.get("entity")


def test_open_seat_is_offered_claimed_and_handed_over_with_consent(table: Any) -> None:
    client, game_id, seats, vc, scheduler, app = table
    first, absent, other_id, other = to_deadline(client, game_id, seats, vc, scheduler, "open_seat")
    no, other_no = seat_no(client, game_id, first), seat_no(client, game_id, other_id)
    assert client.get(f"/games/{game_id}/clock").json["open_seats"] == [no]  # decided with the vote
    assert client.post(f"/games/{game_id}/seats/{no}/offer", headers=absent).status_code == 403
    assert client.post(f"/games/{game_id}/seats/{other_no}/offer", headers=absent).status_code == 409
    offered = client.post(f"/games/{game_id}/seats/{no}/offer", headers=other)
    assert offered.status_code == 201 and (offered.json["seat"], offered.json["player_id"]) == (no, first)
    claim = f"/games/{game_id}/seats/{no}/claim"
    assert client.post(claim, json={"invitation": "nope", "name": "Cy"}).status_code == 403
    assert client.post(claim, json={"name": "Cy"}).status_code == 400
    claimed = client.post(claim, json={"invitation": offered.json["invitation"], "name": "Cy"})
    assert claimed.status_code == 202 and claimed.json["seat_claim"]["affected"] == [other_id]
    assert (claimed.json["seat"], claimed.json["player_id"]) == (no, first)
    assert claimed.json["seat_claim"]["seat"] == no and claimed.json["seat_claim"]["player_id"] == first
    cy = bearer(claimed.json["token"])
    cy_player = bearer(claimed.json["player_token"])  # his own identity, for his own channels
    assert client.get(f"/games/{game_id}/legal-actions", headers=cy).status_code == 401  # not yet his
    answer = f"/games/{game_id}/seats/claim/answer"
    old_link = bearer(signin.sign(SIGNIN_SECRET, game_id, first, time.time() - 5))  # a turn email of his
    assert client.get(f"/games/{game_id}/page/me", headers=old_link).status_code == 200
    assert client.post(answer, json={"accept": True}, headers=absent).status_code == 403  # the seat itself
    assert client.post(answer, json={"accept": True}, headers=other).status_code == 200
    refused = client.get(f"/games/{game_id}/page/me", headers=old_link)  # his mails' links end with his tenure
    assert refused.status_code == 401 and refused.json["error"] == "signin_link_revoked"
    view = client.get(f"/games/{game_id}/clock").json
    assert view["holders"] == [{"seat": no, "player_id": first, "name": "Cy", "from_version": 0}]
    assert view["open_seats"] == []
    # Cy now holds the seat: its moves are his to make, the old token no longer works
    action = client.get(f"/games/{game_id}/legal-actions", headers=cy).json["actions"][0]
    assert post(client, game_id, absent, action, 0).status_code == 401
    assert post(client, game_id, cy, action, 0).json["status"] == "applied"
    wait_version(client, game_id, 1)
    names = {s["player_id"]: s["name"] for s in client.get(f"/games/{game_id}").json["seats"]}
    assert names[first] == "Cy"
    # the seat keeps its first holder's player id; its new token does not manage that player's channels
    assert client.get("/notifier/subscriptions", headers=other).status_code == 200
    assert client.get("/notifier/subscriptions", headers=cy).status_code == 401
    assert client.get("/notifier/subscriptions", headers=cy_player).status_code == 200
    # sign-in links answer the same at the notifier (shared/eventstore/identity.py): a fresh link of the
    # handed-over seat opens the page but not the first holder's channels, the old one nothing
    new_link = bearer(signin.sign(SIGNIN_SECRET, game_id, first, time.time() + 2))  # past the revocation
    assert client.get(f"/games/{game_id}/page/me", headers=new_link).status_code == 200
    assert client.get("/notifier/subscriptions", headers=new_link).status_code == 401
    assert client.get("/notifier/subscriptions", headers=old_link).status_code == 401
    other_link = bearer(signin.sign(SIGNIN_SECRET, game_id, other_id, time.time()))
    assert client.get("/notifier/subscriptions", headers=other_link).status_code == 200
    assert client.get(f"/games/{game_id}/clock").json["holders"][0]["player_id"] == first


def test_a_declined_claim_leaves_the_seat_open_and_silence_hands_it_over(table: Any) -> None:
    client, game_id, seats, vc, scheduler, app = table
    first, absent, other_id, other = to_deadline(client, game_id, seats, vc, scheduler, "open_seat")
    scheduler.run_once()
    no = seat_no(client, game_id, first)
    invitation = client.post(f"/games/{game_id}/seats/{no}/offer", headers=other).json["invitation"]
    claim = f"/games/{game_id}/seats/{no}/claim"
    answer = f"/games/{game_id}/seats/claim/answer"
    assert client.post(claim, json={"invitation": invitation, "name": "Cy"}).status_code == 202
    assert client.post(claim, json={"invitation": invitation, "name": "Di"}).status_code == 409  # one at a time
    assert client.post(answer, json={"accept": False}, headers=other).status_code == 200
    assert client.post(answer, json={"accept": True}, headers=other).status_code == 409  # nothing waiting
    view = client.get(f"/games/{game_id}/clock").json
    assert view["seat_claim"] is None and view["open_seats"] == [no] and view["holders"] == []
    claimed = client.post(claim, json={"invitation": invitation, "name": "Di"})
    assert claimed.status_code == 202
    vc.advance(48 * H)  # nobody declines: the table already voted to open the seat
    scheduler.run_once()
    view = client.get(f"/games/{game_id}/clock").json
    assert [h["name"] for h in view["holders"]] == ["Di"] and view["open_seats"] == []
    assert client.get(f"/games/{game_id}/legal-actions", headers=bearer(claimed.json["token"])).status_code == 200


def test_a_player_who_resigns_opens_his_seat_for_the_hand_over(table: Any) -> None:
    """Resigning is an event (`seat_resigned`) that opens the seat: the same offer, claim and consent as a
    seat the table opened; with no time control too. If he held the turn, the table votes at once."""
    client, game_id, seats, vc, scheduler, app = table
    ann, bob = bearer(seats["Ann"][0]), bearer(seats["Bob"][0])
    resign = f"/games/{game_id}/seats/resign"
    assert client.post(resign, headers=bob).status_code == 409  # not before the game is played
    assert client.post(f"/games/{game_id}/start", headers=ann).status_code == 200
    assert client.post(resign).status_code == 401
    assert client.post(resign, headers=bearer("adm")).status_code == 403  # the admin token has no seat
    left = client.post(resign, headers=bob)
    bob_no = seat_no(client, game_id, seats["Bob"][1])
    assert left.status_code == 200 and left.json["open_seats"] == [bob_no], left.json
    assert left.json["time_control"] == {"kind": "none"}  # no clock needed to leave
    assert left.json["resigned"] == [{"seat": bob_no, "player_id": seats["Bob"][1], "at_version": 0}]
    assert client.post(resign, headers=bob).status_code == 409  # already open
    with app.app_context():
        from services.gateway.table_api import table_log
        log = table_log().read(game_id)
        # the table's rules recorded at creation, then the resignation
        assert [e["type"] for e in log] == ["table_rules", "seat_resigned"] and game_id in table_log().games()

    offered = client.post(f"/games/{game_id}/seats/{bob_no}/offer", headers=ann)
    assert offered.status_code == 201
    claimed = client.post(f"/games/{game_id}/seats/{bob_no}/claim",
                          json={"invitation": offered.json["invitation"], "name": "Cy"})
    assert claimed.status_code == 202 and claimed.json["seat_claim"]["affected"] == [seats["Ann"][1]]
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["seat_claim"] is not None  # waits for Ann
    vc.advance(48 * H)
    scheduler.run_once()  # the scheduler follows the game: silence hands the seat over
    view = client.get(f"/games/{game_id}/clock").json
    assert view["open_seats"] == [] and view["holders"] == [{"seat": bob_no, "player_id": seats["Bob"][1],
                                                             "name": "Cy", "from_version": 0}]
    assert client.get(f"/games/{game_id}/legal-actions", headers=bearer(claimed.json["token"])).status_code == 200
    names = {s["player_id"]: s["name"] for s in client.get(f"/games/{game_id}").json["seats"]}
    assert names[seats["Bob"][1]] == "Cy"  # (Bob's token leaves the gateways' caches within 30 s)


def test_resigning_on_move_lets_the_table_vote_on_who_moves_now(table: Any) -> None:
    client, game_id, seats, vc, scheduler, app = table
    first, absent, other_id, other = to_deadline(client, game_id, seats, vc, scheduler, "extend")
    scheduler.run_once()  # extended: the absent player has another 24 h
    assert client.get(f"/games/{game_id}/clock").json["vote"] is None
    vc.advance(30 * H)
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["vote"]["absent"] == first  # the second deadline's vote
    assert client.post(f"/games/{game_id}/seats/resign", headers=absent).status_code == 200
    # the vote on his absence is moot; his time is still up and he left: in the same request the table is
    # asked anew who moves (no tick waited for)
    view = client.get(f"/games/{game_id}/clock").json
    assert view["open_seats"] == [seat_no(client, game_id, first)]
    assert view["vote"]["absent"] == first and view["vote"]["voted"] == []
    vote = {"choice": "substitute", "substitute": seat_no(client, game_id, other_id)}
    assert client.post(f"/games/{game_id}/clock/vote", json=vote, headers=other).status_code == 201
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["stand_in"] == {"absent": first, "by": other_id}
    action = client.get(f"/games/{game_id}/legal-actions", headers=absent).json["actions"][0]
    assert post(client, game_id, other, action, 0).json["status"] == "applied"


def test_seats_are_numbered_as_the_game_shows_them_and_player_ids_understood_where_unambiguous(
        table: Any) -> None:
    """A number below the seat count is a seat number (`GET /games/{id}`), from the seat count up a seated
    player's id. Here seat 2's player has id 1 and seat 0's id 2: `2` means seat 2, never player 2."""
    client, _, _, vc, scheduler, app = table
    admin = bearer("adm")
    game_id = client.post("/games", json={"title": "1840", "seats": 3}, headers=admin).json["id"]
    tokens = {}
    for seat, pid, name in ((0, 2, "Ann"), (1, 9, "Jon"), (2, 1, "Kai")):
        joined = client.post(f"/games/{game_id}/join", json={"name": name, "seat": seat, "player_id": pid},
                             headers=admin)
        assert joined.status_code == 201 and joined.json["seat"] == seat, joined.json
        tokens[pid] = bearer(joined.json["token"])
    assert client.post(f"/games/{game_id}/start", headers=tokens[2]).status_code == 200
    left = client.post(f"/games/{game_id}/seats/resign", headers=tokens[9])
    assert left.json["open_seats"] == [1] and left.json["resigned"][0] == {"seat": 1, "player_id": 9,
                                                                            "at_version": 0}
    assert {"seat": 1, "player_id": 9, "name": "Jon"} in left.json["seats"]
    offer = f"/games/{game_id}/seats/{{}}/offer"
    by_number = client.post(offer.format(1), headers=tokens[2])
    assert by_number.status_code == 201 and (by_number.json["seat"], by_number.json["player_id"]) == (1, 9)
    by_id = client.post(offer.format(9), headers=tokens[2])  # 9 cannot be a seat number of three seats
    assert by_id.status_code == 201 and (by_id.json["seat"], by_id.json["player_id"]) == (1, 9)
    wrong = client.post(offer.format(2), headers=tokens[9])  # seat 2 (player 1), not player 2's seat 0
    assert wrong.status_code == 409 and wrong.json["message"].startswith("that seat is not open"), wrong.json
    nowhere = client.post(offer.format(5), headers=tokens[2])
    assert nowhere.status_code == 404 and nowhere.json["error"] == "unknown_seat", nowhere.json
    assert "numbered 0 to 2" in nowhere.json["message"]
    claimed = client.post(f"/games/{game_id}/seats/1/claim",
                          json={"invitation": by_id.json["invitation"], "name": "Lou"})
    assert claimed.status_code == 202 and claimed.json["seat_claim"]["seat"] == 1, claimed.json
    assert sorted(claimed.json["seat_claim"]["affected"]) == [1, 2]  # the other seats' players (ids)


def test_a_substitute_vote_names_the_stand_in_by_seat_number(table: Any) -> None:
    client, game_id, seats, vc, scheduler, app = table
    first, absent, other_id, other = to_deadline(client, game_id, seats, vc, scheduler, "extend")
    scheduler.run_once()
    vc.advance(30 * H)
    scheduler.run_once()  # the second deadline: the table votes again
    vote = f"/games/{game_id}/clock/vote"
    bad = client.post(vote, json={"choice": "substitute", "substitute": 7}, headers=other)
    assert bad.status_code == 400 and "substitute" in bad.json["details"], bad.json
    body = {"choice": "substitute", "substitute": seat_no(client, game_id, other_id)}
    assert client.post(vote, json=body, headers=other).status_code == 201
    scheduler.run_once()
    assert client.get(f"/games/{game_id}/clock").json["stand_in"] == {"absent": first, "by": other_id}

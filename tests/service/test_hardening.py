"""Bad input never gets a 500 (issue 16): the nine inputs that did are answered 400/422 naming the field, on
the embedded default (SQLite) and on PostgreSQL; and the one error shape, refusals included."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from services.config import Config
from services.gateway import create_app
from shared.eventstore import migrate

from .conftest import ADMIN_TOKEN, LiveServer
from .helpers import Api

RECORD_1840 = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "1840" / "2player.json"
HUGE = 99999999999999999999999

Call = Callable[..., tuple[int, Any]]  # (method, path, token=None, json=|data=, headers=) -> (status, body)


def embedded_call(tmp_path: Path) -> Call:
    url = f"sqlite:///{tmp_path / 'hardening.sqlite3'}"
    migrate(url)
    client = create_app(Config(database_url=url, admin_token=ADMIN_TOKEN)).test_client()

    def call(method: str, path: str, token: str | None = None, **kw: Any) -> tuple[int, Any]:
        headers = dict(kw.pop("headers", {}))
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if "data" in kw:
            headers.setdefault("Content-Type", "application/json")
        reply = client.open(path, method=method, headers=headers, **kw)
        return reply.status_code, reply.get_json(silent=True)

    return call


def http_call(base: str) -> Call:
    api = Api(base, ADMIN_TOKEN)

    def call(method: str, path: str, token: str | None = None, **kw: Any) -> tuple[int, Any]:
        if "data" in kw:
            kw.setdefault("headers", {})["Content-Type"] = "application/json"
        reply = api.call(method, path, token, **kw)
        try:
            return reply.status_code, reply.json()
        except ValueError:
            return reply.status_code, None

    return call


@pytest.fixture(params=["sqlite", "postgres"])
def call(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Call]:
    if request.param == "sqlite":
        yield embedded_call(tmp_path)
    else:
        gateway: LiveServer = request.getfixturevalue("gateway")
        yield http_call(gateway.url)


@pytest.fixture(params=["sqlite", "postgres"])
def played(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Call]:
    """`call` where moves are settled: in process on the embedded default, by a Celery rules worker on
    PostgreSQL + Redis."""
    if request.param == "sqlite":
        yield embedded_call(tmp_path)
    else:
        request.getfixturevalue("worker")
        gateway: LiveServer = request.getfixturevalue("gateway")
        yield http_call(gateway.url)


def record_1840() -> dict[str, Any]:
    return json.loads(RECORD_1840.read_text())


def player(call: Call, name: str = "Ann") -> dict[str, Any]:
    status, body = call("POST", "/players", json={"name": name})
    assert status == 201, body
    return body


def names_field(body: Any, field: str) -> bool:
    """The answer names the offending field, in its message or its details."""
    return field in body.get("message", "") or field in json.dumps(body.get("details", {}))


def test_the_nine_inputs_that_were_500s(call: Call) -> None:
    ann = player(call)
    record = record_1840()
    status, imported = call("POST", "/games/import", ann["token"], json=record)
    assert status == 201, imported
    game_id = imported["game"]["id"]
    seat = imported["seats"][0]["token"]
    raw_record = json.dumps(record)

    cases: list[tuple[str, tuple[int, Any], str]] = [
        ("expected_version 10^30", call("POST", f"/games/{game_id}/actions", seat,
                                         headers={"Idempotency-Key": "big"},
                                         json={"action": {"type": "pass"}, "expected_version": 10**30}),
         "expected_version"),
        ("JSON nested 30k deep (100k is over the test body limit)", call("POST", "/games", data=b"[" * 30_000 + b"]" * 30_000), "nested"),
        ("huge game id", call("GET", f"/games/{HUGE}"), "game_id"),
        ("huge player_id filter", call("GET", f"/games?player_id={HUGE}"), "player_id"),
        ("huge events cursor", call("GET", f"/games/{game_id}/events?after={HUGE}"), "after"),
        ("lone surrogate in a name", call("POST", "/players", data=b'{"name": "\\ud800"}'), "name"),
        ("seed 'abc'", call("POST", "/games/import", ann["token"],
                            json={**record, "settings": {**record["settings"], "seed": "abc"}}), "seed"),
        ("seed 1e400", call("POST", "/games/import", ann["token"],
                            data=raw_record.replace('"settings": {', '"settings": {"seed": 1e400, "x": ', 1)),
         "1e400"),
        ("huge record player id", call("POST", "/games/import", ann["token"],
                                       json={**record, "players": [{**record["players"][0], "id": HUGE},
                                                                   record["players"][1]]}), "players"),
    ]
    for what, (status, body), field in cases:
        assert status in (400, 422), (what, status, body)
        assert body["error"] and body["message"], what
        assert names_field(body, field), (what, body)
    # the game those inputs aimed at is untouched
    status, state = call("GET", f"/games/{game_id}/state")
    assert state["version"] == len(record["actions"]) and state["status"] == "finished"


def test_an_action_the_store_could_not_keep_as_sent_is_refused_naming_where(call: Call) -> None:
    """An integer past 64 bits or a lone surrogate inside an action would not come back from the store as it
    was sent (shared/jsontext.py): refused at the door, naming where, and nothing is queued."""
    ann = player(call)
    record = record_1840()
    status, imported = call("POST", "/games/import", ann["token"], json=record)
    game_id, seat = imported["game"]["id"], imported["seats"][0]["token"]
    for key, raw, field in (
        ("big", b'{"action": {"type": "message", "message": "x", "n": 123456789012345678901234567890}, '
                b'"expected_version": 0}', "action.n"),
        ("surrogate", b'{"action": {"type": "message", "message": "\\ud800"}, "expected_version": 0}',
         "action.message"),
    ):
        status, body = call("POST", f"/games/{game_id}/actions", seat, data=raw,
                            headers={"Idempotency-Key": key, "Content-Type": "application/json"})
        assert status == 400 and field in body["message"], (key, body)
        status, _ = call("GET", f"/games/{game_id}/receipts/{key}", seat)
        assert status == 404, key  # nothing was queued


def test_other_edges_of_the_inputs(call: Call) -> None:
    for raw in (b'{"name": NaN}', b'{"name": "a", "id": ' + b"9" * 5000 + b"}", b'{"name": "\\u0000"}',
                b"\xff\xfe", b'{"name": "x", "id": 1.5e308, "z": -1e999}'):
        status, body = call("POST", "/players", data=raw)
        assert status == 400 and body["error"] in ("malformed_json", "invalid_request"), (raw[:40], body)
    status, body = call("GET", "/games/0")
    assert status == 400 and names_field(body, "game_id")
    status, body = call("GET", "/games/1/events?limit=100000000000000000000")
    assert status in (400, 404)
    status, body = call("POST", "/games", json={"title": "1840", "seats": 2, "seed": 2**64})
    assert status == 400 and names_field(body, "seed")


def test_titles_and_their_options_are_listed(call: Call) -> None:
    status, body = call("GET", "/titles")
    assert status == 200
    titles = {t["title"]: t for t in body["titles"]}
    assert {"1825", "1828.Games", "1840", "1833NE"} <= set(titles)
    units = titles["1825"]
    assert units["players"] == {"min": 2, "max": 9}
    assert all(o["description"] for o in units["options"])
    assert ["unit_1", "unit_2", "unit_3", "unit_12", "unit_23", "unit_123"] in units["exclusive_groups"]
    assert [o["name"] for o in titles["1840"]["options"]] == ["three_player_small"]
    # one entry per title: 1828 is an alias of the title records call 1828.Games
    assert [t["title"] for t in body["titles"]].count("1828.Games") == 1 and "1828" not in titles
    assert titles["1828.Games"]["aliases"] == ["1828"] and titles["1840"]["aliases"] == []


def test_an_option_is_refused_at_a_player_count_it_is_not_played_at(call: Call) -> None:
    """Unit 2 is a 2-4 player game: asked for 5 seats it is refused, never replaced by Unit 1."""
    listed, before = call("GET", "/games")
    assert listed == 200
    status, body = call("POST", "/games", json={"title": "1825", "seats": 5, "options": ["unit_2"]})
    assert status == 422 and body["error"] == "option_player_count", body
    _, after = call("GET", "/games")
    assert after == before  # refused outright: no game was made with other options
    assert "unit_2" in body["message"] and "2, 3, 4" in body["message"] and body["valid"] == {"unit_2": [2, 3, 4]}
    status, body = call("POST", "/games", json={"title": "1825", "seats": 3, "options": ["unit_3"]})
    assert status == 422 and body["error"] == "option_player_count"
    status, game = call("POST", "/games", json={"title": "1825", "seats": 4, "options": ["unit_2"]})
    assert status == 201 and game["options"] == ["unit_2"]
    # the alias creates the same title
    status, game = call("POST", "/games", json={"title": "1828", "seats": 3})
    assert status == 201, game


def test_the_titles_listing_is_the_engines_catalogue(call: Call) -> None:
    """GET /titles is the engine's catalogue, one entry per title, each option with the player counts it is
    played at: the gateway reads no board data of its own."""
    from shared.engine.titles.catalogue import catalogue

    status, body = call("GET", "/titles")
    assert status == 200
    listed = {t["title"]: t for t in body["titles"]}
    assert list(listed) == list(catalogue())
    for title, entry in catalogue().items():
        assert {k: v for k, v in listed[title].items() if k != "provisional"} == entry.as_dict()
    unit_2 = next(o for o in listed["1825"]["options"] if o["name"] == "unit_2")
    assert unit_2["players"] == [2, 3, 4]


def test_set_up_refusals_carry_rule_reason_and_valid_values_as_fields(call: Call) -> None:
    """A client reads a refused set-up from fields, never from the sentence: error/rule, reason, valid,
    and the request field in details; every option a title has, at any player count, is refused or played,
    never exchanged for another."""
    status, body = call("POST", "/games", json={"title": "1825", "seats": 5, "options": ["unit_2"]})
    assert status == 422 and body["rule"] == body["error"] == "option_player_count"
    assert body["reason"] == "1825: option unit_2 is not played by 5 players" and "options" in body["details"]
    status, body = call("POST", "/games", json={"title": "1840", "seats": 3, "options": ["nope"]})
    assert status == 422 and body["rule"] == "unknown_option" and body["valid"] == ["three_player_small"]
    assert "nope" in body["reason"] and "three_player_small" not in body["reason"]
    status, body = call("POST", "/games", json={"title": "1840", "seats": 9})
    assert status == 422 and body["rule"] == "player_count" and body["valid"] == {"min": 2, "max": 6}
    assert "seats" in body["details"]
    status, body = call("POST", "/games", json={"title": "18XX", "seats": 3})
    assert status == 422 and body["rule"] == "unknown_title" and "1828.Games" in body["valid"]
    assert "title" in body["details"]
    for seats in (2, 5, 6):  # an option allowed at this count plays as asked
        status, game = call("POST", "/games", json={"title": "1825", "seats": seats, "options": ["unit_12"]})
        assert (status == 201 and game["options"] == ["unit_12"]) if seats != 2 else status == 422, (seats, game)


def test_titles_and_game_creation_say_which_1833ne_values_are_provisional(call: Call) -> None:
    """1833NE plays with placeholder tables until the rulebook's values arrive (docs/1833NE.md): the
    catalogue and every 1833NE game say so, the Takeover game naming its extra placeholders; other titles
    carry no such notice."""
    titles = {t["title"]: t for t in call("GET", "/titles")[1]["titles"]}
    marked = titles["1833NE"]["provisional"]
    assert "provisional" in marked["notice"] and marked["values"]
    assert {v["key"] for v in marked["with_options"]["takeover_game"]}.isdisjoint({v["key"] for v in marked["values"]})
    assert "provisional" not in titles["1840"]
    status, standard = call("POST", "/games", json={"title": "1833NE", "seats": 4})
    assert status == 201 and standard["provisional"]["values"] == marked["values"]
    status, takeover = call("POST", "/games", json={"title": "1833NE", "seats": 4, "options": ["takeover_game"]})
    assert status == 201 and len(takeover["provisional"]["values"]) == \
        len(marked["values"]) + len(marked["with_options"]["takeover_game"])
    status, other = call("POST", "/games", json={"title": "1840", "seats": 3})
    assert status == 201 and "provisional" not in other


def test_every_refusal_about_titles_or_options_names_the_valid_values(call: Call) -> None:
    status, body = call("POST", "/games", json={"title": "1840", "seats": 2, "options": ["bogus"]})
    assert status == 422 and "three_player_small" in body["message"] and "(none)" not in body["message"]
    assert body["valid"] == ["three_player_small"]
    status, body = call("POST", "/games", json={"title": "1825", "seats": 2, "options": ["bogus"]})
    assert status == 422 and "unit_1" in body["message"] and "db3" in body["message"]
    status, body = call("POST", "/games", json={"title": "18XX", "seats": 2})
    assert status == 422 and body["error"] == "unknown_title" and "1840" in body["message"]
    status, body = call("POST", "/games", json={"title": "1825", "seats": 2, "options": ["unit_1", "unit_2"]})
    assert status == 422 and body["error"] == "exclusive_options"
    status, body = call("POST", "/games", json={"title": "1840", "seats": 9})
    assert status == 422 and "2-6" in body["message"]
    # a combination only the engine can judge (R1 needs Unit 1) still lists the valid options
    status, body = call("POST", "/games", json={"title": "1825", "seats": 2, "options": ["unit_2", "r1"]})
    assert status == 422 and body["rule"] == "options" and "unit_1" in body["message"]


def test_importing_binds_only_identities_the_caller_proves(call: Call) -> None:
    record = record_1840()
    ann, bob = player(call, "Ann"), player(call, "Bob")
    assert call("POST", "/games/import", json=record)[0] == 401
    # a record naming Ann (the caller) and Bob: Ann is bound, Bob is not; he gets a fresh identity instead
    named = {**record, "players": [{"id": ann["id"], "name": "Ann"}, {"id": bob["id"], "name": "Bob"}]}
    old_ids = [p["id"] for p in record["players"]]
    for action in named["actions"]:
        for key in ("entity", "user"):
            if action.get(key) in old_ids and (key == "user" or action.get("entity_type") == "player"):
                action[key] = named["players"][old_ids.index(action[key])]["id"]
        for auto in action.get("auto_actions") or []:
            if auto.get("entity_type") == "player" and auto.get("entity") in old_ids:
                auto["entity"] = named["players"][old_ids.index(auto["entity"])]["id"]
    status, body = call("POST", "/games/import", ann["token"], json=named)
    assert status == 201, body
    seated = [s["player_id"] for s in body["seats"]]
    assert seated[0] == ann["id"] and seated[1] != bob["id"]
    fresh = body["players"]
    assert [(p["id"], p["record_id"]) for p in fresh] == [(seated[1], bob["id"])] and fresh[0]["token"]
    # the game reached the recorded result under the new ids, and Bob's identity never saw it
    result = body["game"]["result"]
    assert result == {str(ann["id"]): record["result"][str(old_ids[0])],
                      str(seated[1]): record["result"][str(old_ids[1])]}
    status, listed = call("GET", f"/games?player_id={bob['id']}")
    assert body["game"]["id"] not in [g["id"] for g in listed["games"]]
    # a seat token is not an identity to import with; the admin token binds the record's ids as they are
    assert call("POST", "/games/import", body["seats"][0]["token"], json=record)[0] == 403
    status, admin = call("POST", "/games/import", ADMIN_TOKEN, json=named)
    assert status == 201 and [s["player_id"] for s in admin["seats"]] == [ann["id"], bob["id"]]
    assert admin["players"] == []


def test_imports_are_idempotent_per_caller(call: Call) -> None:
    record = record_1840()
    ann, bob = player(call, "Ann"), player(call, "Bob")
    key = {"Idempotency-Key": uuid.uuid4().hex}
    first = call("POST", "/games/import", ann["token"], json=record, headers=key)
    again = call("POST", "/games/import", ann["token"], json=record, headers=key)
    assert (first[0], again[0]) == (201, 200)
    assert again[1]["game"]["id"] == first[1]["game"]["id"] and again[1]["seats"] == first[1]["seats"]
    status, body = call("POST", "/games/import", ann["token"], json={**record, "actions": record["actions"][:5]},
                        headers=key)
    assert (status, body["error"]) == (422, "idempotency_key_reused")
    other = call("POST", "/games/import", bob["token"], json=record, headers=key)  # Bob's key is his own
    assert other[0] == 201 and other[1]["game"]["id"] != first[1]["game"]["id"]


def test_private_games_are_joined_with_their_invitation(call: Call) -> None:
    status, made = call("POST", "/games", json={"title": "1840", "seats": 2, "visibility": "private"})
    assert status == 201 and made["invitation"]
    game_id = made["id"]
    assert call("POST", f"/games/{game_id}/join", json={"name": "Eve"})[1]["error"] == "invitation_required"
    assert call("POST", f"/games/{game_id}/join", json={"name": "Eve", "invitation": "rp_guess"})[0] == 403
    status, seat = call("POST", f"/games/{game_id}/join", json={"name": "Ann", "invitation": made["invitation"]})
    assert status == 201 and seat["token"]
    status, shown = call("GET", f"/games/{game_id}", seat["token"])
    assert status == 200 and "invitation" not in shown  # answered at creation only
    assert call("POST", f"/games/{game_id}/join", ADMIN_TOKEN, json={"name": "Op"})[0] == 201
    status, made = call("POST", "/games", json={"title": "1840", "seats": 2})
    assert "invitation" not in made and call("POST", f"/games/{made['id']}/join", json={"name": "x"})[0] == 201


def test_idempotency_keys_belong_to_their_caller_and_refusals_share_the_error_shape(tmp_path: Path) -> None:
    """Embedded queue (no worker needed): Bob reusing Alice's key gets his own command, not her receipt."""
    call = embedded_call(tmp_path)
    status, made = call("POST", "/games", json={"title": "1840", "seats": 2, "seed": 1})
    game_id = made["id"]
    seats = [call("POST", f"/games/{game_id}/join", json={"name": n})[1] for n in ("Alice", "Bob")]
    assert call("POST", f"/games/{game_id}/start", seats[0]["token"])[0] == 200
    status, state = call("GET", f"/games/{game_id}/state")
    acting = state["acting_players"][0]
    mover = next(s for s in seats if s["player_id"] == acting)
    other = next(s for s in seats if s["player_id"] != acting)
    move = {"type": "pass", "entity": acting, "entity_type": "player"}
    path = f"/games/{game_id}/actions?wait=10"
    key = {"Idempotency-Key": "same-key"}
    status, mine = call("POST", path, mover["token"], headers=key, json={"action": move, "expected_version": 0})
    assert status == 200 and mine["command_id"] == "same-key" and mine["new_version"] == 1
    wrong = {"type": "no_such_action", "entity": other["player_id"], "entity_type": "player"}
    status, theirs = call("POST", path, other["token"], headers=key, json={"action": wrong, "expected_version": 1})
    # not Alice's receipt: Bob's own command, refused by the engine, in the common error shape
    assert status in (400, 422) and theirs["status"] == "refused" and theirs["command_id"] == "same-key"
    assert theirs["error"] == theirs["rule"] and theirs["message"] == theirs["reason"] and theirs["reason"]
    assert call("GET", f"/games/{game_id}/receipts/same-key", mover["token"])[1]["status"] == "applied"
    assert call("GET", f"/games/{game_id}/receipts/same-key", other["token"])[1]["status"] == "refused"
    status, events = call("GET", f"/games/{game_id}/events")
    assert [e["version"] for e in events["events"]] == [1]


def test_the_seat_check_is_plays_and_the_gateway_answers_it_403(tmp_path: Path) -> None:
    """Nobody acts as someone else: the gateway does not judge who controls what, it queues the command and
    play's seat check refuses it (one check, `services.play.apply.authorise`); the receipt says 403
    not_your_entity, and the game does not move."""
    call = embedded_call(tmp_path)
    status, made = call("POST", "/games", json={"title": "1840", "seats": 2, "seed": 1})
    game_id = made["id"]
    seats = [call("POST", f"/games/{game_id}/join", json={"name": n})[1] for n in ("Alice", "Bob")]
    assert call("POST", f"/games/{game_id}/start", seats[0]["token"])[0] == 200
    acting = call("GET", f"/games/{game_id}/state")[1]["acting_players"][0]
    other = next(s for s in seats if s["player_id"] != acting)
    path = f"/games/{game_id}/actions?wait=10"
    for n, move in enumerate(({"type": "pass", "entity": acting, "entity_type": "player"},
                              {"type": "pass", "entity": acting, "entity_type": "player", "user": acting})):
        status, body = call("POST", path, other["token"], headers={"Idempotency-Key": f"as-other-{n}"},
                            json={"action": move, "expected_version": 0})
        assert (status, body["error"], body["status"]) == (403, "not_your_entity", "refused"), body
        assert body["reason"] and body["rule"] == "not_your_entity"
    assert call("GET", f"/games/{game_id}/events")[1]["events"] == []
    import services.gateway.actions as gateway_actions

    assert "controller" not in Path(gateway_actions.__file__).read_text()


def test_bids_state_their_minimum_step_and_maximum(tmp_path: Path) -> None:
    """An 1840 opening auction: every bid option carries its range, and a bid inside the range that the
    engine did not list (minimum + one step) is accepted."""
    call = embedded_call(tmp_path)
    status, made = call("POST", "/games", json={"title": "1840", "seats": 2, "seed": 1})
    game_id = made["id"]
    seats = [call("POST", f"/games/{game_id}/join", json={"name": n})[1] for n in ("Alice", "Bob")]
    assert call("POST", f"/games/{game_id}/start", seats[0]["token"])[0] == 200
    acting = call("GET", f"/games/{game_id}/state")[1]["acting_players"][0]
    seat = next(s for s in seats if s["player_id"] == acting)
    status, legal = call("GET", f"/games/{game_id}/legal-actions", seat["token"])
    bids = [a for a in legal["actions"] if a["type"] == "bid"]
    assert bids and all(a["min"] <= a["price"] <= a["max"] and a["step"] == 5 for a in bids)
    cash = call("GET", f"/games/{game_id}/state")[1]["digest"]["players"][str(acting)]["cash"]
    assert {a["max"] for a in bids} == {cash}
    first = bids[0]
    bid = {k: first[k] for k in ("type", "entity", "entity_type", "company")} | {"price": first["min"] + first["step"]}
    status, receipt = call("POST", f"/games/{game_id}/actions?wait=10", seat["token"],
                           headers={"Idempotency-Key": "bid"}, json={"action": bid, "expected_version": 0})
    assert status == 200 and receipt["new_version"] == 1, receipt


def test_json_nested_100k_deep_under_the_default_body_limit(tmp_path: Path) -> None:
    """The issue's own input: 100,000 levels fit the default 256 KiB body limit, so they reach the parser."""
    call = embedded_call(tmp_path)
    for path in ("/games", "/players", "/games/import", "/games/1/actions"):
        status, body = call("POST", path, ADMIN_TOKEN, data=b"[" * 100_000 + b"]" * 100_000,
                            headers={"Idempotency-Key": "deep"})
        assert status in (400, 404) and body["error"] in ("malformed_json", "game_not_found"), (path, body)
    status, body = call("POST", "/games", data=b'{"title": ' + b'{"a": ' * 30_000 + b"1" + b"}" * 30_001)
    assert status == 400 and "nested" in body["message"]


def test_create_app_mounts_the_notifier_with_init_app(tmp_path: Path) -> None:
    """The notifier's API is a Flask extension of the gateway: `create_app` binds its context from the
    gateway's Config at once (same database, public URL, admin token), not on the first request."""
    from services.notifier.api import EXTENSION

    url = f"sqlite:///{tmp_path / 'notifier.sqlite3'}"
    migrate(url)
    config = Config(database_url=url, admin_token=ADMIN_TOKEN, public_url="https://rp.example")
    app = create_app(config)
    ctx = app.extensions[EXTENSION]
    assert ctx.settings.database_url == url and ctx.admin_token == ADMIN_TOKEN
    assert ctx.settings.public_base_url == "https://rp.example" and "notifier" in app.blueprints
    reply = app.test_client().get("/notifier/subscriptions", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert reply.status_code in (200, 409), reply.get_json()


def test_legal_actions_without_entity_list_every_entity_and_standing_orders(tmp_path: Path) -> None:
    """Issue 23: without `?entity=` a seat gets the moves of every entity it controls, ending the game and
    its standing orders (set or, once set, clear), the player who is not acting too; `?entity=` narrows to
    one entity."""
    call = embedded_call(tmp_path)
    status, made = call("POST", "/games", json={"title": "1840", "seats": 2, "seed": 1})
    game_id = made["id"]
    seats = [call("POST", f"/games/{game_id}/join", json={"name": n})[1] for n in ("Alice", "Bob")]
    assert call("POST", f"/games/{game_id}/start", seats[0]["token"])[0] == 200
    acting = call("GET", f"/games/{game_id}/state")[1]["acting_players"][0]
    mover = next(s for s in seats if s["player_id"] == acting)
    waiting = next(s for s in seats if s["player_id"] != acting)
    mine = call("GET", f"/games/{game_id}/legal-actions", mover["token"])[1]["actions"]
    types = {a["type"] for a in mine}
    assert {"bid", "program_share_pass", "program_buy_shares"} <= types and "program_disable" not in types
    legal = call("GET", f"/games/{game_id}/legal-actions", waiting["token"])[1]
    theirs = legal["actions"]
    assert theirs and {a["type"] for a in theirs} <= {"program_share_pass", "program_buy_shares"}
    # ending the game is the table's vote in a new game: named apart, with whose word it needs
    assert {"type": "end_game", "entity": waiting["player_id"], "entity_type": "player",
            "needs_consent": [mover["player_id"]]} in legal["proposals"]
    assert all(a["entity"] == waiting["player_id"] for a in theirs)
    order = next(a for a in theirs if a["type"] == "program_share_pass")
    status, receipt = call("POST", f"/games/{game_id}/actions?wait=10", waiting["token"],
                           headers={"Idempotency-Key": "order"}, json={"action": order, "expected_version": 0})
    assert status == 200, receipt
    theirs = call("GET", f"/games/{game_id}/legal-actions", waiting["token"])[1]["actions"]
    assert [a["original_type"] for a in theirs if a["type"] == "program_disable"] == ["program_share_pass"]
    narrowed = call("GET", f"/games/{game_id}/legal-actions?entity={acting}", mover["token"])[1]["actions"]
    assert narrowed and all(a["entity"] == acting for a in narrowed)


def test_a_refused_receipt_names_the_values_the_engine_would_accept(played: Call) -> None:
    """A refusal settled by the rules worker carries `valid` like every other refusal (stored with the
    receipt, on SQLite and on PostgreSQL), so a client reads the alternatives from a field, not the text."""
    status, made = played("POST", "/games", json={"title": "1840", "seats": 2, "seed": 1})
    game_id = made["id"]
    seats = [played("POST", f"/games/{game_id}/join", json={"name": n})[1] for n in ("Alice", "Bob")]
    assert played("POST", f"/games/{game_id}/start", seats[0]["token"])[0] == 200
    acting = played("GET", f"/games/{game_id}/state")[1]["acting_players"][0]
    seat = next(s for s in seats if s["player_id"] == acting)
    wrong = {"type": "no_such_action", "entity": acting, "entity_type": "player"}
    status, body = played("POST", f"/games/{game_id}/actions?wait=10", seat["token"],
                        headers={"Idempotency-Key": "wrong-type"}, json={"action": wrong, "expected_version": 0})
    assert (status, body["status"], body["rule"]) == (400, "refused", "action_type"), body
    assert isinstance(body["valid"], list) and {"pass", "bid", "lay_tile"} <= set(body["valid"])
    assert "no_such_action" not in body["valid"]
    again = played("GET", f"/games/{game_id}/receipts/wrong-type", seat["token"])[1]
    assert again["valid"] == body["valid"]
    status, ok = played("POST", f"/games/{game_id}/actions?wait=10", seat["token"], headers={"Idempotency-Key": "pass"},
                      json={"action": {"type": "pass", "entity": acting, "entity_type": "player"},
                            "expected_version": 0})
    assert status == 200 and ok["valid"] is None, ok

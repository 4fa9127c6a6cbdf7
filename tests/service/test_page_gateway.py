"""The page's endpoints on the embedded default (SQLite, in-process queue): content negotiation on
`/games/{id}`, the read-only HTML view, `state.market`, the map JSON, the page's long-poll and seat lookup."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.config import Config
from services.gateway import create_app
from shared.eventstore import migrate

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "tests" / "fixtures" / "conformance" / "1840" / "2player.json"
ADMIN = {"Authorization": "Bearer page-admin"}
HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    url = f"sqlite:///{tmp_path_factory.mktemp('page') / 'page.sqlite3'}"
    migrate(url)
    yield create_app(Config(database_url=url, admin_token="page-admin", log_level="WARNING")).test_client()


@pytest.fixture(scope="module")
def imported(client: Any) -> dict[str, Any]:
    record = json.loads(RECORD.read_text())
    record["actions"] = record["actions"][:120]
    record["status"] = "active"
    record.pop("result", None)
    made = client.post("/games/import", json=record, headers=ADMIN)
    assert made.status_code in (200, 201), made.json
    return made.json


def test_browsers_get_the_page_and_api_clients_json(client: Any, imported: dict[str, Any]) -> None:
    game_id = imported["game"]["id"]
    page = client.get(f"/games/{game_id}", headers=HTML)
    assert page.status_code == 200 and page.mimetype == "text/html"
    for accept in ("*/*", "application/json", "application/json, text/html;q=0.5"):
        api = client.get(f"/games/{game_id}", headers={"Accept": accept})
        assert api.mimetype == "application/json" and api.json["id"] == game_id
    assert client.get(f"/games/{game_id}/page").data == page.data
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert page.headers["Referrer-Policy"] == "no-referrer"


def test_page_draws_every_hex_and_tile_and_names_who_acts(client: Any, imported: dict[str, Any]) -> None:
    game_id = imported["game"]["id"]
    html = client.get(f"/games/{game_id}/page").get_data(as_text=True)
    board = client.get(f"/games/{game_id}/map").json
    state = client.get(f"/games/{game_id}/state").json
    assert html.count('<g class="hex"') == len(board["hexes"])
    assert len(re.findall(r'data-tile="[^"]+"', html)) == len(state["tiles"])
    tokens = sum(1 for h in board["hexes"] for n in h["nodes"] for t in n.get("tokens") or [] if t)
    assert html.count('<g class="token"') == tokens > 0
    names = {s["player_id"]: s["name"] for s in imported["game"]["seats"]}
    assert state["acting_players"]
    for pid in state["acting_players"]:
        assert re.search(r"Waiting for: <strong>[^<]*" + re.escape(names[pid]), html)
    assert "Waiting for:" in html and f"phase {state['phase']}" in html
    for seat in imported["seats"]:  # seat tokens are never written into a page
        assert seat["token"] not in html


def test_state_market_has_cells_prices_and_corporations(client: Any, imported: dict[str, Any]) -> None:
    game_id = imported["game"]["id"]
    state = client.get(f"/games/{game_id}/state").json
    market = state["market"]
    assert market["shape"] in ("1D", "2D") and market["rows"]
    for sym, corp in state["corporations"].items():
        if corp.get("share_coords") and not corp.get("closed"):
            r, c = corp["share_coords"]
            cell = market["rows"][r][c]
            assert sym in cell["corporations"] and cell["price"] == corp["share_price"]
            assert market["positions"][sym] == [r, c]


def test_map_endpoint_describes_the_board(client: Any, imported: dict[str, Any]) -> None:
    game_id = imported["game"]["id"]
    board = client.get(f"/games/{game_id}/map").json
    assert board["layout"] == "pointy" and board["version"] == imported["game"]["version"]
    laid = [h for h in board["hexes"] if h["tile"]]
    assert laid and all({"name", "rotation", "copy", "id"} <= set(h["tile"]) for h in laid)
    assert len(board["corners"]) == 6
    offboards = [n for h in board["hexes"] for n in h["nodes"] if n["kind"] == "offboard"]
    assert all("revenue" in n for n in offboards)


def test_long_poll_answers_at_once_on_a_new_version_and_waits_otherwise(client: Any,
                                                                       imported: dict[str, Any]) -> None:
    game_id = imported["game"]["id"]
    version = imported["game"]["version"]
    started = time.monotonic()
    assert client.get(f"/games/{game_id}/page/version?after={version - 1}&wait=15").json["version"] == version
    assert time.monotonic() - started < 5  # far below the 15 s it would wait (the machine may be busy)
    started = time.monotonic()
    assert client.get(f"/games/{game_id}/page/version?after={version}&wait=1").json["version"] == version
    assert time.monotonic() - started >= 0.9
    assert client.get(f"/games/{game_id}/page/version?after=x").status_code == 400


def test_seat_lookup_needs_that_games_seat(client: Any, imported: dict[str, Any]) -> None:
    game_id = imported["game"]["id"]
    seat = imported["seats"][0]
    me = client.get(f"/games/{game_id}/page/me", headers={"Authorization": f"Bearer {seat['token']}"})
    assert me.status_code == 200 and me.json["player_id"] == seat["player_id"]
    assert client.get(f"/games/{game_id}/page/me").status_code == 401


def test_a_game_waiting_for_players_has_a_page_but_no_map(client: Any) -> None:
    made = client.post("/games", json={"title": "1828", "seats": 3, "options": []})
    game_id = made.json["id"]
    page = client.get(f"/games/{game_id}/page")
    assert page.status_code == 200 and b"Waiting for players" in page.data
    assert client.get(f"/games/{game_id}/map").status_code == 409
    # its page waits for the start: the poll answers at once when the status the page knows is stale
    started = time.monotonic()
    assert client.get(f"/games/{game_id}/page/version?after=0&status=active&wait=15").json["status"] == "open"
    assert time.monotonic() - started < 5
    started = time.monotonic()
    assert client.get(f"/games/{game_id}/page/version?after=0&status=open&wait=1").json["status"] == "open"
    assert time.monotonic() - started >= 0.9


def test_private_games_are_not_shown_to_strangers(client: Any) -> None:
    made = client.post("/games", json={"title": "1840", "seats": 2, "options": [], "visibility": "private"})
    game_id = made.json["id"]
    for path in (f"/games/{game_id}/map", f"/games/{game_id}/page/version", f"/games/{game_id}/state"):
        assert client.get(path, headers=HTML).status_code == 401
    shell = client.get(f"/games/{game_id}/page", headers=HTML)
    assert shell.status_code == 401 and shell.mimetype == "text/html"
    assert b"private" in shell.data and b"Waiting for players" not in shell.data
    assert client.get(f"/games/{game_id}/page", headers=ADMIN).status_code == 200


def test_tile_preview_draws_the_tile_turned_without_laying_it(client: Any, imported: dict[str, Any]) -> None:
    game_id = imported["game"]["id"]
    board = client.get(f"/games/{game_id}/map").json
    blank = next(h for h in board["hexes"] if not h["tile"] and not h["nodes"] and h["color"] == "white")
    name = next(h["tile"]["name"] for h in board["hexes"] if h["tile"] and h["paths"])
    svg = client.get(f"/games/{game_id}/page/preview?hex={blank['id']}&tile={name}-0&rotation=1")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    assert b'class="track"' in svg.data and f"#{name}<".encode() in svg.data
    assert client.get(f"/games/{game_id}/map").json == board  # nothing laid
    assert client.get(f"/games/{game_id}/page/preview?hex=ZZ9&tile=9-0").status_code == 404


def test_front_door_lists_open_games_for_browsers(client: Any, imported: dict[str, Any]) -> None:
    page = client.get("/", headers=HTML)
    assert page.status_code == 200 and f'/games/{imported["game"]["id"]}/page'.encode() in page.data
    assert client.get("/").json["docs"].endswith("/docs")


def test_a_title_with_provisional_values_says_so_on_its_page(client: Any) -> None:
    from shared.engine.provisional import provisional_notice

    notice = provisional_notice("1833NE", [])
    assert notice
    made = client.post("/games", json={"title": "1833NE", "seats": 3, "options": []})
    page = client.get(f"/games/{made.json['id']}/page").get_data(as_text=True)
    assert 'id="notice"' in page and notice.split(":")[0] in page
    other = client.post("/games", json={"title": "1828", "seats": 3, "options": []})
    assert 'id="notice"' not in client.get(f"/games/{other.json['id']}/page").get_data(as_text=True)


def test_a_finished_game_shows_the_result_by_player_name(client: Any) -> None:
    record = json.loads(RECORD.read_text())
    made = client.post("/games/import", json=record, headers=ADMIN)
    assert made.status_code in (200, 201), made.json
    game = made.json["game"]
    assert game["status"] == "finished"
    html = client.get(f"/games/{game['id']}", headers=HTML).get_data(as_text=True)
    assert "Game over" in html and 'id="turn"' not in html.split("<main>")[0]
    for seat in game["seats"]:
        assert f"{seat['name']} — {game['result'][str(seat['player_id'])]}" in html.replace("£", "")


def _post(client: Any, game_id: int, token: str, action: dict[str, Any]) -> dict[str, Any]:
    version = client.get(f"/games/{game_id}").json["version"]
    r = client.post(f"/games/{game_id}/actions?wait=8", json={"action": action, "expected_version": version},
                    headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"k{time.monotonic_ns()}"})
    assert r.status_code == 200 and r.json["status"] == "applied", r.json
    return r.json


def test_a_players_standing_order_is_his_own_to_read(client: Any, imported: dict[str, Any]) -> None:
    """`/page/me` tells a seat its own standing order, in words and as set (without the engine's dating);
    another seat, a stranger and the page itself never show it (docs/page.md, standing orders)."""
    game_id = imported["game"]["id"]
    owner, other = imported["seats"][0], imported["seats"][1]
    auth = {"Authorization": f"Bearer {owner['token']}"}
    assert client.get(f"/games/{game_id}/page/me", headers=auth).json["programs"] == []
    offers = client.get(f"/games/{game_id}/legal-actions", headers=auth).json["actions"]
    counted = next(a for a in offers if a["type"] == "program_buy_shares" and a["until_condition"] != "float"
                   and a["from_market"] is False and a["auto_pass_after"] is True)
    assert counted["min"] == 1 and counted["step"] == 1
    order = {k: v for k, v in counted.items() if k not in ("min", "step", "max")} | {"until_condition": 3}
    _post(client, game_id, owner["token"], order)
    mine = client.get(f"/games/{game_id}/page/me", headers=auth).json["programs"]
    assert [m["order"] for m in mine] == [order]
    sym = order["corporation"]
    assert mine[0]["words"].startswith(f"buy shares of {sym}")
    assert mine[0]["words"].endswith(" from the IPO, one a turn, until you hold 3 shares, then pass in this stock round")
    # clearing is offered with what it clears
    offers = client.get(f"/games/{game_id}/legal-actions", headers=auth).json["actions"]
    assert {"type": "program_disable", "entity": owner["player_id"], "entity_type": "player", "reason": "user",
            "original_type": "program_buy_shares"} in offers
    # nobody else reads it: not another seat, not the page anyone may open (players' table, log)
    theirs = client.get(f"/games/{game_id}/page/me", headers={"Authorization": f"Bearer {other['token']}"}).json
    assert theirs["programs"] == [] and "shares of" not in json.dumps(theirs)
    other_offers = client.get(f"/games/{game_id}/legal-actions",
                              headers={"Authorization": f"Bearer {other['token']}"}).json["actions"]
    assert all(a["entity"] == other["player_id"] for a in other_offers if a["type"].startswith("program_"))
    assert not any(a["type"] == "program_disable" for a in other_offers)
    html = client.get(f"/games/{game_id}/page").get_data(as_text=True)
    assert "standing order" not in html and "until you hold" not in html
    # the state lists the order to its owner only (players[] and the digest alike)
    owner_key = str(owner["player_id"])
    for token, sees in ((owner["token"], ["program_buy_shares"]), (other["token"], []), (None, [])):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        state = client.get(f"/games/{game_id}/state", headers=headers).json
        assert state["players"][owner_key]["programs"] == sees
        assert state["digest"]["players"][owner_key]["programs"] == sees
    _post(client, game_id, owner["token"], {"type": "program_disable", "entity": owner["player_id"],
                                            "entity_type": "player", "reason": "user"})
    assert client.get(f"/games/{game_id}/page/me", headers=auth).json["programs"] == []


def test_every_move_type_the_engine_knows_has_words_and_a_group_on_the_page() -> None:
    """legal-actions may list any type a game takes (`action_types`: the shared ones and every registered
    title's own); the page's script names each move in words (its `label`) and gives it a group (`GROUPS`),
    the standing orders a fieldset of their own: a type added to the engine or a title without a control on
    the page fails here."""
    from shared.engine.actions import action_types
    from shared.engine.titles import registered_actions

    script = (ROOT / "services" / "gateway" / "web" / "static" / "page.js").read_text(encoding="utf-8")
    groups = script[script.index("const GROUPS = {"):]
    groups = groups[:groups.index("};")]
    assert {"swap_train", "remove_token"} <= action_types(registered_actions())  # the titles' own are among them
    for kind in sorted(action_types(registered_actions())):
        if kind.startswith("program_"):
            assert f'"{kind}"' in script, kind  # the standing-orders fieldset picks its entries by type
            continue
        assert f'case "{kind}":' in script, f"the page has no words for {kind}"
        assert re.search(rf"\b{kind}:", groups), f"the page has no group for {kind}"


def test_legal_actions_names_a_merger_that_cannot_complete_apart_with_its_reason(client: Any) -> None:
    """A move the engine takes but after which only an undo goes on (an 1828 merger that fails) is not among
    the offers: legal-actions names it under `dead_ends` with the reason, to its player alone."""
    record = json.loads((ROOT / "tests/fixtures/conformance/generated/1828/gen1828_4p_752101.json").read_text())
    record["actions"] = record["actions"][:51]
    record["status"] = "active"
    record.pop("result", None)
    made = client.post("/games/import", json=record, headers=ADMIN)
    assert made.status_code in (200, 201), made.json
    game_id = made.json["game"]["id"]
    seats = {s["player_id"]: s["token"] for s in made.json["seats"]}
    auth = {"Authorization": f"Bearer {seats[1003]}"}
    answer = client.get(f"/games/{game_id}/legal-actions", headers=auth).json
    start = {"type": "choose", "entity": 1003, "entity_type": "player", "choice": "MC"}
    assert start not in answer["actions"]
    assert [{k: v for k, v in d.items() if k != "reason"} for d in answer["dead_ends"]] == [start]
    assert "fewer than three System shares" in answer["dead_ends"][0]["reason"]
    other = client.get(f"/games/{game_id}/legal-actions", headers={"Authorization": f"Bearer {seats[1001]}"}).json
    assert other["dead_ends"] == []
    # a player may still make it (the rules allow it); then the merger's partner is a dead end too
    _post(client, game_id, seats[1003], start)
    answer = client.get(f"/games/{game_id}/legal-actions", headers=auth).json
    assert not [a for a in answer["actions"] if a["type"] == "merge"]
    assert [(d["type"], d["corporation"]) for d in answer["dead_ends"]] == [("merge", "GT")]

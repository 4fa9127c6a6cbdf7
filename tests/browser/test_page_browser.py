"""The game page in a real browser, for every title: a game at set-up and one mid-game (a conformance record
imported up to a point) draw every hex, tile and token the state has; a seated player buys a share and lays
a tile through the page, and the state changes accordingly. Screenshots land in var/screenshots/.

The moves are the record's own next moves (a buy, later a tile lay), so the page must offer exactly what the
recorded player did: the record proves those moves legal at that point.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from .conftest import ADMIN, ROOT, SHOTS, Server

FIXTURES = ROOT / "tests" / "fixtures"
RECORDS = {
    "1825": FIXTURES / "conformance" / "1825" / "1825_game_end_bank.json",
    "1828": FIXTURES / "conformance" / "1828" / "1828Games_game_end_bankrupt.json",
    "1840": FIXTURES / "conformance" / "1840" / "2player.json",
    "1833NE": FIXTURES / "1833NE" / "standard_4p_seed1.json",
}
SEATS = {"1825": 3, "1828": 3, "1840": 3, "1833NE": 4}


def _record(title: str) -> dict[str, Any]:
    return json.loads(RECORDS[title].read_text())


def _undone(actions: list[dict[str, Any]]) -> set[int]:
    """Ids of actions a later undo takes back (a prefix ending just before one would not be the record's
    path); a plain scan of `undo` ids is enough to steer clear of them."""
    return {int(a["action_id"]) for a in actions if a.get("type") == "undo" and a.get("action_id")}


def _next_index(actions: list[dict[str, Any]], kind: str, start: int) -> int:
    undone = _undone(actions)
    for i in range(start, len(actions)):
        a = actions[i]
        if a.get("type") == kind and a.get("id") not in undone and not any(
                b.get("type") in ("undo", "redo") for b in actions[max(0, i - 2):i + 2]):
            return i
    raise AssertionError(f"no {kind} after action {start}")


def _import(server: Server, record: dict[str, Any], upto: int) -> tuple[int, list[dict[str, Any]]]:
    prefix = {**record, "actions": record["actions"][:upto]}
    prefix.pop("result", None)
    prefix.pop("game_end_reason", None)
    prefix["status"] = "active"
    r = server.api("POST", "/games/import", ADMIN, json=prefix)
    assert r.status_code in (200, 201), r.text
    body = r.json()
    return body["game"]["id"], body["seats"]


def _counts(page: Any) -> dict[str, int]:
    return page.evaluate("""() => ({
        hexes: document.querySelectorAll('svg.map g.hex').length,
        tiles: document.querySelectorAll('svg.map g.hex[data-tile]:not([data-tile=""])').length,
        tokens: document.querySelectorAll('svg.map .token').length,
        titles: document.querySelectorAll('svg.map g.hex > title').length,
    })""")


def _check_drawn(server: Server, page: Any, game_id: int) -> dict[str, Any]:
    """The DOM against the state: every hex, every laid tile (state.tiles) and every station token (each
    corporation's tokens in the state, and every token on the map endpoint)."""
    state = server.api("GET", f"/games/{game_id}/state").json()
    board = server.api("GET", f"/games/{game_id}/map").json()
    counts = _counts(page)
    assert counts["hexes"] == len(board["hexes"]) > 0
    assert counts["titles"] == counts["hexes"]  # every hex has its text alternative
    assert counts["tiles"] == len(state["tiles"])
    on_map = sum(1 for h in board["hexes"] for n in h["nodes"] for t in n.get("tokens") or [] if t)
    assert counts["tokens"] == on_map
    for sym, corp in state["corporations"].items():
        drawn = page.locator(f'svg.map .token[data-entity="{sym}"]').count()
        assert drawn == len(corp.get("tokens") or []), sym
    for hex_id, tile in state["tiles"].items():
        name = tile.rsplit("-", 1)[0]
        assert page.locator(f'svg.map g.hex[data-hex="{hex_id}"]').get_attribute("data-tile").startswith(name + "-")
    # the market shows one marker per corporation standing on it
    markers = page.locator("table.market .marker").count()
    assert markers == len(state["market"]["positions"])
    return state


def _open(browser: Any, server: Server, game_id: int, token: str | None = None, width: int = 1280) -> Any:
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    # console errors include blocked content (the page's Content-Security-Policy) and failed requests
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.errors = errors
    fragment = f"#seat={token}" if token else ""
    page.goto(f"{server.base}/games/{game_id}/page{fragment}")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    return page


def _acting_seat(server: Server, game_id: int, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """The seat whose move it is (standing orders, and 1840's sale of a private, are offered to every seat at
    any time, so "has a legal action" is not "is to act")."""
    acting = server.api("GET", f"/games/{game_id}/state").json()["acting_players"]
    for seat in seats:
        if seat["player_id"] in acting:
            return seat
    raise AssertionError(f"no seat of game {game_id} is acting ({acting})")


def _seated(server: Server, seed: int, names: tuple[str, ...]) -> tuple[int, list[dict[str, Any]]]:
    """A new 1840 game with these players seated, not yet started: its id and the seats (player id, token)."""
    gid = server.api("POST", "/games", json={"title": "1840", "seats": len(names), "seed": seed,
                                             "options": []}).json()["id"]
    return gid, [server.api("POST", f"/games/{gid}/join", json={"name": n}).json() for n in names]


def _wait_version(page: Any, version: int) -> None:
    page.wait_for_function(f"() => Number(document.body.dataset.version) > {version} "
                           "&& document.body.dataset.ready === '1'", timeout=30_000)


def _state_after(server: Server, game_id: int, version: int) -> dict[str, Any]:
    """The state once the page's post has been applied (the page reloads itself; its reload is checked in
    test_page_reloads_when_another_player_moves)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = server.api("GET", f"/games/{game_id}/state").json()
        if state["version"] > version:
            return state
        time.sleep(0.1)
    raise AssertionError(f"game {game_id} still at version {version}: the page's move was not applied")


@pytest.mark.parametrize("title", sorted(RECORDS))
def test_setup_page_draws_the_whole_board(server: Server, browser: Any, title: str) -> None:
    made = server.api("POST", "/games", json={"title": title, "seats": SEATS[title], "seed": 7, "options": []})
    assert made.status_code == 201, made.text
    game_id = made.json()["id"]
    tokens = []
    for i in range(SEATS[title]):
        joined = server.api("POST", f"/games/{game_id}/join", json={"name": f"Seat {i}"})
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    assert server.api("POST", f"/games/{game_id}/start", tokens[0]).status_code == 200
    page = _open(browser, server, game_id)
    try:
        _check_drawn(server, page, game_id)
        assert page.locator("#turn").is_hidden()  # no seat: a read-only view
        page.screenshot(path=str(SHOTS / f"{title}_setup.png"), full_page=True)
        assert not page.errors
    finally:
        page.close()


@pytest.mark.parametrize("title", sorted(RECORDS))
def test_mid_game_page_buys_a_share_and_lays_a_tile(server: Server, browser: Any, title: str) -> None:
    record = _record(title)
    actions = record["actions"]
    buy_at = _next_index(actions, "buy_shares", len(actions) // 3)
    buy = actions[buy_at]
    game_id, seats = _import(server, record, buy_at)
    seat = next(s for s in seats if s["player_id"] == buy["entity"])
    page = _open(browser, server, game_id, seat["token"])
    try:
        state = _check_drawn(server, page, game_id)
        page.screenshot(path=str(SHOTS / f"{title}_mid_game.png"), full_page=True)
        assert page.locator("#turn-title").inner_text() == "Your turn"
        # the round as players count it (the set, and for operating rounds which one), and the bank
        status = page.locator("#status").inner_text()
        assert re.search(r"(Stock|Company|Auction) round \d+ |(Operating|Line) round \d+\.\d+ ", status), status
        assert re.search(r"bank (unlimited|[£$]\d+)", status), status
        assert re.search(r"priority deal \S+", status), status
        # every corporation that has run shows its runs (a bar each) beside its row
        assert page.locator("table.corporations svg.earnings rect").count() >= 2
        page.locator("table.corporations").screenshot(path=str(SHOTS / f"{title}_corporations.png"))
        # a certificate count shows the title's limit only where the title has one (1828 has none)
        certs = page.locator("table.players tbody tr td:nth-child(3)").all_inner_texts()
        assert certs and all(("/" in c) == (title != "1828") for c in certs), certs
        corp = buy["shares"][0].rsplit("_", 1)[0]
        before = state["players"][str(buy["entity"])]["shares"].get(corp, 0)
        buttons = page.locator('fieldset[data-type="buy_shares"] button')
        wanted = [i for i in range(buttons.count())
                  if json.loads(buttons.nth(i).get_attribute("data-action"))["shares"] == buy["shares"]]
        assert wanted, f"the page offers no buy of {buy['shares']}"
        buttons.nth(wanted[0]).click()
        after = _state_after(server, game_id, state["version"])
        assert after["players"][str(buy["entity"])]["shares"].get(corp, 0) == before + buy["percent"]
        assert not page.errors
    finally:
        page.close()

    lay_at = _next_index(actions, "lay_tile", buy_at + 1)
    lay = actions[lay_at]
    game_id, seats = _import(server, record, lay_at)
    seat = _acting_seat(server, game_id, seats)
    page = _open(browser, server, game_id, seat["token"], width=1600)
    try:
        state = _check_drawn(server, page, game_id)
        # the hex is offered both on the map and in the list (phones, keyboards, screen readers)
        assert page.locator(f'fieldset[data-type="lay_tile"] button.hex-choice[data-hex="{lay["hex"]}"]').count() == 1
        hex_ = page.locator(f'svg.map g.hex.can-act[data-hex="{lay["hex"]}"]')
        hex_.click()
        tile_name = lay["tile"].rsplit("-", 1)[0]
        options = page.locator("#tile-select option").evaluate_all("els => els.map(e => e.value)")
        tile = lay["tile"] if lay["tile"] in options else next(o for o in options if o.startswith(tile_name + "-"))
        # each legal lay on the hex is drawn as a choice; picking the picture sets the tile and rotation
        offered = [a for a in server.api("GET", f"/games/{game_id}/legal-actions", seat["token"]).json()["actions"]
                   if a["type"] == "lay_tile" and a["hex"] == lay["hex"]]
        choices = page.locator("#lay-picker button.lay-choice")
        assert choices.count() == len(offered)
        pick = page.locator(f'#lay-picker button.lay-choice[data-tile="{tile}"][data-rotation="{lay["rotation"]}"]')
        page.wait_for_function(f"""() => document.querySelectorAll('#lay-picker button.lay-choice svg').length
            === {len(offered)}""", timeout=20_000)
        page.locator("#hex-panel").screenshot(path=str(SHOTS / f"{title}_rotation_picker.png"))
        pick.click()
        assert page.locator("#tile-select").input_value() == tile
        assert page.locator("#rotation-select").input_value() == str(lay["rotation"])
        assert pick.get_attribute("aria-pressed") == "true"
        # the hex previews the chosen tile before anything is posted
        page.wait_for_function(f"""() => [...document.querySelectorAll('svg.map g.hex[data-hex="{lay["hex"]}"] text.tile-name')]
            .some(t => t.textContent === '#{tile_name}')""", timeout=10_000)
        page.screenshot(path=str(SHOTS / f"{title}_lay_tile.png"))
        page.click("#lay-tile")
        after = _state_after(server, game_id, state["version"])
        assert after["tiles"][lay["hex"]] == f"{tile_name}-{lay['rotation']}"
        assert not page.errors
    finally:
        page.close()


def test_phone_width_page_reads_without_horizontal_scrolling(server: Server, browser: Any) -> None:
    record = _record("1828")
    game_id, _ = _import(server, record, 200)
    page = _open(browser, server, game_id, width=375)
    try:
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0  # wide tables and the map scroll inside their own boxes
        page.screenshot(path=str(SHOTS / "1828_phone.png"), full_page=False)
    finally:
        page.close()


def test_a_merger_that_cannot_complete_is_shown_with_its_reason_not_as_a_button(server: Server, browser: Any) -> None:
    """An 1828 merger that would fail (only an undo could follow it) is not offered as a move: the page lists
    it apart, with the engine's reason, and has no button for it."""
    record = json.loads((FIXTURES / "conformance" / "generated" / "1828" / "gen1828_4p_752101.json").read_text())
    game_id, seats = _import(server, record, 51)
    seat = next(s for s in seats if s["player_id"] == 1003)
    page = _open(browser, server, game_id, seat["token"])
    try:
        box = page.locator("fieldset[data-type='dead-ends']")
        box.wait_for(timeout=10_000)
        items = box.locator("li")
        assert items.count() == 1
        text = items.first.inner_text()
        assert text.startswith("Choose MC:") and "fewer than three System shares" in text
        assert json.loads(items.first.get_attribute("data-action") or "{}")["choice"] == "MC"
        assert box.locator("button").count() == 0
        offered = [json.loads(b.get_attribute("data-action") or "{}")
                   for b in page.locator("#choices button[data-action]").all()]
        assert not [a for a in offered if a.get("type") == "choose" and a.get("choice") == "MC"]
        box.screenshot(path=str(SHOTS / "1828_dead_end.png"))
        assert not page.errors, page.errors
    finally:
        page.close()


def test_a_player_ends_the_game_from_the_page_after_confirming(server: Server, browser: Any) -> None:
    """Ending the game by agreement is open to every player at any moment (legal-actions offers it apart from
    the turn's moves): the page asks once more before it ends the game for everyone, and "Keep playing" takes
    the question back. A player who is not to act ends it; the game is over with its final values."""
    record = _record("1840")
    game_id, seats = _import(server, record, 60)
    acting = _acting_seat(server, game_id, seats)
    other = next(s for s in seats if s["player_id"] != acting["player_id"])
    page = _open(browser, server, game_id, other["token"])
    try:
        box = page.locator("fieldset[data-type='end-game']")
        box.wait_for(timeout=10_000)
        assert box.locator("button[data-confirm]").count() == 0
        box.get_by_role("button", name="End the game for everyone…").click()
        box = page.locator("fieldset[data-type='end-game']")
        assert box.locator("button[data-confirm]").count() == 1
        box.screenshot(path=str(SHOTS / "end_game_confirm.png"))
        box.get_by_role("button", name="Keep playing").click()
        box = page.locator("fieldset[data-type='end-game']")
        assert box.locator("button[data-confirm]").count() == 0
        version = server.api("GET", f"/games/{game_id}/state").json()["version"]
        box.get_by_role("button", name="End the game for everyone…").click()
        page.locator("fieldset[data-type='end-game'] button[data-confirm]").click()
        state = _state_after(server, game_id, version)
        assert server.api("GET", f"/games/{game_id}").json()["status"] == "finished", state.get("round")
        assert not page.errors, page.errors
    finally:
        page.close()


def test_without_javascript_the_page_is_a_read_only_view(server: Server, browser: Any) -> None:
    record = _record("1840")
    game_id, seats = _import(server, record, 150)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{server.base}/games/{game_id}/page#seat={seats[0]['token']}")
        assert page.locator("svg.map g.hex").count() > 0
        assert page.locator("table.players tbody tr").count() == len(seats)
        assert page.locator("#turn").is_hidden()
        assert page.locator("noscript").count() == 1
    finally:
        context.close()


def test_page_reloads_when_another_player_moves(server: Server, browser: Any) -> None:
    record = _record("1840")
    actions = record["actions"]
    at = _next_index(actions, "buy_shares", 20)
    game_id, seats = _import(server, record, at)
    page = _open(browser, server, game_id)  # a spectator
    try:
        version = int(page.evaluate("() => document.body.dataset.version"))
        move = {k: v for k, v in actions[at].items() if k not in ("id", "created_at", "auto_actions")}
        seat = next(s for s in seats if s["player_id"] == move["entity"])
        r = server.api("POST", f"/games/{game_id}/actions?wait=10", seat["token"],
                       headers={"Idempotency-Key": "reload-1"}, json={"action": move, "expected_version": version})
        assert r.status_code == 200, r.text
        _wait_version(page, version)
    finally:
        page.close()



def test_a_private_game_opens_with_the_seat_link_only(server: Server, browser: Any) -> None:
    record = _record("1828")
    prefix = {**record, "actions": record["actions"][:150], "status": "active"}
    prefix.pop("result", None)
    r = server.api("POST", "/games/import?visibility=private", ADMIN, json=prefix)
    assert r.status_code in (200, 201), r.text
    game_id, seats = r.json()["game"]["id"], r.json()["seats"]
    stranger = browser.new_page()
    try:
        stranger.goto(f"{server.base}/games/{game_id}")
        assert stranger.locator("svg.map").count() == 0 and stranger.locator("#signin").is_visible()
    finally:
        stranger.close()
    page = browser.new_page()
    try:
        page.goto(f"{server.base}/games/{game_id}#seat={seats[0]['token']}")
        page.wait_for_selector("svg.map g.hex", timeout=20_000)
        page.wait_for_selector("body[data-ready='1']", timeout=20_000)
        assert "#seat=" not in page.url  # the token leaves the address bar at once
        assert page.locator("#you").inner_text().startswith("You are")
    finally:
        page.close()


def test_routes_run_with_the_auto_routers_suggestion_drawn_on_the_map(server: Server, browser: Any) -> None:
    record = _record("1825")
    actions = record["actions"]
    at = _next_index(actions, "run_routes", len(actions) // 2)
    game_id, seats = _import(server, record, at)
    seat = _acting_seat(server, game_id, seats)
    offered = [a for a in server.api("GET", f"/games/{game_id}/legal-actions", seat["token"]).json()["actions"]
               if a["type"] == "run_routes"]
    assert offered
    page = _open(browser, server, game_id, seat["token"])
    try:
        chains = sum(1 for r in offered[0]["routes"] for c in r.get("connections") or [] if len(c) >= 2)
        assert page.locator("#route-overlay polyline.route").count() == chains
        page.locator("svg.map").screenshot(path=str(SHOTS / "1825_routes.png"))
        version = server.api("GET", f"/games/{game_id}/state").json()["version"]
        page.locator('fieldset[data-type="run_routes"] button').first.click()
        _state_after(server, game_id, version)
        last = server.api("GET", f"/games/{game_id}/events?after={version}").json()["events"][-1]
        assert last["data"]["action"]["type"] == "run_routes"
        assert last["data"]["action"]["routes"] == offered[0]["routes"]
        assert not page.errors
    finally:
        page.close()


def test_people_take_seats_start_a_game_and_bid_from_its_page(server: Server, browser: Any) -> None:
    made = server.api("POST", "/games", json={"title": "1840", "seats": 2, "seed": 11, "options": []})
    game_id = made.json()["id"]
    contexts = [browser.new_context(), browser.new_context()]  # two people, two browsers
    try:
        pages = []
        for name, context in zip(("Anna", "Ben"), contexts, strict=True):
            page = context.new_page()
            page.goto(f"{server.base}/games/{game_id}/page")
            page.wait_for_selector("body[data-ready='1']")
            page.fill("#join-name", name)
            page.click("#join button[type=submit]")
            page.wait_for_selector("#seat-url")
            assert re.search(rf"/games/{game_id}/page#seat=\S{{16,}}", page.inner_text("#seat-url"))
            pages.append(page)
        pages[1].click("#start")
        pages[1].wait_for_selector("svg.map g.hex", timeout=20_000)
        pages[1].wait_for_selector("body[data-ready='1']")
        state = server.api("GET", f"/games/{game_id}/state").json()
        assert state["status"] == "active"
        names = [s["name"] for s in server.api("GET", f"/games/{game_id}").json()["seats"]]
        assert names == ["Anna", "Ben"]
        assert pages[1].locator("#you").inner_text().startswith("You are Ben")
        # Anna's page saw the game start by itself; it is her bid (1840 opens with an auction of privates)
        anna = pages[0]
        anna.wait_for_selector("svg.map g.hex", timeout=30_000)
        anna.wait_for_selector("body[data-ready='1']")
        assert anna.locator("#turn-title").inner_text() == "Your turn"
        row = anna.locator('fieldset[data-type="bid"] div').first
        box = row.locator("input")
        low, step = int(box.get_attribute("min")), int(box.get_attribute("step"))
        # 1840's offer: any amount from the minimum (issue 49: not "steps of 5"), later bids raise by 5 or more
        assert step == 1 and f"any amount from {low}" in row.inner_text() and "raises of at least 5" in row.inner_text()
        box.fill(str(low + step))
        version = state["version"]
        row.locator("button").click()
        after = _state_after(server, game_id, version)
        last = server.api("GET", f"/games/{game_id}/events?after={version}").json()["events"][-1]["data"]["action"]
        assert last["type"] == "bid" and last["price"] == low + step and "min" not in last
        assert after["acting_players"] != state["acting_players"]
        # and she takes it back from the page: the bid is undone, it is her turn again
        anna.wait_for_function(f"() => Number(document.body.dataset.version) === {after['version']} "
                               "&& document.body.dataset.ready === '1'", timeout=30_000)
        anna.click('fieldset[data-type="undo"] button:text-is("Undo")')
        undone = _state_after(server, game_id, after["version"])
        assert undone["acting_players"] == state["acting_players"]
        assert undone["digest"]["players"] == state["digest"]["players"]
    finally:
        for context in contexts:
            context.close()


def test_history_shows_any_earlier_version_read_only_and_steps_through_moves(server: Server, browser: Any) -> None:
    """The history slider: the page after move N of a game is the game as it stood then (the same tiles as a
    game made of the first N moves alone), offers no moves even to a seated player, and steps back and on."""
    record = _record("1840")
    now_at, then_at = 150, 60
    game_id, seats = _import(server, record, now_at)
    then_id, _ = _import(server, record, then_at)
    then_tiles = server.api("GET", f"/games/{then_id}/state").json()["tiles"]
    now_tiles = server.api("GET", f"/games/{game_id}/state").json()["tiles"]
    assert len(then_tiles) < len(now_tiles)  # the two versions differ on the map
    seat = _acting_seat(server, game_id, seats)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        page.goto(f"{server.base}/games/{game_id}/page?at={then_at}#seat={seat['token']}")
        page.wait_for_selector("body[data-ready='1']", timeout=20_000)
        assert _counts(page)["tiles"] == len(then_tiles)
        assert f"after move {then_at} of {now_at}" in page.locator("#history-note").inner_text()
        assert page.locator("#turn").is_hidden()  # a seated player cannot move in the past
        page.screenshot(path=str(SHOTS / "1840_history.png"), full_page=False)
        page.click("#history-prev")
        page.wait_for_selector(f"body[data-history='{then_at - 1}'][data-ready='1']", timeout=20_000)
        page.click("#history-next")
        page.wait_for_selector(f"body[data-history='{then_at}'][data-ready='1']", timeout=20_000)
        page.click("#history-note a")  # back to now: the live page, the seat's moves offered again
        page.wait_for_selector("body[data-ready='1']:not([data-history])", timeout=20_000)
        assert _counts(page)["tiles"] == len(now_tiles)
        assert page.locator("#turn").is_visible()
        assert not errors, errors
    finally:
        page.close()
    bad = server.api("GET", f"/games/{game_id}/page?at={now_at + 5}", headers={"Accept": "text/html"})
    assert bad.status_code == 400 and "between 0 and" in bad.text


def test_a_seated_player_talks_to_the_table_and_the_others_read_it(server: Server, browser: Any) -> None:
    record = _record("1828")
    game_id, seats = _import(server, record, 40)
    page = _open(browser, server, game_id, seats[1]["token"])
    try:
        assert page.locator("#chat").is_visible()
        version = int(page.locator("body").get_attribute("data-version"))
        page.fill("#chat-text", "Shall we agree on the B&O? <b>not bold</b>")
        page.click("#chat button[type=submit]")
        _wait_version(page, version)
        line = page.locator("#chat-lines li").last.inner_text()
        me = page.locator("#you").inner_text().removeprefix("You are ").split(".")[0]
        assert line == f"{me}: Shall we agree on the B&O? <b>not bold</b>"  # text, never markup
        assert not page.errors, page.errors
    finally:
        page.close()
    state = server.api("GET", f"/games/{game_id}/state").json()
    assert state["version"] == version + 1  # stored with the game ...
    reader = _open(browser, server, game_id)  # ... and read by anyone who opens the page
    try:
        assert "Shall we agree on the B&O?" in reader.locator("#chat-lines").inner_text()
        assert reader.locator("#chat").is_hidden()  # no seat, no voice
    finally:
        reader.close()


@pytest.mark.parametrize("title", sorted(RECORDS))
def test_the_tile_tray_shows_every_tile_left_with_its_count(server: Server, browser: Any, title: str) -> None:
    """The tray: one drawn tile per kind in the supply, with copies left of the game's total; a kind laid
    out to its last copy is shown as used up. Counts agree with the tiles on the map."""
    record = _record(title)
    game_id, seats = _import(server, record, len(record["actions"]) // 2)
    page = _open(browser, server, game_id)
    try:
        tiles = server.api("GET", f"/games/{game_id}/state").json()["tiles"]
        on_map: dict[str, int] = {}
        for tile in tiles.values():
            name = tile.rsplit("-", 1)[0]
            on_map[name] = on_map.get(name, 0) + 1
        page.click("#tray summary")
        items = page.locator("ul.tray li")
        assert items.count() > 20
        for i in range(items.count()):
            item = items.nth(i)
            name = item.get_attribute("data-tray-tile")
            text = item.locator("span").inner_text()
            if re.fullmatch(rf"#{re.escape(name)} ∞", text):  # a kind the title does not count out
                assert "used-up" not in (item.get_attribute("class") or "")
                continue
            left, total = (int(x) for x in re.fullmatch(rf"#{re.escape(name)} (\d+) of (\d+)", text).groups())
            assert left == total - on_map.get(name, 0), (name, text)
            assert ("used-up" in (item.get_attribute("class") or "")) == (left == 0)
            assert item.locator("svg.tray-tile g.hex").count() == 1
        assert any(on_map.values())
        page.locator("#tray").screenshot(path=str(SHOTS / f"{title}_tray.png"))
        assert not page.errors, page.errors
    finally:
        page.close()


def test_a_sign_in_link_opens_the_seat_on_a_new_device_and_leaves_the_address_bar(server: Server, browser: Any) -> None:
    """The turn email's page link on a device that never saw the seat: the page knows the player at once,
    offers his moves, and the link is gone from the address bar (history, screenshots, shoulder surfers)."""
    from services import signin

    from .conftest import SIGNIN_SECRET

    record = _record("1828")
    game_id, seats = _import(server, record, 40)
    seat = _acting_seat(server, game_id, seats)
    link = signin.sign(SIGNIN_SECRET, game_id, seat["player_id"], time.time())
    context = browser.new_context()  # a new device: nothing stored
    page = context.new_page()
    try:
        page.goto(f"{server.base}/games/{game_id}/page#signin={link}")
        page.wait_for_selector("body[data-ready='1']", timeout=20_000)
        assert page.locator("#you").inner_text().startswith("You are ")
        assert page.locator("#turn-title").inner_text() == "Your turn"
        assert "signin" not in page.url and link not in page.url
        page.reload()  # kept on the device like a seat token
        page.wait_for_selector("body[data-ready='1']", timeout=20_000)
        assert page.locator("#turn-title").inner_text() == "Your turn"
    finally:
        context.close()
    bad = browser.new_context()
    page = bad.new_page()
    try:
        forged = signin.sign("not-the-servers-secret", game_id, seat["player_id"], time.time())
        page.goto(f"{server.base}/games/{game_id}/page#signin={forged}")
        page.wait_for_selector("body[data-ready='1']", timeout=20_000)
        assert "not valid" in page.locator("#you").inner_text()
        assert page.locator("#turn").is_hidden()
    finally:
        bad.close()


def test_a_players_home_lists_his_games_with_his_turns_first(server: Server, browser: Any) -> None:
    me = server.api("POST", "/players", json={"name": "Hanna"}).json()
    other = server.api("POST", "/players", json={"name": "Otto"}).json()
    games = []
    for seed, hanna_first in ((21, False), (22, True)):
        made = server.api("POST", "/games", json={"title": "1840", "seats": 2, "seed": seed, "options": []}).json()
        order = [me, other] if hanna_first else [other, me]
        seat_tokens = {}
        for person in order:
            joined = server.api("POST", f"/games/{made['id']}/join", person["token"],
                                json={"name": person["name"], "player_id": person["id"]})
            assert joined.status_code == 201, joined.text
            seat_tokens[person["id"]] = joined.json()["token"]
        assert server.api("POST", f"/games/{made['id']}/start", seat_tokens[order[0]["id"]]).status_code == 200
        games.append(made["id"])
    listed = server.api("GET", "/players/me/games", me["token"]).json()["games"]
    turns = {g["game_id"]: g["your_turn"] for g in listed}
    assert set(games) <= set(turns) and any(turns[g] for g in games) and not all(turns[g] for g in games)
    mine = [g for g in listed if g["your_turn"]]
    assert listed[: len(mine)] == mine  # his turns first
    assert server.api("GET", "/players/me/games").status_code == 401
    page = browser.new_context().new_page()
    try:
        page.goto(f"{server.base}/me#player={me['token']}")
        page.wait_for_selector("body[data-ready='1']", timeout=20_000)
        assert "player=" not in page.url
        assert page.locator("#home-who").inner_text().startswith("Signed in as Hanna")
        rows = page.locator("#home-games tbody tr")
        assert rows.count() == len(listed)
        first = rows.first
        assert int(first.get_attribute("data-game")) == mine[0]["game_id"] and "your turn" in first.inner_text()
        waiting_other = page.locator(f'#home-games tbody tr[data-game="{next(g for g in games if not turns[g])}"]')
        assert "Otto" in waiting_other.inner_text()
        page.screenshot(path=str(SHOTS / "home.png"))
        first.locator("a").click()
        page.wait_for_selector("svg.map g.hex", timeout=20_000)
    finally:
        page.context.close()


def test_the_clock_panel_shows_the_deadline_and_who_is_away(server: Server, browser: Any) -> None:
    gid, seats = _seated(server, 31, ("Vera", "Walt"))
    clock = server.api("PUT", f"/games/{gid}/clock", seats[0]["token"], json={"kind": "deadline", "per_move_hours": 48})
    assert clock.status_code == 200, clock.text
    assert server.api("POST", f"/games/{gid}/start", seats[0]["token"]).status_code == 200
    until = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() + 5 * 86400))
    away = server.api("PUT", f"/games/{gid}/clock/vacation", seats[1]["token"], json={"until": until})
    assert away.status_code == 200, away.text
    page = _open(browser, server, gid, seats[0]["token"])
    try:
        page.wait_for_selector("#clock-section:not([hidden])", timeout=20_000)
        text = page.locator("#clock-body").inner_text()
        assert "Time control: a deadline of 48 h per move" in text, text
        assert "Walt is away until" in text, text
        page.locator("#clock-section").screenshot(path=str(SHOTS / "clock_panel.png"))
        assert not page.errors, page.errors
    finally:
        page.close()


def test_an_undo_request_is_answered_from_the_page(server: Server, browser: Any) -> None:
    """An undo into another player's move waits for his consent; he sees the request on his page and
    accepts it there (docs/time-controls.md, "Undo and redo")."""
    gid, seats = _seated(server, 41, ("Ada", "Bo"))
    by = {s["player_id"]: s["token"] for s in seats}
    assert server.api("POST", f"/games/{gid}/start", seats[0]["token"]).status_code == 200

    def move() -> tuple[int, int]:
        state = server.api("GET", f"/games/{gid}/state").json()
        player = int(state["acting_players"][0])
        action = server.api("GET", f"/games/{gid}/legal-actions", by[player]).json()["actions"][0]
        reply = server.api("POST", f"/games/{gid}/actions?wait=10", by[player],
                           headers={"Idempotency-Key": f"k{state['version']}"},
                           json={"action": action, "expected_version": state["version"]})
        assert reply.json()["status"] == "applied", reply.text
        return player, int(server.api("GET", f"/games/{gid}/events").json()["events"][-1]["data"]["action"]["id"])

    first, first_id = move()
    while (other := move()[0]) == first:
        pass
    asked = server.api("POST", f"/games/{gid}/undo-requests", by[first], json={"kind": "undo", "action_id": first_id - 1})
    assert asked.status_code == 202, asked.text
    page = _open(browser, server, gid, by[other])
    try:
        page.wait_for_selector("#clock-undo", timeout=20_000)
        assert re.search(r"Ada asks to undo (back to move \d+|every move back to the start); waiting for Bo",
                         page.locator("#clock-undo").inner_text())
        page.locator("#clock-section").screenshot(path=str(SHOTS / "undo_request.png"))
        page.click('#clock-undo button[data-accept="true"]')
        # the click posts the answer and redraws: wait for the server to have it, not for the page (whose
        # load state was reached long before the click)
        deadline = time.monotonic() + 20
        while True:
            request = server.api("GET", f"/games/{gid}/clock").json()["undo_request"]
            if request is None or other in request["accepted"] or time.monotonic() > deadline:
                break
            time.sleep(0.1)
    finally:
        page.close()
    assert request is None or other in request["accepted"]  # answered: settled, or waiting only for the tick
    mine = _open(browser, server, gid, by[first])
    try:  # the requester sees his request, while it waits for the tick, but has nothing to answer
        deadline = time.monotonic() + 20
        while request is not None and not mine.locator("#clock-undo").count():
            assert time.monotonic() < deadline, "the requester's page never showed his waiting request"
            time.sleep(0.1)  # the tick may settle it meanwhile: then there is nothing left to show
            request = server.api("GET", f"/games/{gid}/clock").json()["undo_request"]
        if mine.locator("#clock-undo").count():
            assert mine.locator("#clock-undo button").count() == 0
    finally:
        mine.close()


def test_alerts_on_this_device_register_the_service_worker_and_ask_the_push_service(server: Server, browser: Any) -> None:
    """Opting in from the page: the service worker is registered at the site's root and the browser asks its
    push service for a subscription with the server's VAPID key. Headless Chromium here has no push service to
    reach, so the page must say so in words, store nothing, and offer the button again."""
    record = _record("1840")
    game_id, seats = _import(server, record, 30)
    seat = seats[0]
    key = server.api("GET", "/notifier/webpush/key").json()
    assert key["public_key"] and len(key["public_key"]) == 87
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=server.base)
    page = context.new_page()
    try:
        page.goto(f"{server.base}/games/{game_id}/page#seat={seat['token']}")
        page.wait_for_selector("#push-toggle", timeout=20_000)
        page.click("#push-toggle")
        page.wait_for_function("() => document.getElementById('push-status').textContent.trim() !== ''", timeout=30_000)
        status = page.locator("#push-status").inner_text()
        page.locator("#you").screenshot(path=str(SHOTS / "push_optin.png"))
        scope = page.evaluate("async () => (await navigator.serviceWorker.getRegistration('/')).scope")
        assert scope == f"{server.base}/"
        if "Alerts are on" in status:  # a browser that reached its push service: the device is stored
            devices = server.api("GET", "/notifier/webpush/devices", seat["token"]).json()
            assert len(devices) == 1
        else:
            assert "could not turn alerts on" in status, status
            assert server.api("GET", "/notifier/webpush/devices", seat["token"]).json() == []
        worker = server.api("GET", "/push-worker.js")
        assert worker.status_code == 200 and "showNotification" in worker.text
        assert worker.headers["Content-Type"].startswith("text/javascript")
    finally:
        context.close()


def test_the_page_shows_pending_requests_and_what_waits_for_your_answer(server: Server, browser: Any) -> None:
    """A redo request and a newcomer's claim of a seat its player left (docs/time-controls.md) are on the
    page of everyone at the table; the player they wait for is told first, with buttons to answer each."""
    gid, seats = _seated(server, 43, ("Ida", "Jon", "Kai"))
    by = {s["player_id"]: s["token"] for s in seats}
    ida, jon, kai = (s["player_id"] for s in seats)
    assert server.api("POST", f"/games/{gid}/start", by[ida]).status_code == 200

    def post(player: int, action: dict[str, Any]) -> dict[str, Any]:
        version = server.api("GET", f"/games/{gid}/state").json()["version"]
        return server.api("POST", f"/games/{gid}/actions?wait=10", by[player],
                          headers={"Idempotency-Key": f"k{version}-{player}"},
                          json={"action": action, "expected_version": version}).json()

    while True:  # play until Kai's move is the last, after someone else's
        state = server.api("GET", f"/games/{gid}/state").json()
        player = int(state["acting_players"][0])
        action = server.api("GET", f"/games/{gid}/legal-actions", by[player]).json()["actions"][0]
        assert post(player, action)["status"] == "applied"
        if player == kai and state["version"] > 0:
            break
    assert post(kai, {"type": "undo"})["status"] == "applied"  # his own: free
    redo = server.api("POST", f"/games/{gid}/undo-requests", by[ida], json={"kind": "redo"})
    assert redo.status_code == 202 and redo.json()["undo_request"]["affected"] == [kai], redo.text
    jon_seat = seats[1]["seat"]  # the seat endpoints take the seat number GET /games/{id} shows
    left = server.api("POST", f"/games/{gid}/seats/resign", by[jon])
    assert left.status_code == 200 and left.json()["open_seats"] == [jon_seat], left.text
    offer = server.api("POST", f"/games/{gid}/seats/{jon_seat}/offer", by[ida]).json()
    claim = server.api("POST", f"/games/{gid}/seats/{jon_seat}/claim",
                       json={"invitation": offer["invitation"], "name": "Lou"})
    assert claim.status_code == 202, claim.text

    page = _open(browser, server, gid, by[kai])
    try:
        page.wait_for_selector("#clock-pending", timeout=20_000)
        pending = page.locator("#clock-pending").inner_text()
        assert pending == "Waiting for your answer: Ida's redo request; Lou's claim of Jon's seat.", pending
        assert "Ida asks to redo the undone moves; waiting for Kai" in page.locator("#clock-undo").inner_text()
        assert "Lou asks to take over Jon's seat; waiting for Ida, Kai" in page.locator("#clock-claim").inner_text()
        assert "Jon left the game at move" in page.locator("#clock-body").inner_text()
        assert page.locator("#clock-undo button").count() == 2 and page.locator("#clock-claim button").count() == 2
        page.locator("#clock-section").screenshot(path=str(SHOTS / "pending_requests.png"))
        assert not page.errors, page.errors
        page.click('#clock-undo button[data-accept="true"]')
        page.wait_for_function("() => !document.querySelector('#clock-undo button')", timeout=20_000)
        page.wait_for_selector("#clock-pending", timeout=20_000)
        assert page.locator("#clock-pending").inner_text() == "Waiting for your answer: Lou's claim of Jon's seat."
    finally:
        page.close()
    # accepted by the one player it waited for: played in the request that accepted it (no tick waited for)
    assert server.api("GET", f"/games/{gid}/clock").json()["undo_request"] is None
    mine = _open(browser, server, gid, by[ida])
    try:  # the requester sees his request with nothing to answer there, and the claim that waits for him
        mine.wait_for_selector("#clock-pending", timeout=20_000)
        assert mine.locator("#clock-pending").inner_text() == "Waiting for your answer: Lou's claim of Jon's seat."
        assert mine.locator("#clock-undo button").count() == 0
    finally:
        mine.close()


END_WORDS = {"1825": "the bank ran out of money", "1828": "a bankruptcy ended it",
             "1840": "the last of the title's fixed rounds was played", "1833NE": "the bank ran out of money"}


@pytest.mark.parametrize("title", sorted(RECORDS))
def test_finished_game_page_shows_why_it_ended_the_ranking_and_no_moves(server: Server, browser: Any,
                                                                        title: str) -> None:
    """A complete record replayed into the server: the page says the game is over and why in words, ranks
    the players by final value (each with his value, in the title's money), offers no move to a seated
    player, and its history can still be stepped through."""
    record = _record(title)
    r = server.api("POST", "/games/import", ADMIN, json=record)
    assert r.status_code in (200, 201), r.text
    game_id, seats = r.json()["game"]["id"], r.json()["seats"]
    state = server.api("GET", f"/games/{game_id}/state").json()
    assert state["status"] == "finished"
    page = _open(browser, server, game_id, seats[0]["token"])
    try:
        page.screenshot(path=str(SHOTS / f"{title}_finished.png"), full_page=False)
        over = page.locator("#acting").inner_text()
        assert over == f"Game over: {END_WORDS[title]}.", over
        if "bank ran out" in over:  # the bank line agrees with the reason
            assert "bank broken" in page.locator("#status").inner_text()
        names = [p["name"] for p in record["players"]]
        rows = page.locator("#ranking li")
        assert rows.count() == len(seats)
        values = [int(rows.nth(i).get_attribute("data-value")) for i in range(rows.count())]
        assert values == sorted((int(v) for v in record["result"].values()), reverse=True)  # highest first
        texts = rows.all_inner_texts()
        best = max(int(v) for v in record["result"].values())
        assert texts[0].startswith("1. ") and texts[0].endswith("(winner)"), texts
        assert str(best) in texts[0].replace(",", "")
        for text in texts:  # every player is ranked, once, with a value
            assert re.fullmatch(r"\d\. .+ — \D?-?[\d,]+\D?( \(winner\))?", text), text
        assert sorted(t.split(" — ")[0].split(". ", 1)[1] for t in texts) == sorted(names)
        assert page.locator("#turn").is_hidden()  # no move offered, even to a seated player
        assert page.locator("#choices fieldset").count() == 0 and page.locator("#join").count() == 0
        assert server.api("GET", f"/games/{game_id}/legal-actions", seats[0]["token"]).json()["actions"] == []
        # the history is still there: one step back shows the game before its last move, read-only
        page.click("#history-prev")
        page.wait_for_selector(f"body[data-history='{state['version'] - 1}'][data-ready='1']", timeout=20_000)
        assert f"after move {state['version'] - 1} of {state['version']}" in page.locator("#history-note").inner_text()
        assert page.locator("#turn").is_hidden()
        assert not page.errors, page.errors
    finally:
        page.close()


def _claim_answered_by(server: Server, game_id: int, pid: int) -> bool:
    """Whether `pid` has accepted the open seat claim (or the claim is settled: nothing is open)."""
    claim = server.api("GET", f"/games/{game_id}/clock").json().get("seat_claim")
    return claim is None or pid in claim["accepted"]


def _session_at(record: dict[str, Any], upto: int) -> Any:
    """The engine's own replay of the position the page shows (what the page must agree with)."""
    from shared.engine import GameSession

    prefix = {**record, "actions": record["actions"][:upto]}
    prefix.pop("result", None)
    return GameSession.from_record(prefix)


@pytest.mark.parametrize("title", sorted(RECORDS))
def test_mid_game_status_names_the_order_the_trains_left_and_logs_in_names(server: Server, browser: Any,
                                                                          title: str) -> None:
    """The header names the turn order and the priority deal; the trains left in the bank are counted by
    kind, the next first; the log speaks of players by name (never "None ...")."""
    from services.gateway.web.summary import trains_left

    record = _record(title)
    at = _next_index(record["actions"], "lay_tile", len(record["actions"]) // 2)
    game_id, seats = _import(server, record, at)
    game = _session_at(record, at).game
    page = _open(browser, server, game_id, seats[0]["token"])
    try:
        page.locator("header.top").screenshot(path=str(SHOTS / f"{title}_mid_game_header.png"))
        acting = page.locator("#acting").inner_text()
        assert not re.search(r"(: |, )\d+ \(", acting), acting  # who acts by name, never a bare number
        order = page.locator("#order").inner_text()
        assert order == "order " + " → ".join(p.name for p in game.players_in_order()), order
        assert page.locator("#priority").inner_text().removeprefix("priority deal ") in order
        left = trains_left(game)
        assert left["count"] > 0
        text = page.locator("#trains-left").inner_text()
        assert text.startswith(f"Trains left in the bank: {left['count']}, next {left['kinds'][0]}"), text
        assert re.search(r"\S+ ×\d+ \(", text), text
        page.locator("#trains-left").screenshot(path=str(SHOTS / f"{title}_trains_left.png"))
        log = page.locator("section[aria-labelledby='log-h']").inner_text()
        assert "None" not in log, log
        names = [p.name for p in game.players]
        assert any(n in log for n in names) or any(c in log for c in game.corporations), log
        page.locator("section[aria-labelledby='log-h']").screenshot(path=str(SHOTS / f"{title}_log.png"))
        assert not page.errors, page.errors
    finally:
        page.close()


def test_1840_loans_are_said_in_words_beside_the_value(server: Server, browser: Any) -> None:
    """A director who borrowed (loans of 100, each 200 off at the end) has it said beside his value."""
    record = json.loads((FIXTURES / "conformance" / "generated" / "1840" / "gen1840_2p_382918.json").read_text())
    upto = 98  # the second player has borrowed 400 by here (a train bought short of cash)
    game = _session_at(record, upto).game
    borrower = next(p for p in game.players if game.title_state.loans[p.id])
    borrowed = game.title_state.loans[borrower.id]
    game_id, seats = _import(server, record, upto)
    page = _open(browser, server, game_id)
    try:
        row = page.locator("table.players tbody tr", has_text=borrower.name)
        value = row.locator("td").last.inner_text()
        assert f"{borrowed // 100} loans of 100 ({borrowed} borrowed): {borrowed * 2} off at the end" in value, value
        assert value.split("\n")[0] == str(game.rules.player_value(game, borrower))
        page.locator("table.players").screenshot(path=str(SHOTS / "1840_loans.png"))
    finally:
        page.close()


def test_a_standing_order_is_set_seen_and_cleared_from_the_page(server: Server, browser: Any) -> None:
    """A player who will be away leaves standing orders from the page, built from what legal-actions offers:
    a buy order (corporation, IPO, until he holds three shares, then pass), then a pass order for every stock
    round even if something changes; the page says his order in words, the engine holds it (the state and
    his own `/page/me`), the rest of the table never reads it, and he stops it again."""
    record = _record("1840")
    at = _next_index(record["actions"], "buy_shares", 20)
    game_id, seats = _import(server, record, at)
    acting = _acting_seat(server, game_id, seats)
    seat = next(s for s in seats if s["player_id"] != acting["player_id"])  # off turn: orders are for any time
    pid = seat["player_id"]

    def held() -> tuple[list[str], list[dict[str, Any]]]:
        state = server.api("GET", f"/games/{game_id}/state", seat["token"]).json()  # his own orders: his to read
        mine = server.api("GET", f"/games/{game_id}/page/me", seat["token"]).json()["programs"]
        return state["players"][str(pid)]["programs"], [m["order"] for m in mine]

    page = _open(browser, server, game_id, seat["token"])
    try:
        orders = page.locator('fieldset[data-type="programs"]')
        assert "You have no standing order" in orders.locator("#order-now").inner_text()
        corps = [o.get_attribute("value") for o in page.locator("#buy-corporation option").all()]
        offered = {a["corporation"] for a in server.api("GET", f"/games/{game_id}/legal-actions", seat["token"])
                   .json()["actions"] if a["type"] == "program_buy_shares"}
        assert set(corps) == offered and corps
        corp = next((c for c in corps if not c.isdigit()), corps[0])  # not one of 1840's lines (offered too)
        page.select_option("#buy-corporation", corp)
        page.select_option("#buy-from", "ipo")
        page.select_option("#buy-until", "count")
        count = page.locator("#buy-count")
        assert count.is_visible() and count.get_attribute("min") == "1" and count.get_attribute("max") is None
        count.fill("3")
        page.check("#buy-pass-after")
        version = int(page.locator("body").get_attribute("data-version"))
        page.click("#set-buy-order")
        _wait_version(page, version)
        assert held() == (["program_buy_shares"], [{
            "type": "program_buy_shares", "entity": pid, "entity_type": "player", "corporation": corp,
            "from_market": False, "auto_pass_after": True, "until_condition": 3}])
        said = page.locator("#order-now").inner_text()
        assert f"buy shares of {corp}" in said and "from the IPO, one a turn, until you hold 3 shares, then pass" in said, said
        assert page.locator("#stop-order").is_visible()
        # the form shows the order he has
        assert page.locator("#buy-corporation").input_value() == corp
        assert page.locator("#buy-until").input_value() == "count" and page.locator("#buy-count").input_value() == "3"
        assert page.locator("#buy-pass-after").is_checked()
        page.locator("#turn").screenshot(path=str(SHOTS / "1840_standing_orders.png"))

        version += 1
        page.check("#pass-unconditional")
        page.click('#order-pass button[data-indefinite="true"]')
        _wait_version(page, version)
        assert held() == (["program_share_pass"], [{"type": "program_share_pass", "entity": pid,
                                                    "entity_type": "player", "unconditional": True,
                                                    "indefinite": True}])
        assert "pass in every stock round, even if something changes" in page.locator("#order-now").inner_text()
        assert "standing order" not in page.locator("table.players").inner_text()
        assert not page.errors, page.errors
    finally:
        page.close()
    other = _open(browser, server, game_id, acting["token"])  # the rest of the table does not read it
    try:
        assert "You have no standing order" in other.locator("#order-now").inner_text()
        assert "Your standing order" not in other.locator("main").inner_text()
        assert "standing order" not in other.locator("ol.log").inner_text()
    finally:
        other.close()
    page = _open(browser, server, game_id, seat["token"])
    try:
        version = int(page.locator("body").get_attribute("data-version"))
        page.click("#stop-order")
        _wait_version(page, version)
        assert held() == ([], [])
        assert "You have no standing order" in page.locator("#order-now").inner_text()
        assert page.locator("#stop-order").count() == 0
        assert not page.errors, page.errors
    finally:
        page.close()


def test_a_newcomer_claims_an_open_seat_from_the_page_and_the_table_consents(server: Server, browser: Any) -> None:
    """The hand-over of docs/time-controls.md on the page: Jon leaves, Ida invites someone to his open seat
    from her page (a link shown once), the newcomer opens the link on his own device and claims the seat by
    name, Ida and Kai accept from their pages, and the newcomer's page is then that seat; Jon's token is
    no longer a seat."""
    gid, seats = _seated(server, 47, ("Ida", "Jon", "Kai"))
    by = {s["player_id"]: s["token"] for s in seats}
    ida, jon, kai = (s["player_id"] for s in seats)
    assert server.api("POST", f"/games/{gid}/start", by[ida]).status_code == 200
    jon_seat = seats[1]["seat"]  # the seat endpoints and the claim link take the seat number
    left = server.api("POST", f"/games/{gid}/seats/resign", by[jon])
    assert left.status_code == 200 and left.json()["open_seats"] == [jon_seat], left.text

    page = _open(browser, server, gid, by[ida])
    try:
        page.wait_for_selector(f'#clock-body p[data-open-seat="{jon_seat}"] button[data-offer]', timeout=20_000)
        page.click(f'#clock-body p[data-open-seat="{jon_seat}"] button[data-offer]')
        page.wait_for_selector("#clock-body code.claim-url", timeout=20_000)
        link = page.locator("#clock-body code.claim-url").inner_text()
        assert re.fullmatch(rf"{re.escape(server.base)}/games/{gid}/page#claim={jon_seat}:\S{{16,}}", link), link
        page.locator("#clock-section").screenshot(path=str(SHOTS / "seat_offer.png"))
        assert not page.errors, page.errors
    finally:
        page.close()

    newcomer = browser.new_context()  # his own device: no seat stored
    lou = newcomer.new_page()
    try:
        lou.goto(link)
        lou.wait_for_selector("#claim", timeout=20_000)
        assert "#claim=" not in lou.url  # the invitation leaves the address bar
        assert "take over Jon's seat" in lou.locator("#claim").inner_text()
        lou.fill("#claim-name", "Lou")
        lou.click("#claim button[type=submit]")
        lou.wait_for_function("() => document.getElementById('claim-status').textContent.includes('waits')",
                              timeout=20_000)
        lou.locator("#you").screenshot(path=str(SHOTS / "seat_claim.png"))
        lou.reload()  # before the table answers: his page says the claim waits, and is no seat yet
        lou.wait_for_selector("body[data-ready='1']", timeout=20_000)
        assert "waits for the table's answer" in lou.locator("#you").inner_text()
        assert lou.locator("#turn").is_hidden()

        for pid in (ida, kai):  # the table consents, each from his own page
            other = _open(browser, server, gid, by[pid])
            try:
                other.wait_for_selector("#clock-claim button[data-accept='true']", timeout=20_000)
                assert "Lou asks to take over Jon's seat" in other.locator("#clock-claim").inner_text()
                other.click("#clock-claim button[data-accept='true']")
                # the answer is a request the page sends: it must have arrived before this page closes
                deadline = time.monotonic() + 20
                while not _claim_answered_by(server, gid, pid) and time.monotonic() < deadline:
                    time.sleep(0.1)
                assert _claim_answered_by(server, gid, pid)
            finally:
                other.close()
        assert server.api("GET", f"/games/{gid}/clock").json().get("seat_claim") is None

        lou.reload()  # the table agreed: the same device now holds the seat
        lou.wait_for_selector("body[data-ready='1']", timeout=20_000)
        assert lou.locator("#you").inner_text().startswith("You are Lou"), lou.locator("#you").inner_text()
        assert lou.locator("#turn").is_visible()
        # the seat's name at the table is now his: the players' table and the turn order say Lou
        assert "Lou" in lou.locator("table.players").inner_text()
        assert "Jon" not in lou.locator("table.players").inner_text()
        assert lou.locator("#order").inner_text() == "order Ida → Lou → Kai"
        lou.wait_for_selector("#clock-section:not([hidden])", timeout=20_000)
        assert "Lou took over Jon's seat at move" in lou.locator("#clock-body").inner_text()
        lou.screenshot(path=str(SHOTS / "seat_claimed.png"))
    finally:
        newcomer.close()
    assert server.api("GET", f"/games/{gid}/page/me", by[jon]).status_code != 200  # the old token is gone


def test_the_log_reads_a_train_lease_as_a_lease(server: Server, browser: Any) -> None:
    """1825's lease of a train (a `special_buy`) reads in words on the page, not "makes a special purchase"."""
    record = _record("1825")
    at = next(i for i, a in enumerate(record["actions"]) if a["type"] == "special_buy")
    lease = record["actions"][at]
    game_id, _ = _import(server, record, at + 1)
    page = _open(browser, server, game_id)
    try:
        log = page.locator("section[aria-labelledby='log-h']").inner_text()
        assert f"{lease['entity']} leases a {lease['description']} train for {lease['cost']}" in log, log[:500]
        assert "special purchase" not in log
        page.locator("section[aria-labelledby='log-h'] ol.log li").first.screenshot(path=str(SHOTS / "1825_lease_log.png"))
    finally:
        page.close()


def test_a_stand_in_makes_the_absent_seats_move_from_the_page(server: Server, browser: Any) -> None:
    """The table voted `substitute` (docs/time-controls.md, "Hand-over"): the chosen player's page says it is
    his turn for the absent player and offers that seat's moves as forms; his click is the absent seat's
    move, recorded as his for the absent player, and the history says so."""
    from services.notifier.db import make_engine
    from services.play.table_log import TableLog

    gid, seats = _seated(server, 53, ("Ann", "Bob"))
    by = {s["player_id"]: s["token"] for s in seats}
    names = {s["player_id"]: n for s, n in zip(seats, ("Ann", "Bob"), strict=True)}
    assert server.api("POST", f"/games/{gid}/start", seats[0]["token"]).status_code == 200
    absent = int(server.api("GET", f"/games/{gid}/state").json()["acting_players"][0])
    stand_in = next(p for p in by if p != absent)
    log = TableLog(make_engine(server.database_url, pool_size=1))
    try:  # what the scheduler records when the table's vote is decided (tests/clock cover the vote itself)
        at = "2026-03-02T09:00:00+00:00"
        log.append(gid, len(log.read(gid)), [
            {"type": "configured", "at": at, "control": {"kind": "deadline", "per_move_hours": 24}},
            {"type": "vote_decided", "at": at, "choice": "substitute", "absent": absent, "substitute": stand_in}])
    finally:
        log.engine.dispose()
    page = _open(browser, server, gid, by[stand_in])
    try:
        page.wait_for_selector('fieldset[data-type="pass"] button', timeout=20_000)
        title = page.locator("#turn-title").inner_text()
        assert title == f"Your turn: you move for {names[absent]}", title
        assert "moves for" in page.locator("#clock-body").inner_text()
        page.screenshot(path=str(SHOTS / "stand_in_turn.png"), full_page=True)
        page.locator('fieldset[data-type="pass"] button').first.click()
        _state_after(server, gid, 0)
        page.wait_for_selector("body[data-ready='1']", timeout=20_000)
        page.wait_for_function(f"() => document.body.innerText.includes('{names[stand_in]} for {names[absent]}: ')",
                               timeout=20_000)
        page.screenshot(path=str(SHOTS / "stand_in_moved.png"), full_page=True)
        assert not page.errors, page.errors
    finally:
        page.close()
    data = server.api("GET", f"/games/{gid}/events").json()["events"][-1]["data"]
    assert data["action"]["type"] == "pass" and data["action"]["entity"] == absent
    assert data["action"]["user"] == stand_in and data["for_player"] == absent


def test_ending_the_game_is_proposed_from_the_page_and_accepted_there(server: Server, browser: Any) -> None:
    """In a new game ending it is the table's vote (docs/time-controls.md, "Proposals"): one player proposes
    it from his page, the other sees the proposal on his page, with buttons, and his acceptance ends the game
    at once, in the request that accepted it."""
    gid, seats = _seated(server, 47, ("Una", "Vic"))
    assert server.api("POST", f"/games/{gid}/start", seats[0]["token"]).status_code == 200
    una, vic = seats
    page = _open(browser, server, gid, vic["token"])
    try:
        box = page.locator("fieldset[data-type='end-game']")
        box.wait_for(timeout=10_000)
        assert "ends once Una accept" in box.inner_text()
        box.get_by_role("button", name="End the game for everyone…").click()
        page.locator("fieldset[data-type='end-game'] button[data-confirm]").click()
        page.wait_for_function("() => /Proposed/.test(document.getElementById('turn-message').textContent)",
                               timeout=10_000)
        assert not page.errors, page.errors
    finally:
        page.close()
    assert server.api("GET", f"/games/{gid}").json()["status"] == "active"  # nothing played yet
    page = _open(browser, server, gid, una["token"])
    try:
        page.wait_for_selector("#clock-proposal", timeout=20_000)
        assert "Vic proposes: to end the game now; waiting for Una" in page.locator("#clock-proposal").inner_text()
        assert "Waiting for your answer: Vic's proposal" in page.locator("#clock-pending").inner_text()
        page.locator("#clock-section").screenshot(path=str(SHOTS / "end_game_proposal.png"))
        page.click('#clock-proposal button[data-accept="true"]')
        page.wait_for_load_state("load")
        assert not page.errors, page.errors
    finally:
        page.close()
    for _ in range(100):
        if server.api("GET", f"/games/{gid}").json()["status"] == "finished":
            break
        time.sleep(0.1)
    assert server.api("GET", f"/games/{gid}").json()["status"] == "finished"

"""What a client draws from: the map view (geometry, tiles turned to their rotation, stops, tokens) and the
market view (cells, prices, markers), checked against the engine state and the board data."""

from __future__ import annotations

import json
import math
from pathlib import Path

from shared.engine import GameSession
from shared.engine.board.hexes import DIRECTIONS
from shared.engine.view import map_view, market_from_digest, market_view
from shared.engine.view.board import center, edge_point

ROOT = Path(__file__).resolve().parents[2]
RECORD_1825 = ROOT / "tests" / "fixtures" / "conformance" / "1825" / "1825_game_end_bank.json"


def _fresh(title: str, seats: int) -> GameSession:
    return GameSession.new(title, [{"id": i + 1, "name": f"P{i + 1}"} for i in range(seats)], 3, [])


def test_edge_points_face_the_neighbour_they_lead_to() -> None:
    """Edge e of a hex lies towards the neighbour across it (the DIRECTIONS of the engine's convention), on
    both layouts: a drawing built on these points joins track across hexes."""
    for layout, dirs in DIRECTIONS.items():
        for edge, (dx, dy) in dirs.items():
            ex, ey = edge_point(layout, edge)
            nx, ny = center(layout, dx, dy)
            assert math.isclose(math.atan2(ey, ex), math.atan2(ny, nx), abs_tol=1e-3), (layout, edge)
            # the neighbour's centre is exactly twice the edge midpoint away (hexes touch)
            assert math.isclose(math.hypot(nx, ny), 2 * math.hypot(ex, ey), rel_tol=1e-3)


def test_map_view_has_every_hex_of_the_board_data_with_offboard_revenues() -> None:
    session = _fresh("1828", 3)
    view = map_view(session.game)
    raw = session.game.defn.data.map
    assert view["layout"] == raw["layout"] == "pointy"
    assert len(view["hexes"]) == raw["hex_count"]
    by_id = {h["id"]: h for h in view["hexes"]}
    copper = by_id["A3"]  # "offboard=revenue:60;path=a:4,b:_0" in the data
    assert copper["color"] == "red" and copper["location"] == "Copper Country"
    assert [n["kind"] for n in copper["nodes"]] == ["offboard"] and copper["nodes"][0]["revenue"] == 60
    assert copper["paths"] == [{"a": {"edge": 4}, "b": {"node": 0}, "track": "broad"}]
    water = by_id["B6"]  # "upgrade=cost:80,terrain:water"
    assert water["upgrade_cost"] == 80 and water["terrain"] == [{"cost": 80, "terrains": ["water"]}]
    walled = by_id["C17"]
    assert walled["borders"] == [{"edge": 0, "type": "impassable"}]
    b16 = by_id["B16"]
    assert (b16["cx"], b16["cy"]) == (round(15 * math.sqrt(3) / 2, 4), 1.5)


def test_flat_layout_puts_edge_zero_at_the_bottom() -> None:
    view = map_view(_fresh("1833NE", 3).game)
    assert view["layout"] == "flat"
    assert view["edges"]["0"] == [0.0, round(math.sqrt(3) / 2, 4)]
    assert len(view["hexes"]) == 100


def test_laid_tiles_are_drawn_turned_and_tokens_sit_in_their_city() -> None:
    """After real play (a recorded 1825 game halfway), every laid tile shows its name, copy and rotation, its
    track is the catalogue tile's track turned by that rotation, and each token of the state is in a city
    slot of the hex the state names."""
    record = json.loads(RECORD_1825.read_text())
    session = GameSession.from_record(record, limit=len(record["actions"]) // 2)
    game = session.game
    view = map_view(game)
    digest = session.digest()
    laid = {h["id"]: h for h in view["hexes"] if h["tile"]}
    assert {hid: f"{h['tile']['name']}-{h['tile']['rotation']}" for hid, h in laid.items()} == digest["tiles"]
    for hid, h in laid.items():
        tile = game.board.catalogue[h["tile"]["name"]]
        rot = h["tile"]["rotation"]
        expected = sorted((p.a + rot) % 6 for p in tile.paths if p.a < 10) + \
            sorted((p.b + rot) % 6 for p in tile.paths if p.b < 10)
        drawn = sorted(p["a"]["edge"] for p in h["paths"] if "edge" in p["a"]) + \
            sorted(p["b"]["edge"] for p in h["paths"] if "edge" in p["b"])
        assert drawn == expected, hid
    tokens: dict[str, list[str]] = {}
    for h in view["hexes"]:
        for node in h["nodes"]:
            for t in node.get("tokens") or []:
                if t:
                    tokens.setdefault(t, []).append(h["id"])
    for sym, corp in digest["corporations"].items():
        assert sorted(tokens.get(sym, [])) == sorted(corp["tokens"]), sym
    assert sum(len(v) for v in tokens.values()) > 0


def test_market_view_places_each_corporation_on_its_cell() -> None:
    record = json.loads(RECORD_1825.read_text())
    session = GameSession.from_record(record, limit=200)
    game = session.game
    view = market_view(game)
    placed = {sym: corp for sym, corp in session.digest()["corporations"].items() if corp["share_coords"]}
    assert placed
    for sym, corp in placed.items():
        r, c = corp["share_coords"]
        cell = view["rows"][r][c]
        assert sym in cell["corporations"] and cell["price"] == corp["share_price"]
    assert view["positions"] == {sym: corp["share_coords"] for sym, corp in placed.items()}
    # the state endpoint builds the same view from a stored digest
    assert market_from_digest(game.market, session.digest()["corporations"])["positions"] == view["positions"]
    assert view["par_prices"] and all(any(cell and cell["price"] == p and cell["par"] for row in view["rows"]
                                          for cell in row) for p in view["par_prices"])


def _luminance(color: str) -> float:
    h = color.lstrip("#")
    h = "".join(c * 2 for c in h) if len(h) == 3 else h
    rgb = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    return sum(w * (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
               for w, c in zip((0.2126, 0.7152, 0.0722), rgb, strict=True))


def test_map_text_keeps_a_readable_contrast_on_every_hex_colour() -> None:
    """WCAG AA (4.5:1) for the names, revenues and coordinates printed on each hex colour, and for the text
    chosen on corporation colours that the data gives without a text colour."""
    from services.gateway.web.svg import FILLS, _contrast_text

    def ratio(a: str, b: str) -> float:
        la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
        return (la + 0.05) / (lb + 0.05)

    for name, (fill, text) in FILLS.items():
        assert ratio(fill, text) >= 4.5, name
    for color in ("#446CCF", "#4682B4", "#1A1A18", "#AD4382", "#ffffff", "#f6e04b", "#fff"):
        assert ratio(color, _contrast_text(color)) >= 4.5, color


def _configurations() -> list[tuple[str, list[str], int]]:
    out = []
    data = ROOT / "shared" / "engine" / "data" / "games"
    for title in ("1825", "1828", "1840", "1833NE"):
        meta = json.loads((data / title / "meta.json").read_text())
        for cfg in meta["configurations"]:
            out.append((title, list(cfg.get("optional_rules") or []), int(cfg["players_used_for_dump"])))
    return out


def test_every_configuration_of_every_title_draws() -> None:
    """Each configuration the data lists (maps, units, kits, player counts) gives a map whose track ends are
    all real edges or nodes and whose SVG has one hex group per hex and a market with every corporation
    that has a price."""
    from services.gateway.web.svg import render_map

    for title, options, players in _configurations():
        session = GameSession.new(title, [{"id": i + 1, "name": f"P{i + 1}"} for i in range(players)], 5, options)
        view = map_view(session.game)
        assert len(view["hexes"]) == session.game.defn.data.map["hex_count"], (title, options)
        for h in view["hexes"]:
            for p in h["paths"]:
                for end in (p["a"], p["b"]):
                    assert ("edge" in end and 0 <= end["edge"] <= 5) or 0 <= end["node"] < len(h["nodes"]), h["id"]
        svg = render_map(view, title)
        assert svg.count('<g class="hex"') == len(view["hexes"])
        market_view(session.game)


def test_the_log_says_each_move_in_words_with_player_names() -> None:
    from services.words.describe import describe

    names = {7: "Alice"}.get

    def said(action: dict[str, object]) -> str:
        return describe(action, lambda e: names(e, str(e)) if isinstance(e, int) else str(e))

    assert said({"type": "buy_shares", "entity": 7, "shares": ["NYC_3"], "percent": 10}) == "Alice buys 10% of NYC"
    assert said({"type": "par", "entity": 7, "corporation": "PRR", "share_price": "67,3,5"}) == "Alice starts PRR at 67"
    assert said({"type": "lay_tile", "entity": "PRR", "hex": "F8", "tile": "57-0", "rotation": 1}) == \
        "PRR lays tile 57-0 on F8 (rotation 1)"
    assert said({"type": "run_routes", "entity": "PRR", "routes": [
        {"train": "2-0", "revenue": 40, "revenue_str": "F8-G9"}, {"train": "3-0", "revenue": 50, "hexes": ["A", "B"]}]}) \
        == "PRR runs for 90 — 2-0: F8-G9 (40); 3-0: A-B (50)"
    assert said({"type": "dividend", "entity": "PRR", "kind": "payout"}) == "PRR pays a dividend"
    assert said({"type": "program_share_pass", "entity": 7}) == "Alice sets a standing order to pass in stock rounds"
    assert said({"type": "undo", "entity": 7}) == "Alice undoes the last action"
    # records name the sender of an undo or a chat line as `user`, not `entity`
    assert said({"type": "undo", "user": 7, "action_id": 12}) == "Alice undoes back to action 12"
    assert said({"type": "message", "user": 7, "message": "gg"}) == "Alice says: gg"
    assert said({"type": "message", "message": "hi"}) == "A player says: hi"
    assert said({"type": "reassign_trains", "entity": "WT", "assignments": [
        {"train": "O1-0", "corporation": "4"}, {"train": "R1-0", "corporation": "WT"}]}) == \
        "WT assigns trains: O1-0 to 4, R1-0 to WT"
    # a kind the page has no phrase for still reads, with its fields
    assert said({"type": "new_kind", "entity": "WT", "detail": 3}) == "WT: new kind (detail 3)"


def test_markers_never_leak_into_the_shared_grid() -> None:
    """The state endpoint builds a configuration's grid once and places each game's markers on copies."""
    from shared.engine.view.market import market_grid, with_markers

    grid = market_grid(_fresh("1828", 3).game.market)
    first = with_markers(grid, {"NYC": {"share_coords": [3, 4]}})
    second = with_markers(grid, {"PRR": {"share_coords": [3, 4]}})
    assert first["rows"][3][4]["corporations"] == ["NYC"] and second["rows"][3][4]["corporations"] == ["PRR"]
    assert all(not cell["corporations"] for row in grid for cell in row if cell)


def test_corporations_a_title_adds_itself_have_their_colours_in_the_view() -> None:
    """1833NE's Takeover corporations come from its tables, not the board data: the map view must still
    colour their tokens and markers."""
    session = GameSession.new("1833NE", [{"id": i, "name": f"P{i}"} for i in range(1, 5)], 1, ["takeover_game"])
    added = {c.sym for c in session.game.corporations.values()} - {
        str(raw["sym"]) for raw in session.game.defn.data.setup.get("corporations") or []}
    assert added, "the Takeover game adds corporations"
    entities = map_view(session.game)["entities"]
    assert all(entities[sym]["color"] for sym in added)


def test_rounds_are_numbered_as_players_count_them() -> None:
    """A stock round by its set ("Stock round 3"), an operating round by set and place ("Operating round
    3.2"): the engine's round_num restarts in every set, so it alone read "Operating round 1" in set 5."""
    from services.words.names import round_label

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"
    for name, wanted in (("1828/1828Games_game_end_bankrupt.json", {"Stock round 3", "Operating round 3.2",
                                                                     "Operating round 4.3"}),
                         ("1840/2player.json", {"Stock round 2", "Line round 2.2", "Company round 3"})):
        labels: set[str] = set()
        GameSession.from_record(json.loads((fixtures / name).read_text()),
                                on_action=lambda i, a, s, seen=labels: seen.add(round_label(s.game)))
        assert wanted <= labels, (name, sorted(labels)[:20])
        assert not any(label.startswith("Stock round") and "." in label for label in labels)


def test_the_bank_is_shown_for_every_title() -> None:
    """1828's and 1840's bank is unlimited by their set-up data; 1825's shows what is left as the game counts
    it (the configuration's bank less the players' cash: rules-1825.md, "Game end"), in pounds, and
    "broken" once the players hold more than it."""
    from services.gateway.web.summary import bank_text

    assert bank_text(_fresh("1828", 3).game) == "unlimited"
    assert bank_text(_fresh("1840", 3).game) == "unlimited"
    game = _fresh("1825", 3).game
    size = int(game.defn.data.setup["bank"]["cash"])
    assert bank_text(game) == f"£{size - sum(p.cash for p in game.players)}"
    game.players[0].cash += size  # more than the bank: it has broken
    assert bank_text(game) == "broken"

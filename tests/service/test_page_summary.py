"""The page's words for what a player sees in the tables and the log: limits that exist, why a value is
below a player's cash, and a title's special purchases named for what they are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from services.gateway.web.summary import players_table
from services.words.describe import describe
from shared.engine import GameSession

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"


def _session(path: str) -> tuple[GameSession, dict[str, Any]]:
    record = json.loads((FIXTURES / path).read_text())
    return GameSession.from_record(record), record


def test_1828_shows_no_certificate_limit_because_it_has_none() -> None:
    """1828's data carries 99 for every player count: the rules have no limit, so the page prints none."""
    session, _ = _session("1828/1828Games_game_end_bankrupt.json")
    assert all(row["cert_limit"] is None for row in players_table(session.game))
    session, _ = _session("1840/2player.json")
    assert {row["cert_limit"] for row in players_table(session.game)} == {18}  # 1840 2p: its table's limit


def test_1840_value_says_what_the_loans_take_off() -> None:
    session, _ = _session("1840/2player.json")
    game = session.game
    before = {row["id"]: row["value"] for row in players_table(game)}
    player = game.players[0]
    game.rules.take_loans(game, player, player.cash + 250)  # short by 250: three loans of 100
    assert game.title_state.loans[player.id] == 300  # the amount borrowed, not a count
    rows = {row["id"]: row for row in players_table(game)}
    penalty = int(game.rules.rule(game, "PLAYER_LOAN_ENDGAME_PENALTY", 200))
    assert rows[player.id]["value"] == before[player.id] + 300 - 3 * penalty
    assert rows[player.id]["value_notes"] == [f"3 loans of 100 (300 borrowed): {3 * penalty} off at the end"]
    assert rows[game.players[1].id]["value_notes"] == []


def test_a_lease_reads_as_a_lease_and_a_coal_marker_as_a_purchase() -> None:
    session, record = _session("1825/1825_game_end_bank.json")
    lease = next(a for a in record["actions"] if a["type"] == "special_buy")
    assert describe(lease, str, session.game.rules) == f"{lease['entity']} leases a {lease['description']} train for {lease['cost']}"
    session, record = _session("1828/1828Games_game_end_stock_market.json")
    coal = next(a for a in record["actions"] if a["type"] == "special_buy")
    assert describe(coal, str, session.game.rules) == f"{coal['entity']} buys Coal Marker for {coal['cost']}"


def _stock_round_moves(path: str, kind: str, count: int) -> list[tuple[dict[str, Any], Any]]:
    """The first `count` moves of `kind` made inside a stock round that goes on after them, with the game."""
    from shared.engine.core.stockround import StockRound

    record = json.loads((FIXTURES / path).read_text())
    session = GameSession.from_record(dict(record, actions=[]))
    found = []
    for action in record["actions"]:
        session.submit(action, trusted=True, keep_id=True, recorded=True)
        game = session.game
        if action["type"] == kind and isinstance(game.round, StockRound) and not game.round.done:
            found.append((action, game.trial()))
            if len(found) == count:
                break
    assert len(found) == count
    return found


def test_the_priority_deal_passes_to_the_player_after_the_last_to_act_in_a_stock_round() -> None:
    """The usual 18xx priority (1825): the next stock round starts with the player after the last one who
    did something other than pass; the page shows who that is while the round is still going."""
    from services.gateway.web.summary import priority_deal

    for action, game in _stock_round_moves("1825/1825_game_end_bank.json", "buy_shares", 3):
        order = game.player_order
        assert priority_deal(game) == order[(order.index(action["entity"]) + 1) % len(order)]


def test_1828_priority_goes_to_the_first_player_to_pass() -> None:
    """1828 orders the next stock round by the order of passing: the first to pass holds the priority."""
    from services.gateway.web.summary import priority_deal

    (first_pass, game), = _stock_round_moves("1828/1828Games_game_end_bankrupt.json", "pass", 1)
    assert priority_deal(game) == first_pass["entity"]


def test_revenue_history_follows_each_run_and_the_dividend_after_it() -> None:
    """Runs in order with what the corporation did next; an undone run is not history, and automatic runs
    (1840's tram lines and city companies run as auto actions) count like any other."""
    from services.gateway.web.earnings import chart_svg, earnings
    from shared.engine.session import final_active_flags

    for path, kinds_seen in (("1828/1828Games_game_end_bankrupt.json", {"payout", "withhold"}),
                             ("1840/2player.json", {"variable", None})):
        session, record = _session(path)
        runs = earnings(session)
        expected: dict[str, list[int]] = {}
        for action, active in zip(record["actions"], final_active_flags(record["actions"]), strict=True):
            for a in [action, *(action.get("auto_actions") or [])] if active else []:
                if a["type"] == "run_routes":
                    total = sum(r["revenue"] for r in a["routes"]) + int(a.get("extra_revenue") or 0)
                    expected.setdefault(a["entity"], []).append(total)
        ran = {sym: [r["revenue"] for r in rs if r["kind"] != "variable"] for sym, rs in runs.items()}
        assert {sym: v for sym, v in ran.items() if v} == expected
        assert sum(len(v) for v in expected.values()) > 10
        kinds = {r["kind"] for rs in runs.values() for r in rs}
        assert kinds_seen <= kinds
        sym, rs = max(runs.items(), key=lambda kv: len(kv[1]))
        svg = chart_svg(rs)
        assert svg.count("<rect") == len(rs)
        assert svg.count('class="bar kept"') == sum(r["kind"] == "withhold" for r in rs)
        assert svg.count('class="bar plain"') == sum(r["kind"] is None for r in rs)


def _presidents_agree(path: str, every: int) -> int:
    """Replays a recorded game; at every `every`-th position, and at each position inside a merger, the page's
    corporations table names the president the state (the digest `GET /games/{id}/state` serves) names.
    Returns at how many compared positions some corporation's president is not its plain `president` (the
    merger's or the line's): those are the positions a page of its own would get wrong."""
    from services.gateway.web.summary import corporations_table
    from services.words.names import name_of

    record = json.loads((FIXTURES / path).read_text())
    session = GameSession.from_record(dict(record, actions=[]))
    corrected = 0
    for i, action in enumerate(record["actions"]):
        session.submit(action, trusted=True, keep_id=True, recorded=True)
        game = session.game
        if i % every and getattr(game.round, "merger", None) is None:
            continue
        state = session.digest(action)["corporations"]
        page = {row["sym"]: row["president"] for row in corporations_table(game)}
        api = {sym: None if c["president"] is None else name_of(game, c["president"]) for sym, c in state.items()}
        assert page == api, f"{path} position {i}"
        plain = {sym: c.president if c.shares else None for sym, c in game.corporations.items() if sym in state}
        corrected += any(state[sym]["president"] != plain[sym] for sym in state)
    return corrected


def test_the_page_names_the_president_the_state_names_in_an_1828_merger_and_for_1840_lines() -> None:
    assert _presidents_agree("1828/1828Games_game_end_bankrupt.json", 40) > 0  # positions inside mergers
    assert _presidents_agree("1840/2player.json", 40) > 0  # a line is run by whoever controls its major

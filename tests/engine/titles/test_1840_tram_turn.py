"""1840 tram turns (docs/rules-1840.md, *Tram turn*): when a major's purchase step goes on after a purchase,
and that an acquisition round always ends once its last tram turn is over, whatever action ended it.

Positions come from recorded games; money is then arranged by hand to build each case of the rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from recorded_games import replayed  # tests/engine/titles: one replay-to-a-position helper

from shared.engine import GameSession

GENERATED = Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "generated" / "1840"


def session_at(name: str, index: int) -> GameSession:
    """The recorded game `name` after its first `index` actions."""
    return replayed(GENERATED / f"{name}.json", index)


def buy(game: Any, major: str, train: str, price: int, variant: str) -> None:
    game.process({"type": "buy_train", "entity": major, "train": train, "price": price, "variant": variant})


# gen1840_3p_289409 after 80 actions: company round 1's line auction is over; SJE (trams O1 and Y1... not yet:
# one O1, one line without a tram) has its tram turn; Y1 (100, variant Y2 50) and O1 (300/200/100) are on sale.
POSITION = ("gen1840_3p_289409", 80)


def test_purchase_step_goes_on_while_the_cheapest_variant_is_affordable() -> None:
    game = session_at(*POSITION).game
    sje = game.corporations["SJE"]
    assert game.round.current_entity(game) == "SJE"
    sje.cash = 180  # 80 left after a Y1: below Y1 (100) but covers the Y2 variant (50), one tram of room left
    buy(game, "SJE", "Y1-2", 100, "Y1")
    assert game.round.current_entity(game) == "SJE"
    assert sorted(game.round.open_actions(game)) == ["pass", "scrap_train"]  # it cannot buy, but may still scrap


def test_purchase_step_ends_when_no_variant_is_affordable() -> None:
    game = session_at(*POSITION).game
    game.corporations["SJE"].cash = 140  # 40 left: not even a Y2
    buy(game, "SJE", "Y1-2", 100, "Y1")
    # the purchase step is over: the reassignment (SJE has one line and two trams) follows at once
    assert game.round.current_entity(game) == "SJE"
    assert game.round.open_actions(game) == ["reassign_trains"]


def test_a_major_that_scraps_every_tram_must_buy_again() -> None:
    game = session_at(*POSITION).game
    game.corporations["SJE"].cash = 180
    buy(game, "SJE", "Y1-2", 100, "Y1")
    for tram in ("O1-0", "Y1-2"):
        game.process({"type": "scrap_train", "entity": "SJE", "train": tram})
    assert game.round.open_actions(game) == ["buy_train"]  # no pass without a tram
    director = game.player(game.corporations["SJE"].president)
    before = director.cash
    buy(game, "SJE", "Y1-3", 100, "Y1")  # 80 in the treasury, the director adds 20
    assert game.corporations["SJE"].cash == 0 and director.cash == before - 20


def test_the_acquisition_round_ends_when_a_scrap_finishes_the_last_tram_turn() -> None:
    """Issue 15: after every major had passed, a scrap left the last tram turn with nothing to decide; the
    round must end there (it used to stay open, offering a bid that changed nothing)."""
    game = session_at(*POSITION).game
    game.corporations["SJE"].cash = 100
    buy(game, "SJE", "Y1-2", 100, "Y1")  # SJE's cash is spent: its purchases end
    line = game.rules.lines_of(game, game.corporations["SJE"])[0].sym  # its line must run a tram
    game.process({"type": "reassign_trains", "entity": "SJE", "assignments": [{"train": "O1-0", "corporation": line}]})
    for train in game.depot.trains:  # nothing left on sale: a major without trams cannot be made to buy
        if train.owner is None:
            train.rusted = True
    game.process({"type": "pass", "entity": "DT K&C"})  # the last bidder passes: the bidding is over
    assert game.round.kind == "Acquisition" and game.round.current_entity(game) == "DT K&C"
    trams = [t.id for t in game.corporations["DT K&C"].trains]
    assert len(trams) == 2
    for tram in trams:
        assert game.round.kind == "Acquisition"
        game.process({"type": "scrap_train", "entity": "DT K&C", "train": tram})
    # no tram to buy, no line to reassign to: the last tram turn is over and so is the round
    assert not game.rules.lines_of(game, game.corporations["DT K&C"])
    assert game.round.kind == "Line"


def test_a_major_with_three_lines_has_no_part_in_the_acquisition_round() -> None:
    """BBG owns three lines: after SJE and GWStStB passed the bidding, only they get a tram turn, in
    order (gen1840_small_3p_320275, company round 4)."""
    game = session_at("gen1840_small_3p_320275", 204).game  # SJE and GWStStB bid; BBG (3 lines) does not
    assert len(game.rules.lines_of(game, game.corporations["BBG"])) == 3
    game.process({"type": "pass", "entity": "GWStStB"})  # the bidding is over
    assert game.round.current_entity(game) == "SJE"
    assert [m for m, _ in game.round.interrupt] == ["SJE", "GWStStB"]


def test_a_stadtbahn_rides_its_track_from_a_starting_city_the_second_on_a_tie() -> None:
    """W's two rides in company round 3 of gen1840_4p_344173: from F24 (F24-G23-G21) and from I1 (I1-I3),
    40 each; on a tie the second starting city's ride runs."""
    name = "gen1840_4p_344173"
    rec = json.loads((GENERATED / f"{name}.json").read_text())
    session = session_at(name, 253)
    action = {k: v for k, v in rec["actions"][253].items() if k != "auto_actions"}
    stored = session.submit(action, keep_id=True, recorded=False)
    runs = {a["entity"]: a["routes"] for a in stored.get("auto_actions") or [] if a["type"] == "run_routes"}
    assert [(r["hexes"], r["revenue"]) for r in runs["W"]] == [(["I1", "I3"], 40)]


def test_tram_turns_after_the_bidding_lapse_when_two_in_a_row_have_nothing_to_do() -> None:
    """Small map, 3 players, seed 4 (a game Railpost played, accepted by the reference): the tram depot is
    empty and no major holds a tram. After the bidding WT (no line) has nothing to buy or scrap, so its
    purchase step is skipped; BBG (line 11) and GWStStB (line 5) have nothing to buy either: no waiting tram
    turn has anything to do after that one look, and the round ends without their reassignments."""
    rec = json.loads((Path(__file__).parent / "data" / "rp_1840_small_3p_4_to_248.json").read_text())
    session = GameSession.new(rec["title"], rec["players"], rec["settings"]["seed"],
                              rec["settings"]["optional_rules"], rec["id"])
    for action in rec["actions"][:-1]:
        session.submit(action, trusted=True, keep_id=True, recorded=True)
    game = session.game
    assert game.round.kind == "Acquisition" and game.round.current_entity(game) == "GWStStB"
    assert all(not game.corporations[m].trains for m in ("WT", "BBG", "GWStStB"))
    session.submit(rec["actions"][-1], trusted=True, keep_id=True, recorded=True)  # the last pass
    assert game.round.kind == "Stock"
    assert not any(session.legal_actions(m) for m in ("BBG", "GWStStB"))


def test_an_empty_depot_stays_empty_and_frees_majors_from_buying() -> None:
    """rules-1840 *Scrapping, and a depot that runs empty* (Railpost's game 1840:3:8378901, base map): the
    majors scrapped and bought again until every tram was sold by the end of company round 4. Company round
    5 starts all the same (nothing is removed from the empty depot; 18xx.games fails here); nothing is on
    sale, so a major without a tram is not made to buy one, and the game runs on to its end after CR6."""
    from shared.engine.titles.g1840.state import state

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "reverse" / "1840" / "rp_1840_3p_8378901.json"
    record = json.loads(fixture.read_text())
    before = GameSession.from_record(record, limit=225).game
    assert before.round.kind == "Line" and state(before).cr_counter == 4
    assert not before.depot.upcoming()  # every tram of the game bought

    session = GameSession.from_record(record, limit=226)  # line 8's run ends the line round
    game = session.game
    assert game.round.kind == "Company" and state(game).cr_counter == 5
    assert not game.depot.upcoming()

    session = GameSession.from_record(record, limit=227)  # dividends paid: the tram stage
    game = session.game
    gw = game.corporations["GWStStB"]  # no tram, one line without one: only the (empty) reassignment
    assert game.acting() == ["GWStStB"] and not gw.trains
    assert [a["type"] for a in session.legal_actions("GWStStB")] == ["reassign_trains"]

    session = GameSession.from_record(record, limit=228)
    assert session.game.acting() == ["SJE"]
    assert sorted({a["type"] for a in session.legal_actions("SJE")}) == ["pass", "scrap_train"]  # no purchase
    session.submit(dict(record["actions"][228]))  # SJE scraps its last tram: it owes nothing, WT acts
    game = session.game
    assert not game.corporations["SJE"].trains and game.acting() == ["WT"]

    session = GameSession.from_record(record)
    assert session.finished and state(session.game).cr_counter == 6

"""1833NE's provisional tables (shared/engine/data/games/1833NE/tables.json): every value the seed does not give
is data marked `seed` or `provisional`, checked when a game is created, and a different file changes what the
engine pays and which corporations it plays with, without touching the code."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from play_1833ne import players
from test_1833ne_rules import BOSTON_LOWELL_PORTLAND, boston_to_portland, launch, run

from shared.engine import GameSession, titledata
from shared.engine.errors import DataError, IllegalAction
from shared.engine.game import definition
from shared.engine.provisional import provisional_notice, provisional_values
from shared.engine.titles.g1833ne import bonuses
from shared.engine.titles.g1833ne import tables as T
from shared.engine.titles.g1833ne.finance import buyback_price, emergency_plan, issue_price
from shared.engine.titles.g1833ne.takeover import (
    check_variable_home,
    complete_takeover,
    variable_home_options,
)

Mutate = Callable[[dict[str, Any]], None]
EXTENDED = dict(BOSTON_LOWELL_PORTLAND, extension=[0, 1])  # Boston - Lowell on a 2-train, extended to Portland


@pytest.fixture
def swap_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Mutate], None]]:
    """Point the title data at a copy of 1833NE's directory whose tables.json is the shipped one, changed."""
    shipped = titledata.DATA_DIR / "1833NE"

    def swap(mutate: Mutate) -> None:
        target = tmp_path / "games" / "1833NE"
        target.mkdir(parents=True, exist_ok=True)
        for f in shipped.iterdir():
            if f.name != T.TABLES_FILE and not (target / f.name).exists():
                (target / f.name).symlink_to(f)
        raw = json.loads((shipped / T.TABLES_FILE).read_text())
        mutate(raw)
        (target / T.TABLES_FILE).write_text(json.dumps(raw))
        monkeypatch.setattr(titledata, "DATA_DIR", tmp_path / "games")
        definition.cache_clear()

    yield swap
    definition.cache_clear()


def new(options: list[str] | None = None) -> GameSession:
    return GameSession.new("1833NE", players(4), seed=7, optional_rules=options or [])


def bonus(raw: dict[str, Any], key: str) -> dict[str, Any]:
    return next(b for b in raw["bonuses"] if b["key"] == key)


def ferry(raw: dict[str, Any], fid: str) -> dict[str, Any]:
    return next(f for f in raw["ferries"]["list"] if f["id"] == fid)


# -- the shipped file ------------------------------------------------------------------------------------------
def test_shipped_tables_mark_the_seed_values_and_list_the_provisional_ones() -> None:
    standard = {e["key"] for e in provisional_values("1833NE")}
    takeover = {e["key"] for e in provisional_values("1833NE", ["takeover_game"])}
    # the seed gives Boston-Montreal for I-IV ($150 / $200), the ferry price and that ferries go in phase IV
    assert not {"bonus.boston-montreal.I", "bonus.boston-montreal.IV", "ferry.price", "ferry.phases"} & takeover
    assert {"bonus.boston-montreal.V", "bonus.boston-portland.I", "ferry.F5", "ferry.new_bonus",
            "ferry.last_bonus", "bank.set_aside"} <= standard
    # the Takeover game's corporations and its 6/9 rule are provisional only where that game is played
    assert takeover - standard == {"corporation.NYNH", "corporation.B&M", "corporation.MEC", "corporation.CONN",
                                   "corporation.P&W", "takeover.six_nine_cards_kept"}
    assert all(e["description"] for e in provisional_values("1833NE", ["takeover_game"]))
    assert provisional_values("1840") == [] and provisional_values("1828") == []
    meta = json.loads((titledata.DATA_DIR / "1833NE" / "meta.json").read_text())
    assert meta["provisional"]["tables_file"] == T.TABLES_FILE
    assert provisional_notice("1833NE") == meta["provisional"]["notice"] and "provisional" in meta["provisional"]["notice"]
    assert provisional_notice("1840") is None


def test_a_file_with_every_value_confirmed_has_no_notice(swap_tables: Callable[[Mutate], None]) -> None:
    def confirm(raw: Any) -> None:
        if isinstance(raw, dict):
            if "source" in raw:
                raw["source"] = "seed"
            for v in raw.values():
                confirm(v)
        elif isinstance(raw, list):
            for v in raw:
                confirm(v)

    swap_tables(confirm)
    assert provisional_values("1833NE", ["takeover_game"]) == [] and provisional_notice("1833NE") is None


def test_shipped_bonus_and_new_ferry_bonus_are_paid() -> None:
    s = new()
    g = s.game
    launch(s, 1, "B&L", 100)
    boston_to_portland(s)
    # Boston ($30) - Lowell ($20) paid by the board; extended to Portland: the Boston-Portland bonus, $50 in I
    assert run(s, "B&L", [EXTENDED]) == (50, 50)
    bonuses.buy_ferry(g, g.corporations["B&L"], {"description": "F5"})
    # F5 reaches Portland: $30, +$20 while it is the newest ferry
    assert run(s, "B&L", [EXTENDED]) == (50, 50 + 30 + 20)
    bonuses.buy_ferry(g, g.corporations["B&L"], {"description": "F1"})
    assert run(s, "B&L", [EXTENDED]) == (50, 50 + 30)  # the "New" bonus moved on to F1


# -- a different file ------------------------------------------------------------------------------------------
def rulebook(raw: dict[str, Any]) -> None:
    """What a corrected file might say: other bonus and ferry values, other corporations."""
    bonus(raw, "boston-portland")["value"]["I"] = 77
    raw["ferries"]["price"]["value"] = 25
    raw["ferries"]["new_bonus"]["value"] = 7
    raw["ferries"]["last_bonus"]["value"] = 11
    ferry(raw, "F5")["value"] = 45
    raw["takeover"]["corporations"] = [
        {"sym": "XA", "name": "Xanadu Air Line", "color": "#123456", "text_color": "white", "tokens": 3,
         "homes": ["C26"], "source": "seed"},
        {"sym": "XB", "name": "Xenia & Boston", "color": "#654321", "text_color": "black", "tokens": 2,
         "homes": None, "source": "provisional"},
    ]
    raw["takeover"]["six_nine_cards_kept"]["value"] = 4


def test_a_different_file_changes_the_bonus_and_ferry_values(swap_tables: Callable[[Mutate], None]) -> None:
    swap_tables(rulebook)
    s = new()
    g = s.game
    launch(s, 1, "B&L", 100)
    boston_to_portland(s)
    bl = g.corporations["B&L"]
    assert run(s, "B&L", [EXTENDED]) == (50, 77)
    bonuses.buy_ferry(g, bl, {"description": "F5"})
    assert bl.cash == 200 - 25
    assert run(s, "B&L", [EXTENDED]) == (50, 77 + 45 + 7)
    with pytest.raises(IllegalAction, match="costs 25"):
        bonuses.buy_ferry(g, bl, {"description": "F1", "cost": 40})
    for fid in ("F1", "F2", "F3", "F4"):
        bonuses.buy_ferry(g, bl, {"description": fid})
    g.title_state.ferry_order.remove("F5")
    g.title_state.ferry_order.append("F5")  # F5 bought last of all: it carries the "Last" bonus
    assert run(s, "B&L", [EXTENDED]) == (50, 77 + 45 + 11)
    assert {e["key"] for e in provisional_values("1833NE")} >= {"bonus.boston-portland.I", "ferry.F5"}


def test_the_extension_rule_reads_the_file_too(swap_tables: Callable[[Mutate], None]) -> None:
    """A run may be extended only to collect a bonus: with Boston-Portland worth $0 in I, it is refused."""
    swap_tables(lambda raw: bonus(raw, "boston-portland")["value"].update(I=0))
    s = new()
    launch(s, 1, "B&L", 100)
    boston_to_portland(s)
    with pytest.raises(IllegalAction, match="collects no bonus"):
        run(s, "B&L", [EXTENDED])


def test_a_different_file_changes_the_takeover_corporations(swap_tables: Callable[[Mutate], None]) -> None:
    swap_tables(rulebook)
    s = new(["takeover_game"])
    g = s.game
    assert not {"NYNH", "B&M", "MEC", "CONN", "P&W"} & set(g.corporations)
    xa, xb = g.corporations["XA"], g.corporations["XB"]
    assert (xa.name, xa.token_prices, xb.token_prices) == ("Xanadu Air Line", [0, 80, 80], [0, 80])
    assert g.rules.entity_colors(g) == {"XA": {"color": "#123456", "text_color": "white"},
                                        "XB": {"color": "#654321", "text_color": "black"}}
    # 9 standard + 2: the certificate limit is read for 11 corporations in play
    assert len(g.corporations) == 11
    # XA may start only in New Haven (C26); XB anywhere free
    assert {g.board.city_hex(o["city"]) for o in variable_home_options(g, xa, 100)} == {"C26"}
    assert len({g.board.city_hex(o["city"]) for o in variable_home_options(g, xb, 100)}) > 5
    with pytest.raises(IllegalAction, match="starts on C26"):
        check_variable_home(g, xa, 100, {"city": g.board.city_id("E26", 0), "slot": 0})
    assert "corporation.XA" not in {e["key"] for e in provisional_values("1833NE", ["takeover_game"])}
    assert "corporation.XB" in {e["key"] for e in provisional_values("1833NE", ["takeover_game"])}


def test_a_different_file_changes_how_many_six_nine_cards_takeovers_leave(
        swap_tables: Callable[[Mutate], None]) -> None:
    swap_tables(rulebook)  # takeovers remove a 6/9 card while more than 4 remain
    s = new(["takeover_game"])
    g = s.game
    for pid, corp, price in ((1, "CV", 100), (2, "FRR", 50), (3, "HR", 50)):
        launch(s, pid, corp, price)
    cv = g.corporations["CV"]
    g.pay(None, cv, 2000)

    def cards() -> int:
        return sum(1 for t in g.depot.upcoming() if t.name == "6/9")

    assert cards() == 5
    complete_takeover(g, cv, g.corporations["FRR"])
    assert cards() == 4
    complete_takeover(g, cv, g.corporations["HR"])
    assert cards() == 4


def test_the_bank_counts_as_empty_when_only_the_bills_set_aside_are_left(
        swap_tables: Callable[[Mutate], None]) -> None:
    s = new()
    g = s.game
    g.bank_cash = 1
    g.rules.check_game_end(g)
    assert g.end_trigger is None  # shipped: nothing set aside, the bank must run out
    swap_tables(lambda raw: raw["bank"]["set_aside"].update(value=3000))
    s = new()
    g = s.game
    g.bank_cash = 3001
    g.rules.check_game_end(g)
    assert g.end_trigger is None
    g.bank_cash = 3000
    g.rules.check_game_end(g)
    assert g.end_trigger == ("bank", "full_set") and g.bank_broken


def test_a_different_file_changes_issue_buy_back_and_forced_issue_prices(
        swap_tables: Callable[[Mutate], None]) -> None:
    swap_tables(lambda raw: [raw["finance"][k].update(value=2) for k in raw["finance"]])
    s = new()
    g = s.game
    launch(s, 1, "CV", 100)
    cv = g.corporations["CV"]
    cv.give(cv.shares[1], 2)
    cv.give(cv.shares[2], 3)
    # market ... 80, 90, [100], 112, 124 ...: two spaces either way
    assert (issue_price(g, cv), buyback_price(g, cv)) == (80, 124)
    t = new()
    g = t.game
    launch(t, 1, "CV", 60)
    cv = g.corporations["CV"]
    cv.give(cv.shares[1], 2)
    cv.give(cv.shares[2], 3)
    g.pay(cv, None, cv.cash - 10)
    # $65 short; each forced issue drops a space and fetches the price two below the new one:
    # 60 -> 50 ($30), -> 40 ($20), -> 30 ($10), -> 20 ($0); the president pays the last $5
    plan = emergency_plan(g, cv, 75)
    assert plan is not None and (plan.issues, plan.issue_proceeds, plan.president_cash) == (4, 60, 5)


# -- a bad file is refused when the game is created, naming the entry -------------------------------------------
BAD: list[tuple[str, Mutate, str]] = [
    ("source", lambda r: bonus(r, "boston-portland").update(source="guess"),
     r"bonus 'boston-portland'.*source must be one of seed, provisional"),
    ("phase", lambda r: bonus(r, "boston-portland")["value"].pop("V"), r"bonus 'boston-portland': value must give"),
    ("bonus hex", lambda r: bonus(r, "montreal-portland").update(b=["Z99"]),
     r"bonus 'montreal-portland': hex Z99 is not on the map"),
    ("bonus value", lambda r: bonus(r, "boston-new-york")["value"].update(V="lots"),
     r"bonus 'boston-new-york'.value.V: must be an integer"),
    ("ferry hex", lambda r: ferry(r, "F5").update(hex="Z99"), r"ferry 'F5': hex Z99 is not on the map"),
    ("ferry town", lambda r: ferry(r, "F4").update(hex="A6"), r"ferry 'F4': hex A6 has no town or city"),
    ("ferry twice", lambda r: ferry(r, "F2").update(id="F1"), r"ferries.list: 'F1' appears twice"),
    ("new bonus", lambda r: r["ferries"]["new_bonus"].pop("source"), r"ferries.new_bonus: lacks source"),
    ("corp clash", lambda r: r["takeover"]["corporations"][0].update(sym="CV"),
     r"takeover corporation 'CV': the symbol of a standard corporation"),
    ("corp tokens", lambda r: r["takeover"]["corporations"][1].update(tokens=0),
     r"takeover corporation 'B&M'.tokens: must be an integer of at least 1"),
    ("corp home", lambda r: r["takeover"]["corporations"][2].update(homes=["A6"]),
     r"takeover corporation 'MEC': home A6 has no city"),
    ("format", lambda r: r.update(format=2), r"format: this engine reads format 1"),
    ("issue at the price", lambda r: r["finance"]["issue_spaces_below"].update(value=0),
     r"finance.issue_spaces_below.value: must be an integer of at least 1"),
    ("bills", lambda r: r["bank"]["set_aside"].update(value=1500), r"bank.set_aside: must be a number of \$1,000"),
    ("whole bank", lambda r: r["bank"]["set_aside"].update(value=10000),
     r"bank.set_aside: 10000 is not less than the bank's 10000"),
    ("reading source", lambda r: r["readings"][1].update(source="maybe"),
     r"readings\[1\]: source must be one of seed, provisional"),
    ("reading twice", lambda r: r["readings"][1].update(key="phase_iv_reservations"),
     r"readings: 'phase_iv_reservations' appears twice"),
]


@pytest.mark.parametrize(("mutate", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_tables_file_is_a_data_error_naming_the_entry(
        swap_tables: Callable[[Mutate], None], mutate: Mutate, message: str) -> None:
    swap_tables(mutate)
    with pytest.raises(DataError, match=message):
        new(["takeover_game"])


def test_the_provisional_readings_are_listed_and_a_confirmed_one_is_not(swap_tables: Callable[[Mutate], None]) -> None:
    """The readings the engine applies where the seed is open (issue 45: which reservations lapse in phase IV,
    P4's A6-Boston bonus) are shown as provisional with the tables' values, until the rulebook confirms them."""
    listed = {e["key"]: e["description"] for e in provisional_values("1833NE")}
    assert {"reading.phase_iv_reservations", "reading.p4_a6_boston_bonus", "bank.set_aside"} <= set(listed)
    assert "Worcester" in listed["reading.phase_iv_reservations"] and "A6" in listed["reading.p4_a6_boston_bonus"]

    def confirm(raw: Any) -> None:
        raw["readings"][0]["source"] = "seed"

    swap_tables(confirm)
    keys = {e["key"] for e in provisional_values("1833NE")}
    assert "reading.phase_iv_reservations" not in keys and "reading.p4_a6_boston_bonus" in keys

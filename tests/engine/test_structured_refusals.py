"""Refusals are structured (rule, reason, valid values as fields) so that no caller parses their text; the
sentence a person reads stays what it was."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "titles"))
from test_1828_fidelity import recorded  # noqa: E402  (a session replayed up to an action of a public game)

from shared.engine import EngineError, GameSession, IllegalAction, MalformedAction
from shared.engine.titledata import TITLE_DIRS, title_directory
from shared.engine.titles import rules_for
from shared.engine.titles.catalogue import SetupRefused, check_setup


@pytest.mark.parametrize(("title", "options", "allowed"), [
    ("1825", ["unit_1"], ["par", "buy_company", "pass"]), ("1828", [], ["bid", "pass"]),
    ("1833NE", [], ["par", "buy_company", "pass"]), ("1840", [], ["bid", "pass"]),
])
def test_an_action_not_allowed_now_names_what_is_as_a_field(title: str, options: list[str],
                                                            allowed: list[str]) -> None:
    session = GameSession.new(title, [{"id": i, "name": str(i)} for i in (1, 2, 3)], 1, options)
    acting = session.acting_players()[0]
    with pytest.raises(IllegalAction) as refused:
        session.submit({"type": "run_routes", "entity": acting, "entity_type": "player", "routes": []})
    err = refused.value
    assert (err.rule, err.reason, err.valid) == ("wrong_action_now", f"{acting} cannot run_routes now", allowed)
    assert err.message.startswith(f"{err.reason}; allowed") and ", ".join(allowed) in err.message
    assert err.to_dict()["valid"] == allowed


def test_unknown_action_types_and_titles_list_the_valid_ones() -> None:
    session = GameSession.new("1840", [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}], 1)
    with pytest.raises(MalformedAction) as refused:
        session.submit({"type": "teleport", "entity": 1, "entity_type": "player"})
    assert refused.value.rule == "action_type" and "pass" in refused.value.valid
    assert refused.value.message == "unknown action type 'teleport'"
    with pytest.raises(EngineError) as unknown:
        rules_for("18XX")
    assert unknown.value.valid and "1840" in unknown.value.valid and unknown.value.reason == "unknown title '18XX'"
    with pytest.raises(EngineError) as no_data:
        title_directory("18XX")
    assert set(no_data.value.valid) == set(TITLE_DIRS)


def test_title_names_are_read_from_the_board_data() -> None:
    """Every data directory answers to its own name and to its meta.json's title (1828.Games)."""
    assert TITLE_DIRS["1828.Games"] == TITLE_DIRS["1828"] == "1828"
    assert {"1825", "1840", "1833NE"} <= set(TITLE_DIRS)


@pytest.mark.parametrize(("title", "options", "players", "rule", "valid"), [
    ("1825", ["unit_2"], 5, "option_player_count", {"unit_2": [2, 3, 4]}),
    ("1825", ["unit_1", "unit_2"], 3, "exclusive_options", None),
    ("1840", ["bogus"], 3, "unknown_option", ["three_player_small"]),
    ("1840", [], 7, "player_count", {"min": 2, "max": 6}),
    ("18XX", [], 3, "unknown_title", None),
])
def test_the_catalogue_refuses_a_set_up_with_its_fields(title: str, options: list[str], players: int, rule: str,
                                                       valid: object) -> None:
    with pytest.raises(SetupRefused) as refused:
        check_setup(title, options, players)
    assert refused.value.rule == rule and refused.value.reason
    if valid is not None:
        assert refused.value.valid == valid


def test_the_catalogue_accepts_what_a_title_plays_and_knows_aliases() -> None:
    assert check_setup("1825", ["unit_2"], 4).title == "1825"
    assert check_setup("1828", [], 4).title == "1828.Games"
    assert check_setup("1825", ["unit_2"], 5, option_players=False).title == "1825"  # an import's reading


@pytest.mark.parametrize(("name", "upto", "entity", "city"), [
    ("1825/1825_game_end_bank", 42, "LNWR", "S13-0-2"), ("1840/2player", 42, "4", "57-0-0"),
    ("1828/1828Games_game_end_stock_market", 133, "NW", "57-0-0"),
])
def test_a_station_naming_a_slot_the_city_lacks_is_refused(name: str, upto: int, entity: str, city: str) -> None:
    """A city's slots are interchangeable, so the engine picks the slot a station takes; but a move naming a
    slot the city does not have (negative, or past its last) names no move and is refused, nothing changed."""
    session = recorded(name, upto)
    offer = next(o for o in session.game.legal_actions(entity) if o["type"] == "place_token" and o["city"] == city)
    before = session.digest()
    for slot in (-1, -5, 5):
        move = {k: v for k, v in offer.items() if k not in ("min", "max", "step")} | {"slot": slot}
        with pytest.raises(IllegalAction) as refused:
            session.submit(move)
        assert refused.value.rule == "token_slot" and f"no slot {slot}" in refused.value.reason
    assert session.digest() == before
    assert session.game.accepts({k: v for k, v in offer.items() if k not in ("min", "max", "step")})


def test_a_removal_naming_a_slot_the_city_lacks_is_refused() -> None:
    """1840's removal of a Stadtbahn token names the slot it empties; slot -1 once emptied the city's last
    slot (a Python index from the end) and -5 failed inside the engine."""
    session = recorded("1840/2player", 28)
    offer = next(o for o in session.game.legal_actions("4") if o["type"] == "remove_token")
    before = session.digest()
    for slot in (-1, -5, 9):
        with pytest.raises(IllegalAction) as refused:
            session.submit({k: v for k, v in offer.items() if k not in ("min", "max", "step")} | {"slot": slot})
        assert refused.value.rule == "remove_token"
    assert session.digest() == before


@pytest.mark.parametrize(("name", "upto"), [
    ("1828/1828Games_game_end_stock_market", 140), ("1840/2player", 49), ("1825/1825_game_end_bank", 98),
])
def test_a_run_stating_extra_revenue_or_a_subsidy_is_refused(name: str, upto: int) -> None:
    """A run states its routes and the engine works out what they earn; the reference adds a stated
    `extra_revenue` to the revenue as it comes, so a client could pay itself more. A run stating an extra or
    a subsidy other than 0 is refused, nothing changed; the same run stating 0 is taken."""
    session = recorded(name, upto)
    acting = session.game.acting()[0]
    offer = next(o for o in session.game.legal_actions(acting) if o["type"] == "run_routes")
    run = {k: v for k, v in offer.items() if k not in ("min", "max", "step")}
    before = session.digest()
    for field, stated in (("extra_revenue", 5), ("extra_revenue", -1), ("subsidy", 10)):
        with pytest.raises(IllegalAction) as refused:
            session.submit(run | {field: stated})
        assert refused.value.rule == "route_revenue" and field.replace("_", " ") in refused.value.reason
    assert session.digest() == before
    assert session.game.accepts(run | {"extra_revenue": 0, "subsidy": 0})

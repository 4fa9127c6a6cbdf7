"""Refusals are structured (rule, reason, valid values as fields) so that no caller parses their text; the
sentence a person reads stays what it was."""

from __future__ import annotations

import pytest

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

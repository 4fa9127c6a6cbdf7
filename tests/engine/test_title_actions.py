"""A title's own action types live in its package (`TitleRules.title_actions`), the shared ones in
`shared/engine/actions.py`: a new title adds a move without editing shared code, a game takes the shared
types and its own title's, and the gateway's field check knows every registered title's."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

import pytest

import shared.engine
from shared.engine import Game, MalformedAction
from shared.engine.actions import GAME_ACTIONS, TABLE_ACTIONS, action_fields, action_types, unknown_fields
from shared.engine.core.rounds import Round, Step
from shared.engine.legal import legal_actions
from shared.engine.titledata import TITLE_DIRS
from shared.engine.titles import REGISTRY, playable_titles, registered_actions, title_actions
from shared.engine.titles.g1825 import Rules1825

PLAYERS = [{"id": i, "name": name} for i, name in enumerate(("Ann", "Bob", "Cy"), start=1)]


class RaiseFlag(Step):
    """The test title's own move: the first player raises a flag of a colour before the stock round."""

    handlers = {"raise_flag": "raise_flag"}
    offers = {"raise_flag": "offer_flag"}

    def __init__(self) -> None:
        super().__init__()
        self.flag: str | None = None

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        return [] if self.flag is not None else ["raise_flag"]

    def offer_flag(self, game: Game, round_: Round, entity: Any) -> list[dict[str, Any]]:
        return [{"flag": "green"}]

    def raise_flag(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        self.flag = str(action["flag"])
        self.passed = True


class RulesWithFlags(Rules1825):
    """1825 with one move of its own, declared here and nowhere else."""

    title_actions = {"raise_flag": ("flag",)}

    def first_round(self, game: Game) -> Round:
        round_ = super().first_round(game)
        round_.steps.insert(0, RaiseFlag())
        return round_


@pytest.fixture
def flags_title(monkeypatch: pytest.MonkeyPatch) -> str:
    """The test title, registered for this test only (its board is 1825's)."""
    monkeypatch.setitem(REGISTRY, "1825.Flags", (__name__, "RulesWithFlags"))
    monkeypatch.setitem(TITLE_DIRS, "1825.Flags", TITLE_DIRS["1825"])
    return "1825.Flags"


def test_a_title_registered_in_a_test_adds_a_type_and_its_field(flags_title: str) -> None:
    assert "raise_flag" not in GAME_ACTIONS  # the shared declaration does not know it
    assert "raise_flag" in action_types(title_actions(flags_title))
    assert "raise_flag" not in action_types(title_actions("1825"))
    assert "raise_flag" in registered_actions()  # every registered title's, as the gateway sees them
    game = Game.new(flags_title, PLAYERS, 7, [])
    first = game.round.current_entity(game)
    assert [o["type"] for o in legal_actions(game, first)] == ["raise_flag"]  # offered, so playable
    game.process({"type": "raise_flag", "entity": first, "entity_type": "player", "flag": "blue"})
    step = game.round.steps[0]
    assert isinstance(step, RaiseFlag) and step.flag == "blue"
    # the gateway's check names a field the type does not have, and takes the one it has
    flag = {"type": "raise_flag", "entity": 1, "flag": "red"}
    assert unknown_fields({**flag, "colour": "red"}, registered_actions()) == ["colour"]
    assert unknown_fields(flag, registered_actions()) == []
    assert "flag" in action_fields(title_actions(flags_title))["raise_flag"]


def test_the_test_title_is_gone_after_its_test() -> None:
    assert "1825.Flags" not in playable_titles() and "raise_flag" not in registered_actions()


def test_a_type_of_another_title_is_refused_with_the_valid_ones(flags_title: str) -> None:
    for title, foreign in ((flags_title, "swap_train"), ("1825", "raise_flag"), ("1825", "scrap_train")):
        game = Game.new(title, PLAYERS, 7, [])
        first = game.round.current_entity(game)
        with pytest.raises(MalformedAction) as refused:
            game.process({"type": foreign, "entity": first, "entity_type": "player", "train": "2-0"})
        assert refused.value.rule == "action_type"
        assert refused.value.valid == sorted(action_types(title_actions(title)))
        assert foreign not in refused.value.valid and "lay_tile" in refused.value.valid
    # the title that owns the type knows it: refused there only because the auction is on
    game = Game.new("1828", [*PLAYERS, {"id": 4, "name": "Di"}], 7, [])
    first = game.round.current_entity(game)
    with pytest.raises(shared.engine.IllegalAction) as not_now:
        game.process({"type": "swap_train", "entity": first, "entity_type": "player", "train": "2-0"})
    assert not_now.value.rule == "wrong_action_now"


def handled_types() -> dict[str, set[str]]:
    """Each action type a step or round handles -> where: "shared" (the core) or the title package's name."""
    where: dict[str, set[str]] = {}
    for info in pkgutil.walk_packages(shared.engine.__path__, "shared.engine."):
        module = importlib.import_module(info.name)
        parts = module.__name__.split(".")
        home = parts[3] if parts[2] == "titles" and len(parts) > 4 else "shared"
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and isinstance(getattr(cls, "handlers", None), dict):
                for kind in cls.handlers:
                    where.setdefault(kind, set()).add(home)
    return where


def test_every_handled_type_is_declared_where_it_belongs() -> None:
    """A type a title's step handles is one its game takes; a type only one title handles is that title's
    (declared in its package, not shared), and no title redeclares a shared or table type."""
    package_of = {title: REGISTRY[title][0].lstrip(".") for title in playable_titles()}
    where = handled_types()
    for title, package in package_of.items():
        own = title_actions(title)
        assert not set(own) & (set(GAME_ACTIONS) | set(TABLE_ACTIONS)), title
        for kind, homes in where.items():
            if package in homes:
                assert kind in action_types(own), f"{title} handles {kind!r} but does not declare it"
    for kind in GAME_ACTIONS:
        homes = where.get(kind, set())
        if homes:  # the game's own (end_game, standing orders) are taken by `Game.process` itself
            assert "shared" in homes or len(homes) > 1, f"{kind!r} is handled by {homes} alone: declare it there"

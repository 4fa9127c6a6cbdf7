"""The contract between the core and a title's rules (`TitleRules`): hooks that go together are overridden
together, a rule the data states is read from the data, not restated in a title, and a per-action rule
lives in its step (a title subclasses the step), not among the hooks."""

from __future__ import annotations

import pytest

from shared.engine.core.trains import BuyTrain
from shared.engine.titles import REGISTRY, rules_for
from shared.engine.titles.base import TitleRules

TITLES = sorted({t for t in REGISTRY if t != "1828.Games"})


@pytest.mark.parametrize("title", TITLES)
def test_a_title_that_changes_the_train_limit_says_whether_it_is_uniform(title: str) -> None:
    """The core rules out a crowded corporation by counting cards when `uniform_train_limit` holds: a title
    whose `train_limit` is its own must answer that hook itself, or the shortcut would use the wrong limit."""
    cls = type(rules_for(title))
    if cls.train_limit is not TitleRules.train_limit:
        assert cls.uniform_train_limit is not TitleRules.uniform_train_limit, title


@pytest.mark.parametrize("title", TITLES)
def test_the_market_share_limit_comes_from_the_title_data(title: str) -> None:
    from shared.engine.session import GameSession

    players = [{"id": i, "name": f"p{i}"} for i in range(1, 4)]
    session = GameSession.new(title, players, seed=1)
    game = session.game
    assert type(game.rules).market_share_limit is TitleRules.market_share_limit
    assert game.rules.market_share_limit(game) == game.defn.data.rule("MARKET_SHARE_LIMIT", None)
    assert {"1825": 100, "1828": 80, "1840": 100, "1833NE": 50}[title] == game.rules.market_share_limit(game)


# the train step's own methods: a title that buys trains differently overrides them in its subclass of the step
TRAIN_STEP_METHODS = ("buy_train_actions", "other_trains", "may_buy_from", "min_train_price_from_corporation",
                      "check_train_from_corporation", "check_train_price_multiple", "after_buy_train")


@pytest.mark.parametrize("title", TITLES)
def test_how_a_train_is_bought_is_the_train_steps_not_the_rules(title: str) -> None:
    """No title's rules object answers for a train purchase: the step does, and a title overrides the step."""
    cls = type(rules_for(title))
    assert all(callable(getattr(BuyTrain, name)) for name in TRAIN_STEP_METHODS)
    assert [name for name in (*TRAIN_STEP_METHODS, "skip_buy_train", "receivership_blocks_other_trains")
            if hasattr(cls, name)] == [], title


@pytest.mark.parametrize("title", TITLES)
def test_the_least_price_between_corporations_comes_from_the_title_data(title: str) -> None:
    from shared.engine.session import GameSession

    players = [{"id": i, "name": f"p{i}"} for i in range(1, 4)]
    game = GameSession.new(title, players, seed=1).game
    low = BuyTrain().min_train_price_from_corporation(game)
    assert low == game.defn.data.rule("TRAIN_PRICE_MIN", 1) == {"1825": 10, "1828": 1, "1840": 1, "1833NE": 1}[title]


@pytest.mark.parametrize(("title", "step"), [("1825", "BuyTrain1825"), ("1828", "BuyTrain1828"),
                                             ("1833NE", "TrainStep")])
def test_each_title_buys_trains_with_its_own_train_step(title: str, step: str) -> None:
    """The operating round a title builds holds its subclass of the train step, the one home of the title's
    purchase rules."""
    from shared.engine.session import GameSession

    players = [{"id": i, "name": f"p{i}"} for i in range(1, 4)]
    game = GameSession.new(title, players, seed=1).game
    round_ = game.rules.operating_round(game, 1)
    found = [type(s).__name__ for s in round_.steps if isinstance(s, BuyTrain)]
    assert found == [step], title

"""The contract between the core and a title's rules (`TitleRules`): hooks that go together are overridden
together, and a rule the data states is read from the data, not restated in a title."""

from __future__ import annotations

import pytest

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

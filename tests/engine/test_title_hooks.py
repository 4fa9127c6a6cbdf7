"""The contract between the core and a title's rules (`TitleRules`): hooks that go together are overridden
together, a rule the data states is read from the data, not restated in a title, and a per-action rule has
one home, the step that handles the action (a title changes it by subclassing the step)."""

from __future__ import annotations

import pytest

from shared.engine.core.rounds import Step
from shared.engine.core.stock import BuySellParShares, StockRound
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


def _own_names(cls: type, base: type) -> set[str]:
    """The names `cls` adds to `base`'s (its methods and flags) that every subclass may change."""
    return {n for klass in cls.__mro__ if issubclass(klass, base) and klass is not base for n in vars(klass)
            if not n.startswith("_")}


STOCK_STEP_RULES = _own_names(BuySellParShares, Step) - {"handlers", "offers"}
STOCK_ROUND_RULES = {"sets_priority", "turn_counts_as_action", "finish_stock_round"}


@pytest.mark.parametrize("title", TITLES)
def test_a_stock_rule_lives_in_the_stock_step_or_round_not_in_the_rules_object(title: str) -> None:
    """The stock round's per-action rules are the step's and the round's own methods: neither `TitleRules`
    nor a title's rules class answers one of them, where nobody would ask it (the rule would have two homes,
    one of them dead)."""
    cls = type(rules_for(title))
    assert {"par_prices", "can_start", "company_sale_price", "finish_stock_round"} <= STOCK_STEP_RULES | STOCK_ROUND_RULES
    held = {n for n in STOCK_STEP_RULES | STOCK_ROUND_RULES if any(n in vars(k) for k in cls.__mro__)}
    assert not held, f"{cls.__name__} (or TitleRules) still answers {sorted(held)}"


@pytest.mark.parametrize("title", TITLES)
def test_a_title_that_changes_a_stock_rule_plays_its_own_step_and_round(title: str) -> None:
    """A title's stock round is built from its own subclasses, kept in its package (the step in its
    `steps/stock.py`), and each of them changes at least one of the core's rules for the actions."""
    from shared.engine.session import GameSession

    players = [{"id": i, "name": f"p{i}"} for i in range(1, 4)]
    game = GameSession.new(title, players, seed=1).game
    round_ = game.rules.stock_round(game)
    assert isinstance(round_, StockRound) and type(round_) is not StockRound
    package = type(game.rules).__module__.rsplit(".", 1)[0]
    assert type(round_).__module__ == f"{package}.stock"
    assert any(n in vars(type(round_)) for n in STOCK_ROUND_RULES | {"process", "current_entity"})
    step = next(s for s in round_.steps if isinstance(s, BuySellParShares))
    assert type(step) is not BuySellParShares and type(step).__module__ == f"{package}.steps.stock"
    assert _own_names(type(step), BuySellParShares) & (STOCK_STEP_RULES | {"buy_shares", "sell_shares", "par"})

"""The contract between the core and a title's rules (`TitleRules`): hooks that go together are overridden
together, a rule the data states is read from the data, not restated in a title, and a per-action rule has
one home, the step that handles the action (a title changes it by subclassing the step)."""

from __future__ import annotations

import pytest

from shared.engine.core.rounds import Step
from shared.engine.core.stock import BuySellParShares
from shared.engine.core.stockround import StockRound
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


# the track, run and dividend rules a title changes are its steps' and its operating round's methods now
# (docs/architecture.md, "Where a rule of each kind lives"): a title's rules object that still defined one
# would hold a rule nobody asks
MOVED_TO_STEPS = {
    "core/track.TrackAndToken": ("may_build", "extra_track_actions", "tile_lays", "buying_power", "lay_must_connect",
                                 "is_upgrade", "check_second_lay", "check_track_restrictions", "pay_for_track",
                                 "after_lay_tile", "pay_for_token"),
    "core/runs.RunRoutes": ("route_actions", "extra_revenue", "after_run_routes"),
    "core/runs.Dividend": ("may_choose_dividend", "dividend_kinds", "distribute", "pay_shareholders",
                           "move_price_after_dividend"),
    "core/operating.SpecialBuy": ("special_buy", "special_buy_options"),
    "core/operating.OperatingRound": ("operating_order", "place_home_token", "start_operating", "route_trains"),
}


@pytest.mark.parametrize("title", sorted(REGISTRY))
def test_no_title_keeps_a_track_or_run_rule_on_its_rules_object(title: str) -> None:
    from shared.engine.core.operating import OperatingRound, SpecialBuy
    from shared.engine.core.runs import Dividend, RunRoutes
    from shared.engine.core.track import TrackAndToken

    homes = {"core/track.TrackAndToken": TrackAndToken, "core/runs.RunRoutes": RunRoutes,
             "core/runs.Dividend": Dividend, "core/operating.SpecialBuy": SpecialBuy,
             "core/operating.OperatingRound": OperatingRound}
    cls = type(rules_for(title))
    for home, names in MOVED_TO_STEPS.items():
        for name in names:
            assert callable(getattr(homes[home], name)), (home, name)
            assert not hasattr(cls, name), f"{title}'s rules still define {name}, which is {home}'s now"
    assert not hasattr(cls, "pay_private_income")  # no title's to change: core/operating.pay_private_income


def test_1825s_lease_is_one_rule_in_both_steps_that_open_it() -> None:
    """A corporation in receivership leases a train in its track step or its run step: both are the one
    `LeaseTrain` rule, and both are the steps 1825's operating round is built of."""
    from shared.engine.session import GameSession
    from shared.engine.titles.g1825.steps.runs import LeaseTrain, RunRoutes1825
    from shared.engine.titles.g1825.steps.track import TrackAndToken1825

    assert TrackAndToken1825.special_buy is RunRoutes1825.special_buy is LeaseTrain.special_buy
    assert TrackAndToken1825.special_buy_options is LeaseTrain.special_buy_options
    game = GameSession.new("1825", [{"id": i, "name": f"p{i}"} for i in range(1, 4)], seed=1).game
    steps = {type(s) for s in game.rules.operating_round(game, 1).steps}
    assert {TrackAndToken1825, RunRoutes1825} <= steps


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


def test_every_step_declares_its_moves_through_offers() -> None:
    """A step lists its concrete moves through the contract (`offers` -> `offer_*`, gathered by `Step.options`),
    never by overriding `options`; and each action type a step handles that it may open is offered."""
    import importlib
    import pkgutil

    import shared.engine as engine

    for info in pkgutil.walk_packages(engine.__path__, "shared.engine."):
        importlib.import_module(info.name)

    def subclasses(cls: type) -> list[type]:
        return [c for sub in cls.__subclasses__() for c in (sub, *subclasses(sub))]

    steps = {c for c in subclasses(Step) if c.__module__.startswith("shared.engine.")}
    assert {"BuildStep", "RunStep", "DividendStep", "DiscardStep", "TrainStep", "StockStep", "TakeoverStep"} <= {
        c.__name__ for c in steps}
    assert sorted(c.__qualname__ for c in steps if c.options is not Step.options) == []
    for cls in steps:
        for kind, name in cls.offers.items():
            assert callable(getattr(cls, name, None)), (cls.__qualname__, kind, name)

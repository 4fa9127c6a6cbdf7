"""1828's stock round: sell/buy/sell turns, the 60% holding limit that lapses in the grey cells (where a
president may buy two shares in one turn), one row down per share sold, next-round priority by the order
in which players first passed, and the rise of sold-out corporations at its end. Its buy/sell step is
`steps/stock.BuySellParShares1828`; a running merger is the `Merger` step's."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from ...core.rounds import controlled_by
from ...core.stock import BuySellParShares
from ...core.stockround import StockRound
from ...errors import IllegalAction
from ...model import POOL, Corporation
from .state import state
from .steps.merger import Merger

if TYPE_CHECKING:
    from ...game import Game

UNLIMITED = "unlimited"
MAX_MULTI_BUY = 2


class StockRound1828(StockRound):
    def __init__(self, steps: list[Any]) -> None:
        super().__init__(steps)
        self.pass_order: list[int] = []
        self.merger: Any = None  # systems.MergerState while a merger runs

    def current_entity(self, game: Game) -> Any:
        if self.merger is not None and not self.done:
            return self.merger.choice.chooser if self.merger.choice else self.merger.acting_player
        return super().current_entity(game)

    def merger_step(self) -> Merger:
        """The step that runs a merger: while one runs it alone takes and offers every move."""
        return next(s for s in self.steps if isinstance(s, Merger))

    def actions_for(self, game: Game, entity: Any) -> list[str]:
        if self.merger is not None:  # the starting corporation names its partner; players answer choices
            step = self.merger_step()
            return step.actions(game, self, entity)
        return super().actions_for(game, entity)

    def options(self, game: Game, entity: Any, kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        """While a merger runs its step alone offers, to whoever `actions_for` names (the starting
        corporation or its player, the player asked a question)."""
        if self.merger is not None:
            step = self.merger_step()
            return step.options(game, self, entity, kinds)
        return super().options(game, entity, kinds)

    def deciders(self, game: Game, entity: Any) -> list[int]:
        """While a merger runs its step names who decides (the partner's president, when the partner named by
        the starting corporation is another player's); otherwise the entity's controller."""
        if self.merger is not None:
            return self.merger_step().deciders(game, self, entity)
        return controlled_by(game, entity)

    def proposer(self, game: Game, entity: Any) -> int | None:
        if self.merger is not None:
            step = self.merger_step()
            return step.proposer(game, self, entity)
        return None

    def dead_ends(self, game: Game, entity: Any) -> list[dict[str, Any]]:
        if self.merger is not None:
            step = self.merger_step()
            return step.dead_end_options(game, self, entity)
        return super().dead_ends(game, entity)

    def bought(self) -> bool:
        """A merger (its `choose`, completed or not) and a declared failed one are the turn's purchase."""
        return super().bought() or any(a["type"] in ("failed_merge", "choose") for a in self.turn_actions)

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        """A merger in progress takes every action; a private's exchange ability acts for its owner."""
        entity = action.get("entity")
        if self.merger is not None:
            step = self.merger_step()
            offered = step.actions(game, self, entity)
            if action.get("type") not in offered:
                raise IllegalAction(f"{entity} cannot {action.get('type')} during the merger", "merger")
            step.process(game, self, action, trusted)
            if self.merger is None:
                # a completed merger was the turn's purchase: the player goes on only with what a purchase
                # leaves open (sales; as a grey-cell president a second share of that corporation:
                # gen1828_5p_286529 actions 974-975, gen1828_5p_226194 action 908), else the turn ends
                # (1828.Games:4:2999273 action 174: nothing left to do, the next player acts)
                for other in self.steps:
                    other.passed = False
            if self.merger is None and self.settle(game) is None and not self.done:
                self.next_entity(game)
            return
        company = game.companies.get(entity) if isinstance(entity, str) else None
        if company is not None and action.get("type") == "buy_shares":
            if company.owner != self.current_entity(game):
                raise IllegalAction(f"{company.sym} is used on its owner's turn", "not_your_turn")
            # the buy/sell step (steps/stock.BuySellParShares1828, which imports this round) makes the exchange
            step: Any = next(s for s in self.steps if isinstance(s, BuySellParShares))
            step.exchange(game, self, company, action)
            self.after_process(game, dict(action, entity=company.owner))
            return
        super().process(game, action, trusted)

    def finish_stock_round(self, game: Game) -> None:
        """Only a sold-out corporation rises: one row, one more first from a grey cell, one more when its
        president holds 8 shares (rules-1828.md, Stock round; conflicts-1828.md 2)."""
        rules: Any = game.rules  # Rules1828, which imports this module: its market helpers
        for corp in rules.sorted_by_price(game, [c for c in game.corporations.values() if c.floated and not c.closed
                                                 and c.kind == "major"]):
            if not sold_out(game, corp):
                continue
            if UNLIMITED in game.market.cell(corp.share_cell).types:
                move_up(game, corp)
            move_up(game, corp)
            president = corp.president
            if president is not None and corp.percent_owned_by(president) >= 80:
                move_up(game, corp)


def sold_out(game: Game, corp: Corporation) -> bool:
    held = sum(corp.percent_owned_by(p.id) for p in game.players)
    return held == (90 if corp.sym in state(game).systems else 100)


def move_up(game: Game, corp: Corporation) -> None:
    assert corp.share_cell is not None
    rules: Any = game.rules
    if corp.share_cell[0] == 0:
        rules.set_cell(game, corp, game.market.right(corp.share_cell))
    else:
        rules.set_cell(game, corp, game.market.up(corp.share_cell))


def in_unlimited_cell(game: Game, corp: Corporation) -> bool:
    return corp.share_cell is not None and UNLIMITED in game.market.cell(corp.share_cell).types


def sell_to_market(game: Game, bundle: Any, seller: int) -> None:
    """Certificates to the market. Selling part of the president's certificate (a bundle worth less than its
    certificates) goes in three moves: every certificate of the bundle goes to the market, in the order
    named; the player who takes the presidency over (the most shares, first in seat order after the seller)
    hands over his oldest ordinary shares worth the certificate (to the seller when he still holds at least
    the certificate's worth, else to the market) and receives it; the seller then takes back from the
    market its oldest ordinary shares worth the part he did not sell, which is his own sold share when the
    market held none before (1828.Games:3:5729320:ensure_good_privates index 840: 1003 sells NW-ERIE_4
    and half the certificate and gets NW-ERIE_4 back; gen1828_5p_226194 index 359: with nothing in the
    market before, 1004 gets the new president's first share; gen1828_3p_318877: a market already holding
    shares hands back one of those)."""
    corp = bundle.corporation
    pres = corp.shares[0]
    kept = sum(s.percent for s in bundle.shares) - bundle.percent
    if not (bundle.includes_president and kept > 0):
        game.transfer_shares(bundle, POOL, seller=seller)
        return
    order = game.player_order
    start = order.index(seller) + 1 if seller in order else 0
    rotated = [p for p in order[start:] + order[:start] if p != seller]
    best = max(rotated, key=lambda p: corp.percent_owned_by(p), default=None)
    if best is None or corp.percent_owned_by(best) < pres.percent:
        raise IllegalAction("nobody can take over as president", "president_split")
    for share in bundle.shares:
        corp.give(share, POOL)
    swap_to: Any = seller if corp.percent_owned_by(seller) >= pres.percent else POOL
    owed = pres.percent
    for share in sorted((s for s in corp.shares if s.owner == best and not s.president), key=lambda s: s.stamp):
        if owed <= 0:
            break
        corp.give(share, swap_to)
        owed -= share.percent
    corp.give(pres, best)
    for share in sorted((s for s in corp.shares if s.owner == POOL and not s.president), key=lambda s: s.stamp):
        if kept <= 0:
            break
        if share.percent <= kept:
            corp.give(share, seller)
            kept -= share.percent
    game.rules.after_share_transfer(game, corp)


def holding_limit(game: Game, corp: Corporation) -> int:
    return 100 if in_unlimited_cell(game, corp) else corp.max_ownership_percent


def pool_percent(corp: Corporation) -> int:
    return corp.percent_owned_by(POOL)

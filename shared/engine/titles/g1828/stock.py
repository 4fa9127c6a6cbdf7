"""1828's stock round: sell/buy/sell turns, the 60% holding limit that lapses in the grey cells (where a
president may buy two shares in one turn), one row down per share sold, and next-round priority by the
order in which players first passed."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from ...core.rounds import Round, controlled_by, dead_end
from ...core.shares import Bundle, parse_bundle
from ...core.stock import BuySellParShares, StockRound
from ...errors import IllegalAction
from ...model import POOL, Company, Corporation, Player, Share
from .exchange import MergerState
from .state import state
from .steps.merger import (
    Merger,
    can_merge_any,
    merge_candidate,
    merge_move,
    merger_completes,
    merger_failure,
)

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
            step = next(s for s in self.steps if isinstance(s, BuySellParShares1828))
            step.exchange(game, self, company, action)
            self.after_process(game, dict(action, entity=company.owner))
            return
        super().process(game, action, trusted)


def in_unlimited_cell(game: Game, corp: Corporation) -> bool:
    return corp.share_cell is not None and UNLIMITED in game.market.cell(corp.share_cell).types


class BuySellParShares1828(BuySellParShares):
    handlers = {**BuySellParShares.handlers, "choose": "start_merger", "failed_merge": "failed_merge"}
    offers = {**BuySellParShares.offers, "choose": "offer_start_merger", "failed_merge": "offer_failed_merge"}
    dead_ends = {"choose": "dead_end_starts"}

    def failed_merge(self, game: Game, round_: Any, action: dict[str, Any], trusted: bool) -> None:
        """A player who could merge may instead declare a merger failed: nothing changes, but it is the
        turn's purchase (gen1828_4p_752101 action 56: declared, then the player passes)."""
        if round_.bought():
            raise IllegalAction("a failed merger replaces the turn's purchase", "merge")
        if not can_merge_any(game, round_, action["entity"]):
            raise IllegalAction("no merger to fail: the player could not merge", "merge")
        named = action.get("corporations")
        if (not isinstance(named, list) or len(named) != 2 or len(set(map(str, named))) != 2
                or any(not isinstance(sym, str) or sym not in game.corporations for sym in named)):
            raise IllegalAction("a failed merger names the two corporations that failed to merge", "merge")

    def start_merger(self, game: Game, round_: Any, action: dict[str, Any], trusted: bool) -> None:
        """`choose` names the corporation that starts a merger; the Merger step takes over."""
        player = action["entity"]
        corp = game.corporations.get(action.get("choice")) if isinstance(action.get("choice"), str) else None
        if round_.bought():
            raise IllegalAction("a merger replaces the turn's purchase", "merge")
        if corp is None or not any(merge_candidate(game, round_, player, corp, other)
                                   for other in game.corporations.values()):
            raise IllegalAction(f"{action.get('choice')} has no partner to merge with", "merge")
        round_.merger = MergerState(acting_player=player, initiator=corp.sym)

    def offer_start_merger(self, game: Game, round_: Any, entity: int) -> list[dict[str, Any]]:
        """The corporations the player may start a merger with: a started one (an unstarted corporation may
        start a merger but never complete one) with a partner the merger completes with (one that fails
        can only be taken back)."""
        corps = [c for c in game.corporations.values() if c.kind == "major"]
        return [{"choice": c.sym} for c in corps if c.ipoed
                if any(merge_candidate(game, round_, entity, c, other)
                       and merger_completes(game, [{"type": "choose", "entity": entity, "choice": c.sym},
                                                   merge_move(c.sym, other.sym)]) for other in corps)]

    def dead_end_starts(self, game: Game, round_: Any, entity: int) -> list[dict[str, Any]]:
        """The corporations the engine lets the player start a merger with although no partner completes it
        (an unstarted one has no share price to form a System with)."""
        if round_.bought():
            return []
        corps = [c for c in game.corporations.values() if c.kind == "major"]
        out = []
        for c in corps:
            start = {"type": "choose", "entity": entity, "choice": c.sym}
            whys = []
            for other in (o for o in corps if merge_candidate(game, round_, entity, c, o)):
                why = merger_failure(game, [start, merge_move(c.sym, other.sym)])
                if why is None:  # a partner completes it: offered (`offer_start_merger`)
                    break
                whys.append(f"with {other.sym}: {why}")
            else:
                if whys:
                    out.append(dead_end({"choice": c.sym},
                                        f"no partner completes a merger of {c.sym} ({'; '.join(whys)})"))
        return out

    def offer_failed_merge(self, game: Game, round_: Any, entity: int) -> list[dict[str, Any]]:
        """A declared failure names two corporations the player could merge."""
        corps = [c for c in game.corporations.values() if c.kind == "major"]
        return [{"corporations": [c.sym, other.sym]} for c in corps for other in corps
                if merge_candidate(game, round_, entity, c, other)]

    def offer_buy_shares(self, game: Game, round_: StockRound, entity: int) -> list[dict[str, Any]]:
        """The shared purchases, and Mohawk & Hudson's exchange for a treasury or market share (the private
        acts: `exchange`)."""
        out = super().offer_buy_shares(game, round_, entity)
        company = self.exchange_company(game, entity) if not round_.bought() else None
        if company is None:
            return out
        for corp in game.corporations.values():
            if not corp.ipoed or corp.closed:
                continue
            for holder in (corp.sym, POOL):
                share = next((s for s in corp.shares if s.owner == holder and not s.president), None)
                if share is not None:
                    out.append({"entity": company.sym, "entity_type": "company", "shares": [share.id],
                                "percent": share.percent})
        return out

    def can_buy(self, game: Game, round_: StockRound, player: Player, share: Share) -> str | None:
        corp = game.corporations[share.corporation]
        if share.owner == corp.sym and share.id in state(game).unbuyable:
            return "the share the president gave to the System's treasury cannot be bought"  # rules: the gift
        if round_.bought() and not self.may_buy_another(game, round_, player, corp):
            return "only one purchase per turn"
        # the base check refuses any second purchase; lift it for a permitted double buy, which counts only
        # the president's purchases of this corporation: a declared failed merger before it is no obstacle
        saved, limit = round_.turn_actions, corp.max_ownership_percent
        round_.turn_actions = [a for a in saved if a["type"] not in ("buy_shares", "par", "failed_merge", "choose")]
        corp.max_ownership_percent = holding_limit(game, corp)
        try:
            reason = super().can_buy(game, round_, player, share)
        finally:
            round_.turn_actions, corp.max_ownership_percent = saved, limit
        return reason

    def move_sold(self, game: Game, player: Player, bundle: Bundle) -> None:
        """As usual, but part of a president's certificate is sold as `sell_to_market` describes."""
        if bundle.includes_president and bundle.percent < sum(s.percent for s in bundle.shares):
            sell_to_market(game, bundle, player.id)
        else:
            super().move_sold(game, player, bundle)

    def can_sell(self, game: Game, round_: StockRound, player: Player, corp: Corporation,
                 bundle: Any = None) -> str | None:
        """A president holding nothing but his certificate may still sell it when another player holds
        enough to take the presidency over (gen1828_5p_286529 action 77: 1005 is offered a turn holding
        only OSH-MC's certificate, 1002 holding 20%)."""
        if bundle is None and game.rules.sell_allowed_this_round(game) and corp.share_cell is not None:
            held = [s for s in corp.shares if s.owner == player.id]
            if held and all(s.president for s in held):
                others = max((corp.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
                return None if others >= corp.shares[0].percent else "nobody can take over as president"
        return super().can_sell(game, round_, player, corp, bundle)

    def closed_to(self, game: Game, round_: StockRound, player: Player, corp: Corporation) -> bool:
        """After a purchase a corporation stays open to its president's second purchase (grey cells)."""
        return corp.closed or not corp.ipoed or \
            (self.bought(round_) and not self.may_buy_another(game, round_, player, corp))

    def may_buy_another(self, game: Game, round_: StockRound, player: Player, corp: Corporation) -> bool:
        """Grey cells: the president may buy a second share of the same corporation in the same turn."""
        if not in_unlimited_cell(game, corp) or corp.president != player.id:
            return False
        bought = 0
        for action in round_.turn_actions:
            if action["type"] == "par":
                return False
            if action["type"] == "buy_shares":
                if self._action_corp(action) != corp.sym:
                    return False
                bought += 1
        return bought < MAX_MULTI_BUY

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        out = super().actions(game, round_, entity)
        assert isinstance(round_, StockRound)
        if isinstance(entity, int) and entity == round_.current_entity(game) and not round_.bought() \
                and can_merge_any(game, round_, entity) and "choose" not in out:
            out.insert(0, "choose")
            out.insert(1, "failed_merge")
            if "pass" not in out:
                out.append("pass")
        if isinstance(entity, int) and entity == round_.current_entity(game) and not round_.bought() \
                and self.exchange_company(game, entity) is not None:
            if "buy_shares" not in out:
                out.insert(0, "buy_shares")
            if "pass" not in out:
                out.append("pass")
        return out

    def exchange_company(self, game: Game, player: int) -> Company | None:
        for company in game.companies.values():
            if company.owner == player and not company.closed and \
                    any(a.get("type") == "exchange" for a in company.abilities):
                return company
        return None

    def exchange(self, game: Game, round_: StockRound, company: Company, action: dict[str, Any]) -> None:
        """Mohawk & Hudson: swap the private for a 10% share from the treasury or the market (free, and
        outside the 60% limit); the private closes."""
        if round_.bought():
            raise IllegalAction("cannot exchange and buy in the same turn", "exchange")
        if not any(a.get("type") == "exchange" for a in company.abilities):
            raise IllegalAction(f"{company.sym} has no exchange ability", "exchange")
        bundle = parse_bundle(game.corporations, action.get("shares"), action.get("percent"))
        if len(bundle.shares) != 1 or bundle.includes_president:
            raise IllegalAction("exchange one ordinary 10% share", "exchange")
        share = bundle.shares[0]
        corp = bundle.corporation
        if share.owner not in (corp.sym, POOL) or not corp.ipoed:
            raise IllegalAction(f"{share.id} is not in the treasury or the market", "exchange")
        owner = company.owner
        assert isinstance(owner, int)
        game.transfer_shares(bundle, owner)
        company.closed = True
        game.board.remove_blocker(company.sym)
        game.player(owner).companies.remove(company.sym)
        game.rules.after_buy_shares(game, corp)

    def _pass(self, game: Game, round_: StockRound) -> None:
        super()._pass(game, round_)
        assert isinstance(round_, StockRound1828)
        pid = round_.current_entity(game)
        if game.player(pid).passed:
            if pid not in round_.pass_order:
                round_.pass_order.append(pid)
        elif pid in round_.pass_order:
            round_.pass_order.remove(pid)


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


def stock_round(game: Game, extra_steps: list[Any]) -> Round:
    return StockRound1828([*extra_steps, BuySellParShares1828()])

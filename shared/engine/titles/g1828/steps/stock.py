"""1828's stock-round step: the shared buy/sell/par step, plus starting a merger (`choose`, or a declared
failed one) as the turn's purchase, Mohawk & Hudson's exchange, a grey-cell president's second share, and
selling part of a president's certificate. Its round is `stock.StockRound1828`, which hands a running
merger to the `Merger` step."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.rounds import Round, dead_end
from ....core.shares import Bundle, parse_bundle
from ....core.stock import BuySellParShares
from ....core.stockround import StockRound
from ....errors import IllegalAction
from ....model import POOL, Company, Corporation, Player, Share
from ..exchange import MergerState
from ..state import state
from ..stock import MAX_MULTI_BUY, StockRound1828, holding_limit, in_unlimited_cell, sell_to_market
from ..systems import is_system, update_float
from .merger import can_merge_any, merge_candidate, merge_move, merger_completes, merger_failure

if TYPE_CHECKING:
    from ....core.market import Cell
    from ....game import Game


class BuySellParShares1828(BuySellParShares):
    handlers = {**BuySellParShares.handlers, "choose": "start_merger", "failed_merge": "failed_merge"}
    offers = {**BuySellParShares.offers, "choose": "offer_start_merger", "failed_merge": "offer_failed_merge"}
    dead_ends = {"choose": "dead_end_starts"}

    # -- starting and floating ------------------------------------------------------------------------------
    def can_start(self, game: Game, corp: Corporation) -> bool:
        return corp.kind == "major"  # the C&P minor comes with its private and has no shares to par

    def par_prices(self, game: Game, corp: Corporation, player: Player) -> list[Cell]:
        """The par prices of the groups the phases have opened so far that the player can pay twice."""
        return [c for c in game.rules.par_cells(game) if c.price * 2 <= player.cash]  # type: ignore[attr-defined]

    def after_buy_shares(self, game: Game, corp: Corporation) -> None:
        """A System floats like a corporation (60% out of its treasury, its president's gift counted as out)
        and then receives ten times its current share price (gen1828_3p_136186 index 184: $1040 at $104)."""
        if not is_system(game, corp):
            super().after_buy_shares(game, corp)
        elif update_float(game, corp):
            game.pay(None, corp, (game.share_price(corp) or 0) * 10)

    # -- mergers ----------------------------------------------------------------------------------------------

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
        if bundle is None and self.sell_allowed_this_round(game) and corp.share_cell is not None:
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
        self.after_buy_shares(game, corp)

    def _pass(self, game: Game, round_: StockRound) -> None:
        super()._pass(game, round_)
        assert isinstance(round_, StockRound1828)
        pid = round_.current_entity(game)
        if game.player(pid).passed:
            if pid not in round_.pass_order:
                round_.pass_order.append(pid)
        elif pid in round_.pass_order:
            round_.pass_order.remove(pid)

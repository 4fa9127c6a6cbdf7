"""1825's operating round: the shared round plus the director's share sales during the train step.

Rule (docs/rules-1825.md, "Share sales by the director in the train step"): while a corporation is in its
buy-train step, its director may sell shares he holds to the pool. The money stays his (a director never
pays towards a train in 1825), and a sale is refused once he has enough: when the sale's value, his cash
and the corporation's treasury together reach the cheapest train the bank sells plus one certificate of
the sale. He may not give up the presidency of the operating corporation that way, and a director's
certificate is only sold when another player can take it over.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from ...core.operating import OperatingRound
from ...core.runs import Dividend
from ...core.shares import Bundle, parse_bundle
from ...core.trains import BuyTrain
from ...errors import IllegalAction, accepts
from ...model import POOL, Corporation, Player, Train
from .sales import partial_director_bundles, sell_to_pool
from .state import state

if TYPE_CHECKING:
    from ...game import Game


class OperatingRound1825(OperatingRound):
    # set when a corporation in receivership that ran its leased train is removed at its payout, until the
    # next corporation's turn has taken over the spent steps (rules-1825 "The turn after a removal at the payout")
    removed_at_payout: bool = False
    leased_run = False  # this turn's run used the train leased for it (set when the run is recorded)

    def start(self, game: Game) -> None:
        self.removed_at_payout = False
        super().start(game)

    def _start_operating(self, game: Game) -> None:
        super()._start_operating(game)
        self.hand_on_removal(game)

    def hand_on_removal(self, game: Game) -> None:
        """The corporation whose turn follows the removal has had its payout, and its train step is settled
        now, at the start of its turn, if it has no train move yet."""
        if not self.removed_at_payout:
            return
        self.removed_at_payout = False
        if self.done or game.finished or self.pending_homes or self.corp(game).closed:
            return
        after_payout = False
        for step in self.steps:
            if isinstance(step, Dividend):
                step.passed = after_payout = True
            elif after_payout and not step.passed:
                if step.blocking(game, self):
                    break
                step.skip(game, self)
        self.move_on(game)

    def new_turn(self) -> None:
        # a run no payout has taken yet (after a removal at the payout) stays for the next payout of the round
        carried = (self.routes, self.revenue) if getattr(self, "routes", None) else ([], 0)
        super().new_turn()
        self.routes, self.revenue = carried
        self.leased_train: Train | None = None  # the train a corporation in receivership leases for its run
        self.leased_run = False
        self.receivership_loan = 0  # spent on credit in receivership this turn, repaid by the run

    # -- the round's own rules: who operates, home stations, the trains that run -------------------------------
    def operating_order(self, game: Game) -> list[str]:
        """The formed corporations: majors before minors, each by par price, then by when they formed."""
        formed = state(game).formed
        corps = [game.corporations[s] for s in formed if not game.corporations[s].closed]
        corps.sort(key=lambda c: (c.kind != "major", -(c.par_price or 0), formed.index(c.sym)))
        return [c.sym for c in corps]

    def place_home_token(self, game: Game, corp: Corporation, at_round_start: bool) -> None:
        if corp.tokens_placed or corp.home is None:
            return
        if corp.kind == "minor" and not self.can_place_home_token(game, corp):
            return
        super().place_home_token(game, corp, at_round_start)

    @staticmethod
    def can_place_home_token(game: Game, corp: Corporation) -> bool:
        """A minor's home goes down once its home hex has track with a city (docs/rules-1825.md, "A minor
        building its own home hex")."""
        if corp.kind != "minor":
            return True
        tile = game.board.hex(corp.home).tile
        return bool(tile.paths) and bool(tile.cities)

    def start_operating(self, game: Game, corp: Corporation) -> None:
        if corp.kind == "minor" and not corp.tokens_placed:
            self.place_home_token(game, corp, at_round_start=False)

    def route_trains(self, game: Game, corp: Corporation) -> list[Train]:
        """Its own trains and the one leased for this turn."""
        trains = super().route_trains(game, corp)
        if self.leased_train is not None:
            trains.append(self.leased_train)
        return trains

    def in_train_step(self, game: Game) -> Corporation | None:
        """The corporation in its buy-train step now (None if none is: another step, or a discard first)."""
        if self.done or self.pending_homes or game.finished:
            return None
        corp = self.corp(game)
        if self.current_entity(game) != corp.sym or corp.closed:
            return None
        return corp if isinstance(self.active_step(game), BuyTrain) else None

    def actions_for(self, game: Game, entity: Any) -> list[str]:
        if isinstance(entity, int) and not isinstance(entity, bool):
            corp = self.in_train_step(game)
            if corp is not None and corp.president == entity and sale_options(game, self, game.player(entity)):
                return ["sell_shares"]
            return []
        return super().actions_for(game, entity)

    def options(self, game: Game, entity: Any, kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        if isinstance(entity, int) and not isinstance(entity, bool):
            if (kinds is None or "sell_shares" in kinds) and self.actions_for(game, entity):
                return [{"type": "sell_shares", **o} for o in sale_options(game, self, game.player(entity))]
            return []
        return super().options(game, entity, kinds)

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        entity = action.get("entity")
        if action.get("type") == "sell_shares" and isinstance(entity, int) and not isinstance(entity, bool) \
                and self.in_train_step(game) is not None and any(p.id == entity for p in game.players):
            sell_in_train_step(game, self, action)
            self.after_process(game, action)
            return
        super().process(game, action, trusted)




def check_sale(game: Game, round_: OperatingRound1825, player: Player, bundle: Bundle) -> None:
    """Every reason to refuse a director's sale in the train step, asked before anything moves."""
    corp = round_.in_train_step(game)
    if corp is None or corp.president != player.id:
        current = round_.current_entity(game)
        raise IllegalAction(f"only the director of {current} may sell shares now, in its train step",
                            "not_your_turn")
    sold = bundle.corporation
    if any(s.owner != player.id for s in bundle.shares):
        raise IllegalAction(f"{player.name} does not hold all of {[s.id for s in bundle.shares]}", "sell_not_owned")
    price = game.share_price(sold)
    if price is None or sold.closed:
        raise IllegalAction(f"{sold.sym} has no share price", "sell_shares")
    if sold.percent_owned_by(POOL) + bundle.percent > game.rules.market_share_limit(game):
        raise IllegalAction(f"the market may hold at most {game.rules.market_share_limit(game)}% of {sold.sym}",
                            "sell_shares")
    others = max((sold.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
    pres = next((s for s in bundle.shares if s.president), None)
    if pres is not None and others < pres.percent:
        raise IllegalAction(f"nobody can take over the director's certificate of {sold.sym}", "sell_president")
    if sold is corp and sold.percent_owned_by(player.id) - bundle.percent < others:
        raise IllegalAction(f"{player.name} may not give up the presidency of {corp.sym} in its own turn",
                            "sell_president")
    cheapest = min((t.price for t in game.rules.depot_trains_for(game, corp)), default=0)
    value = price * bundle.percent // 10
    one_certificate = price * bundle.shares[0].percent // 10
    if value + player.cash + corp.cash >= cheapest + one_certificate:
        raise IllegalAction(f"{player.name} and {corp.sym} already have enough for the cheapest train "
                            f"({cheapest}); no more shares may be sold", "sell_more_than_needed")


def sell_in_train_step(game: Game, round_: OperatingRound1825, action: dict[str, Any]) -> None:
    player = game.player(action["entity"])
    bundle = parse_bundle(game.corporations, action.get("shares"), action.get("percent"))
    check_sale(game, round_, player, bundle)
    price = game.share_price(bundle.corporation)
    assert price is not None
    game.pay(None, player, price * bundle.percent // 10)
    sell_to_pool(game, player, bundle)
    game.rules.after_sell_shares(game, bundle.corporation, bundle)


def sale_options(game: Game, round_: OperatingRound1825, player: Player) -> list[dict[str, Any]]:
    """The sales the director may make now: ordinary shares one to all per corporation, everything he
    holds of a corporation including the director's certificate, and that less part of the certificate
    (docs/rules-1825.md, "Selling part of the director's certificate")."""
    out = []
    for corp in game.corporations.values():
        held = sorted((s for s in corp.shares if s.owner == player.id), key=lambda s: (s.president, s.stamp))
        if not held:
            continue
        ordinary = [s for s in held if not s.president]
        bundles = [ordinary[:n] for n in range(1, len(ordinary) + 1)]
        if len(held) > len(ordinary):
            bundles.append(held)
        candidates = [Bundle(corp, shares, sum(s.percent for s in shares)) for shares in bundles]
        candidates += partial_director_bundles(game, corp, player)
        for bundle in candidates:
            if accepts(check_sale, game, round_, player, bundle):
                out.append({"shares": [s.id for s in bundle.shares], "percent": bundle.percent})
    return out

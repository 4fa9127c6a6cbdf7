"""Before the first stock round: the private auction, then each player chooses a seat (poorest first).

Rules digest, *Setup*: the six landmarks are auctioned one at a time (minimum bid the printed value, raises
of 5); afterwards the player with the least money picks a position in the player order first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.operating import pay_private_income
from ...errors import IllegalAction
from .flow import FlowRound, Option, need_int, rules_of
from .state import state

if TYPE_CHECKING:
    from ...game import Game


# -- the private auction ---------------------------------------------------------------------------------
class AuctionRound(FlowRound):
    """Players bid on any private (minimum its printed value, +5 steps); the others bid or drop out."""

    kind = "Auction"
    handlers = {"bid": "bid", "pass": "pass_"}
    offers = {"bid": "offer_bid", "pass": "offer_pass"}

    def start(self, game: Game) -> None:
        self.entities = list(game.player_order)
        self.index = 0
        self.companies = [c.sym for c in sorted(game.companies.values(), key=lambda c: c.value)]
        self.cheapest = self.companies[0] if self.companies else None
        self.discount: dict[str, int] = {}
        self.passed: set[int] = set()
        self.auctioning: str | None = None
        self.bids: list[tuple[int, int]] = []
        self.bidders: list[int] = []
        self.triggerer: int | None = None
        self.done = not self.companies

    def current_entity(self, game: Game) -> Any:
        if self.done:
            return None
        if self.auctioning is not None and self.bids:
            high = self.bids[-1][0]
            return self.bidders[(self.bidders.index(high) + 1) % len(self.bidders)]
        return self.entities[self.index]

    def open_actions(self, game: Game) -> list[str]:
        return ["bid", "pass"]

    def offer_bid(self, game: Game, entity: Any) -> list[Option]:
        """The lowest bid on each private up (the one being auctioned, once an auction is open) that the
        player can pay; higher bids are the same move with a larger price."""
        cash = game.player(entity).cash
        syms = [self.auctioning] if self.auctioning else list(self.companies)
        return [{"company": sym, "price": self.min_bid(game, sym)} for sym in syms
                if sym is not None and self.min_bid(game, sym) <= cash]

    def min_bid(self, game: Game, sym: str) -> int:
        if self.auctioning == sym and self.bids:
            return self.bids[-1][1] + int(rules_of(game).rule(game, "MIN_BID_INCREMENT", 5))
        return game.companies[sym].value - self.discount.get(sym, 0)

    def bid(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        pid = action["entity"]
        player = game.player(pid)
        sym = action.get("company")
        price = need_int(action, "price")
        if sym not in self.companies:
            raise IllegalAction(f"{sym!r} is not up for auction", "bid_company")
        if self.auctioning is not None and sym != self.auctioning:
            raise IllegalAction(f"{self.auctioning} is being auctioned, not {sym}", "bid_company")
        if price < self.min_bid(game, sym):
            raise IllegalAction(f"the lowest bid for {sym} is {self.min_bid(game, sym)}", "bid_price")
        if price > player.cash:
            raise IllegalAction(f"{player.name} has only {player.cash}", "bid_price")
        self.passed.discard(pid)
        if self.auctioning is None:
            self.auctioning = sym
            self.triggerer = pid
            self.bidders = list(self.entities)
            self.bids = [(pid, price)]
        else:
            self.bids.append((pid, price))
        self.drop_unable(game, pid)

    def drop_unable(self, game: Game, bidder: int) -> None:
        """Players who cannot pay the next lowest bid leave the auction; the last one left wins."""
        assert self.auctioning is not None
        least = self.min_bid(game, self.auctioning)
        self.bidders = [p for p in self.bidders if p == bidder or game.player(p).cash >= least]
        self.bids = [b for b in self.bids if b[0] in self.bidders]
        if len(self.bidders) == 1:
            self.resolve(game)

    def pass_(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        pid = action["entity"]
        if self.auctioning is not None:
            self.bidders.remove(pid)
            if len(self.bidders) == 1:
                self.resolve(game)
            self.next_entity()
            return
        self.passed.add(pid)
        if len(self.passed) == len(self.entities):
            self.all_passed(game)
        self.next_entity()

    def resolve(self, game: Game) -> None:
        winner, price = self.bids[-1]
        assert self.auctioning is not None
        self.award(game, winner, self.auctioning, price)
        self.auctioning = None
        self.bids = []
        self.bidders = []
        self.passed.clear()
        assert self.triggerer is not None
        self.index = self.entities.index(self.triggerer)

    def award(self, game: Game, pid: int, sym: str, price: int) -> None:
        player = game.player(pid)
        company = game.companies[sym]
        game.pay(player, None, price)
        company.owner = pid
        player.companies.append(sym)
        self.companies.remove(sym)
        if not self.companies:
            self.done = True

    def all_passed(self, game: Game) -> None:
        if self.cheapest in self.companies:
            assert self.cheapest is not None
            self.discount[self.cheapest] = self.discount.get(self.cheapest, 0) + 5
            if self.min_bid(game, self.cheapest) <= 0:
                self.index = (self.index + 1) % len(self.entities)
                self.award(game, self.entities[self.index], self.cheapest, 0)
                if self.triggerer is not None:
                    # the bidding goes on after the opener of the latest auction, as after a won auction
                    # (rules-1840 *Private auction*)
                    self.index = self.entities.index(self.triggerer)
        else:
            pay_private_income(game)
        self.passed.clear()

    def next_entity(self) -> None:
        if self.done:
            return
        for _ in range(len(self.entities)):
            self.index = (self.index + 1) % len(self.entities)
            if self.entities[self.index] not in self.passed:
                return


# -- choosing the seating order -----------------------------------------------------------------------------
class ChoicesRound(FlowRound):
    """Poorest player first, each picks a position in the first stock round's order."""

    kind = "Choices"
    handlers = {"choose": "choose"}
    offers = {"choose": "offer_choose"}

    def start(self, game: Game) -> None:
        current = list(game.player_order)
        self.entities = sorted(current, key=lambda pid: (game.player(pid).cash, current.index(pid)))
        self.index = 0
        self.left = list(range(len(self.entities)))
        if len(self.left) <= 1:
            self._finish(game)

    def open_actions(self, game: Game) -> list[str]:
        return ["choose"]

    def offer_choose(self, game: Game, entity: Any) -> list[Option]:
        return [{"choice": position} for position in self.left]

    def choose(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        choice = need_int(action, "choice")
        if choice not in self.left:
            raise IllegalAction(f"position {choice} is not free; free: {self.left}", "choice")
        self.left.remove(choice)
        state(game).order_choice[action["entity"]] = choice
        self.index += 1
        if len(self.left) == 1:
            self._finish(game)

    def _finish(self, game: Game) -> None:
        if self.left:
            state(game).order_choice[self.entities[-1]] = self.left.pop()
        self.done = True

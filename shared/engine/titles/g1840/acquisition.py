"""The line acquisition at the end of a company round (rules digest, *Company round*: line auction).

Majors in share-price order open an auction for an offered line (20, +5); the winner may buy and reassign
trams at once; afterwards every major that won nothing gets its tram turn; the offer is refilled."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.rounds import dead_end
from ...errors import IllegalAction
from ...model import POOL
from .company import company_round_order
from .flow import LINE_BID_STEP, LINE_MIN_BID, MAX_LINES, FlowRound, Option, need_int, rules_of
from .state import MAJOR, state
from .trams import (
    TramTurnOffers,
    buy_tram,
    keeps_buying,
    reassign_actions,
    reassign_trams,
    scrap_tram,
    tram_buy_actions,
)

if TYPE_CHECKING:
    from ...game import Game


# -- acquisition of lines -------------------------------------------------------------------------------
class AcquisitionRound(TramTurnOffers, FlowRound):
    """Majors in share-price order pick an offered line and auction it among themselves (20, +5); the
    winner may buy and reassign trams at once. New lines come from the reserve at the end."""

    kind = "Acquisition"
    handlers = {"merge": "merge", "bid": "bid", "pass": "pass_", "buy_train": "buy_train",
                "scrap_train": "scrap_train", "reassign_trains": "reassign"}
    dead_end_offers = {"merge": "dead_end_merge"}
    offers = {"merge": "offer_merge", "bid": "offer_bid", "pass": "offer_pass", "buy_train": "offer_buy_train",
              "scrap_train": "offer_scrap_train", "reassign_trains": "offer_reassign_trains"}

    def start(self, game: Game) -> None:
        self.entities = company_round_order(game)
        self.index = 0
        self.passed: set[str] = set()
        self.auctioning: str | None = None
        self.bids: list[tuple[str, int]] = []
        self.bidders: list[str] = []
        self.triggerer: str | None = None
        self.interrupt: list[tuple[str, str]] = []  # (major, "buy" / "reassign")
        self.restocked = False
        self.bought: set[str] = set()
        self.full_skip(game)
        self.settle(game)

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        """A Tram Company with three lines may neither open a line auction nor bid (before the turn check,
        so the refusal names the rule rather than the turn)."""
        entity = action.get("entity")
        major = game.corporations.get(entity) if isinstance(entity, str) else None
        if action["type"] in ("merge", "bid") and major is not None and major.kind == MAJOR \
                and len(rules_of(game).lines_of(game, major)) >= MAX_LINES:
            raise IllegalAction(f"{major.sym} already owns {MAX_LINES} lines", "line_limit")
        super().process(game, action, trusted)

    def full_skip(self, game: Game) -> None:
        """Majors that own three lines when the round starts take no part at all: no bidding, and no tram
        turn after it (rules-1840 *Line auction*); they had theirs in the company round's tram stage."""
        rules = rules_of(game)
        for sym in self.entities:
            if len(rules.lines_of(game, game.corporations[sym])) >= MAX_LINES:
                self.passed.add(sym)
                self.bought.add(sym)  # no tram turn at the end either
        if len(self.passed) == len(self.entities):
            self.all_passed(game)
        elif self.entities[self.index] in self.passed:
            self.next_entity(game)

    def current_entity(self, game: Game) -> Any:
        if self.done:
            return None
        turn = self.turn(game)
        if turn is not None:
            return self.interrupt[turn][0]
        if self.auctioning is not None and self.bids:
            high = self.bids[-1][0]
            return self.bidders[(self.bidders.index(high) + 1) % len(self.bidders)]
        return self.entities[self.index]

    def open_actions(self, game: Game) -> list[str]:
        turn = self.turn(game)
        if turn is not None:
            major, what = self.interrupt[turn]
            corp = game.corporations[major]
            if what == "buy":
                return tram_buy_actions(game, corp)
            return reassign_actions(game, corp)
        if self.auctioning is None:
            return ["merge", "pass"]  # naming a line is open to a major of any cash (rules-1840 *Naming a line*)
        if not self.bids:
            return ["bid"]
        return ["bid", "pass"]

    def offer_merge(self, game: Game, entity: Any) -> list[Option]:
        """Each offered line, for a major that can open its bidding: one short of the opening bid may name a
        line but then cannot go on (rules-1840 *Naming a line*), so that move is never offered."""
        major = game.corporations[entity]
        if major.cash < LINE_MIN_BID or len(rules_of(game).lines_of(game, major)) >= MAX_LINES:
            return []
        return [{"corporation": sym} for sym in state(game).lines_offered]

    def dead_end_merge(self, game: Game, entity: Any) -> list[Option]:
        """The lines a major short of the opening bid may still name: it must then open the bidding and
        cannot, so only an undo follows (the 1840 game 218809, id 736, undone at once)."""
        major = game.corporations[entity]
        if major.cash >= LINE_MIN_BID or len(rules_of(game).lines_of(game, major)) >= MAX_LINES:
            return []
        why = f"{major.sym} has {major.cash}, less than the opening bid of {LINE_MIN_BID}, so it could not open the bidding"
        return [dead_end({"corporation": sym}, why) for sym in state(game).lines_offered]

    def offer_bid(self, game: Game, entity: Any) -> list[Option]:
        """The lowest bid on the line being auctioned, if the major can pay it (the checks of `bid`)."""
        major = game.corporations[entity]
        least = self.bids[-1][1] + LINE_BID_STEP if self.bids else LINE_MIN_BID
        if least > major.cash or len(rules_of(game).lines_of(game, major)) >= MAX_LINES:
            return []
        return [{"corporation": self.auctioning, "price": least}]

    def open_tram_turn(self, game: Game, index: int) -> bool:
        major, what = self.interrupt[index]
        corp = game.corporations[major]
        return bool(tram_buy_actions(game, corp) if what == "buy" else reassign_actions(game, corp))

    def turn(self, game: Game) -> int | None:
        """Which waiting tram turn acts now: the first major waiting for its reassignment if it has one to
        make, else the first waiting for its purchase step if it has something to do there (rules-1840
        *Ending*: the two queues are looked at in this order, each once)."""
        first = {}
        for i, (_, what) in enumerate(self.interrupt):
            first.setdefault(what, i)
        for what in ("reassign", "buy"):
            if what in first and self.open_tram_turn(game, first[what]):
                return first[what]
        return None

    def settle(self, game: Game) -> None:
        """After an action each of the two queues of tram turns is looked at once (rules-1840 *Ending*):
        the first major waiting to reassign with nothing to decide drops out, then the first waiting for
        its purchase step with nothing to buy or scrap moves on to its reassignment. Once the bidding is
        over (the offer restocked) the round ends when no waiting tram turn has anything to do, even if
        majors are still waiting: their turns lapse. Called once per action (FlowRound.process) and once
        when the round starts, never from the handlers, so that each queue is looked at once."""
        ahead = next((i for i, (_, what) in enumerate(self.interrupt) if what == "reassign"), None)
        if ahead is not None and not self.open_tram_turn(game, ahead):
            self.interrupt.pop(ahead)
        buyer = next((i for i, (_, what) in enumerate(self.interrupt) if what == "buy"), None)
        if buyer is not None and not self.open_tram_turn(game, buyer):
            self.interrupt[buyer] = (self.interrupt[buyer][0], "reassign")
        if self.restocked and self.turn(game) is None:
            self.interrupt = []
            self.done = True

    def merge(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        sym = action.get("corporation")
        if sym not in state(game).lines_offered:
            raise IllegalAction(f"line {sym!r} is not offered", "merge")
        self.auctioning = str(sym)

    def bid(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        major = game.corporations[action["entity"]]
        price = need_int(action, "price")
        if action.get("corporation") != self.auctioning:
            raise IllegalAction(f"{self.auctioning} is being auctioned", "bid")
        least = self.bids[-1][1] + LINE_BID_STEP if self.bids else LINE_MIN_BID
        if price < least:
            raise IllegalAction(f"the lowest bid is {least}", "bid_price")
        if price > major.cash and not self.bids:
            raise IllegalAction(f"{major.sym} named line {self.auctioning} and must open its bidding, but has only "
                                f"{major.cash} of the lowest bid {least}: take the nomination back (undo)",
                                "bid_price")
        if price > major.cash:
            raise IllegalAction(f"{major.sym} has only {major.cash}", "bid_price")
        if not self.bids:
            self.triggerer = major.sym
            self.bidders = [s for s in self.entities if s not in self.passed]
            self.bids = [(major.sym, price)]
        else:
            self.bids.append((major.sym, price))
        # majors that cannot pay the next lowest bid leave the auction; the last one left wins
        least = price + LINE_BID_STEP
        self.bidders = [s for s in self.bidders if s == major.sym or game.corporations[s].cash >= least]
        self.bids = [b for b in self.bids if b[0] in self.bidders]
        if len(self.bidders) == 1:
            self.resolve(game)

    def pass_(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        sym = action["entity"]
        turn = self.turn(game)
        if turn is not None:
            # the pass ends the acting major's step, which need not be the first one waiting
            major, what = self.interrupt[turn]
            if what == "buy":
                self.interrupt[turn] = (major, "reassign")
            else:
                self.interrupt.pop(turn)
            self.after_interrupt(game)
            return
        if self.auctioning is not None:
            self.bidders.remove(sym)
            if len(self.bidders) == 1:
                self.resolve(game)
            return
        self.passed.add(sym)
        if len(self.passed) == len(self.entities):
            self.all_passed(game)
            return
        self.next_entity(game)

    def after_interrupt(self, game: Game) -> None:
        if len(self.passed) == len(self.entities):
            self.all_passed(game)

    def resolve(self, game: Game) -> None:
        winner_sym, price = self.bids[-1]
        winner = game.corporations[winner_sym]
        line = game.corporations[str(self.auctioning)]
        game.pay(winner, None, price)
        line.ipoed = True
        line.floated = True
        for share in line.shares:
            line.give(share, POOL)
        state(game).owned_lines[winner_sym].append(line.sym)
        state(game).lines_offered.remove(line.sym)
        self.auctioning = None
        self.bids = []
        self.bidders = []
        self.passed.add(winner_sym)
        self.bought.add(winner_sym)
        self.interrupt.append((winner_sym, "buy"))
        assert self.triggerer is not None
        self.index = self.entities.index(self.triggerer)
        if self.triggerer in self.passed:
            self.next_entity(game)
        if len(self.passed) == len(self.entities):
            self.all_passed(game)

    def next_entity(self, game: Game) -> None:
        if len(self.passed) == len(self.entities):
            return
        for _ in range(len(self.entities)):
            self.index = (self.index + 1) % len(self.entities)
            if self.entities[self.index] not in self.passed:
                return

    def all_passed(self, game: Game) -> None:
        """Bidding is over: refill the offer (or close the unsold lines); then every major that won no line
        may still buy, scrap and reassign trams, in turn order."""
        if not self.restocked:
            self.restocked = True
            self.interrupt += [(sym, "buy") for sym in self.entities if sym not in self.bought]
            self.restock(game)
        self.done = not self.interrupt

    def restock(self, game: Game) -> None:
        rules = rules_of(game)
        st = state(game)
        if all(len(rules.lines_of(game, m)) >= MAX_LINES for m in rules.majors(game)):
            owned = {s for lines in st.owned_lines.values() for s in lines}
            for sym in st.lines_offered + st.lines_reserve:
                if sym not in owned:
                    game.corporations[sym].closed = True
            st.lines_offered = []
            st.lines_reserve = []
        else:
            count = len(game.players) + 1
            drawn = game.rng.shuffle(st.lines_reserve)[:count]
            st.lines_offered = st.lines_offered + drawn
            st.lines_reserve = [s for s in st.lines_reserve if s not in drawn]

    def buy_train(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        """A purchase ends the purchase step once no further tram can be bought (rules-1840 *Tram turn*)."""
        corp = game.corporations[action["entity"]]
        turn = self.turn(game)
        assert turn is not None  # process() let only the acting tram turn through
        buy_tram(game, corp, action)
        if self.interrupt[turn][1] != "buy" or not keeps_buying(game, corp):
            self.interrupt[turn] = (corp.sym, "reassign")
        self.after_interrupt(game)

    def scrap_train(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        scrap_tram(game, game.corporations[action["entity"]], action)
        self.after_interrupt(game)

    def reassign(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        turn = self.turn(game)
        assert turn is not None
        reassign_trams(game, game.corporations[action["entity"]], action)
        self.interrupt.pop(turn)
        self.after_interrupt(game)

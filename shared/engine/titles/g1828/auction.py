"""1828's opening waterfall auction of the private companies.

Privates are sold cheapest row first. A row (privates of equal face value) is only resolved once every
private in it carries a bid: a lone bid buys, several bids start an auction among those bidders (the lowest
bidder acts next). A player may buy the cheapest unbid private outright once the rest of its row is bid on.
When everybody passes in a row, all outstanding bids are resolved in order, the privates pay income once
(a "fake" operating round) and bidding starts over. Founding privates ($250) hand their buyer a 10% share
at once and the president's certificate after the buyer sets the par price.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.operating import pay_private_income
from ...core.rounds import Round, Step
from ...errors import IllegalAction, MalformedAction
from ...model import Company
from .state import state

if TYPE_CHECKING:
    from ...game import Game

MIN_INCREMENT = 5
FOUNDING_VALUE = 250
BID_RAISES = (0, MIN_INCREMENT, 5 * MIN_INCREMENT)  # offered bids: minimum, a nudge, a jump, all affordable


class AuctionRound(Round):
    kind = "Auction"

    def __init__(self, game: Game) -> None:
        super().__init__([PendingPar(), WaterfallAuction()])
        open_ = [c for c in game.companies.values() if not c.closed and c.owner is None]
        self.companies: list[str] = [c.sym for c in sorted(open_, key=lambda c: c.value)]
        self.bids: dict[str, list[tuple[int, int]]] = {}  # company -> [(player, price)] in bid order
        self.auctioning: str | None = None
        self.round_end = False
        self.pending_par: list[str] = []

    def start(self, game: Game) -> None:
        self.entities = [p.id for p in game.players_in_order()]
        for player in game.players:
            player.passed = False
        self.index = 0

    # -- who acts ------------------------------------------------------------------------------------------
    def active_auction(self) -> str | None:
        if self.auctioning is not None and len(self.bids.get(self.auctioning, [])) > 1:
            return self.auctioning
        return None

    def current_entity(self, game: Game) -> Any:
        if self.pending_par:
            return game.companies[self.pending_par[0]].owner
        company = self.active_auction()
        if company is not None:
            return min(self.bids[company], key=lambda b: b[1])[0]
        if not self.companies:
            return None
        return self.entities[self.index]

    def finished(self, game: Game) -> bool:
        return not self.pending_par and not self.companies

    def after_process(self, game: Game, action: dict[str, Any]) -> None:
        pass

    def next_index(self) -> None:
        self.index = (self.index + 1) % len(self.entities)

    # -- money ---------------------------------------------------------------------------------------------
    def committed(self, player: int) -> int:
        return sum(price for bids in self.bids.values() for pid, price in bids if pid == player)

    def current_bid(self, player: int, company: str) -> int:
        return next((price for pid, price in self.bids.get(company, []) if pid == player), 0)

    def max_bid(self, game: Game, player: int, company: str) -> int:
        return game.player(player).cash - self.committed(player) + self.current_bid(player, company)

    # -- rows ----------------------------------------------------------------------------------------------
    def rest_of_row_has_bids(self, game: Game, company: str) -> bool:
        value = game.companies[company].value
        return all(self.bids.get(c) for c in self.companies if c != company and game.companies[c].value == value)

    def may_purchase(self, game: Game, company: str) -> bool:
        first = game.companies[self.companies[0]]
        if first.value != game.companies[company].value or self.bids.get(company):
            return False
        return self.rest_of_row_has_bids(game, company)

    def min_bid(self, game: Game, company: str) -> int:
        value = game.companies[company].value
        if self.may_purchase(game, company):
            return value
        bids = self.bids.get(company, [])
        high = max((price for _, price in bids), default=None)
        return (high if high is not None else value) + MIN_INCREMENT

    def bid_options(self, game: Game, player: int) -> list[dict[str, Any]]:
        """The bids `player` may make now, at their meaningful prices: the minimum, a nudge and a jump above
        it, and as much as the player can commit (an outright purchase is at face value)."""
        active = self.active_auction()
        out: list[dict[str, Any]] = []
        for sym in [active] if active is not None else self.companies:
            high = self.max_bid(game, player, sym)
            if active is None and self.may_purchase(game, sym):
                low = game.companies[sym].value
                prices = {low}
            else:
                low = self.min_bid(game, sym)
                prices = {low + raise_ for raise_ in BID_RAISES}
                prices.add(low + (high - low) // MIN_INCREMENT * MIN_INCREMENT)
            out.extend({"company": sym, "price": p} for p in sorted(prices) if low <= p <= high)
        return out

    # -- resolution ----------------------------------------------------------------------------------------
    def resolve_bids(self, game: Game) -> None:
        if self.round_end:
            for company in list(self.companies):
                self.resolve_company(game, company)
                if self.auctioning == company:
                    break
            if not any(self.bids.values()):
                self.round_end = False
                pay_private_income(game)
                for player in game.players:
                    player.passed = False
            return
        while self.companies:
            if not self.resolve_company(game, self.companies[0]):
                break

    def resolve_company(self, game: Game, company: str) -> bool:
        if not self.round_end and not self.rest_of_row_has_bids(game, company):
            return False
        self.auctioning = None
        bids = self.bids.get(company, [])
        if len(bids) == 1:
            player, price = bids[0]
            del self.bids[company]
            self.buy(game, player, company, price)
            return True
        if len(bids) > 1 and (self.round_end or company == self.companies[0]):
            self.auctioning = company
        return False

    def buy(self, game: Game, player_id: int, sym: str, price: int) -> None:
        player = game.player(player_id)
        company = game.companies[sym]
        if self.max_bid(game, player_id, sym) < price:
            raise IllegalAction(f"{player.name} cannot pay {price} for {sym}", "cash")
        company.owner = player.id
        player.companies.append(sym)
        game.pay(player, None, price)
        self.companies.remove(sym)
        self.after_buy_company(game, player_id, company)

    def after_buy_company(self, game: Game, player: int, company: Company) -> None:
        for ability in company.abilities:
            if ability.get("type") != "shares":
                continue
            ids = ability["shares"] if isinstance(ability["shares"], list) else [ability["shares"]]
            for share_id in ids:
                sym, _, index = share_id.rpartition("_")
                corp = game.corporations[sym]
                share = corp.shares[int(index)]
                if share.president:
                    self.pending_par.append(company.sym)
                else:
                    corp.give(share, player)
        minor = game.corporations.get(company.sym)
        if minor is not None and minor.kind == "minor":
            minor.floated = True
            state(game).minor_owner[minor.sym] = player


class PendingPar(Step):
    """The buyer of a founding private sets its corporation's par price before anything else happens."""

    handlers = {"par": "par"}
    offers = {"par": "offer_par"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, AuctionRound)
        return ["par"] if round_.pending_par and entity == round_.current_entity(game) else []

    def blocking(self, game: Game, round_: Round) -> bool:
        assert isinstance(round_, AuctionRound)
        return bool(round_.pending_par)

    def offer_par(self, game: Game, round_: AuctionRound, entity: int) -> list[dict[str, Any]]:
        """Every open par price for the founding private's own corporation (the certificate is free)."""
        company = game.companies[round_.pending_par[0]]
        ability = next(a for a in company.abilities if a.get("type") == "shares")
        target = ability["shares"][0].rpartition("_")[0]
        return [{"corporation": target, "share_price": cell.id} for cell in game.rules.par_cells(game)]

    def par(self, game: Game, round_: AuctionRound, action: dict[str, Any], trusted: bool) -> None:
        company = game.companies[round_.pending_par[0]]
        ability = next(a for a in company.abilities if a.get("type") == "shares")
        target = ability["shares"][0].rpartition("_")[0]
        corp = game.corporation(action.get("corporation"))
        if corp.sym != target:
            raise IllegalAction(f"{company.sym} starts {target}, not {corp.sym}", "par_corporation")
        player = game.player(action["entity"])
        cell = game.market.parse_cell(action.get("share_price"))
        # the president's certificate is free here, so the buyer's cash does not limit the par price
        if cell.price not in [c.price for c in game.rules.par_cells(game)]:
            raise IllegalAction(f"{cell.price} is not an available par price for {player.name}", "par_price")
        corp.par_price = cell.price
        corp.share_cell = (cell.row, cell.column)
        corp.ipoed = True
        # it arrives in its cell now: among corporations of one cell the first to arrive operates first
        game.rules.arrival(game, corp)  # type: ignore[attr-defined]
        corp.give(corp.shares[0], player.id)
        round_.pending_par.pop(0)


class WaterfallAuction(Step):
    handlers = {"bid": "bid", "pass": "pass_"}
    offers = {"bid": "offer_bid", "pass": "offer_pass"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, AuctionRound)
        if not round_.companies or entity != round_.current_entity(game):
            return []
        return ["bid", "pass"] if round_.bid_options(game, entity) else ["pass"]

    def offer_bid(self, game: Game, round_: AuctionRound, entity: int) -> list[dict[str, Any]]:
        return round_.bid_options(game, entity)

    def bid(self, game: Game, round_: AuctionRound, action: dict[str, Any], trusted: bool) -> None:
        pid = action["entity"]
        sym, price = action.get("company"), action.get("price")
        if not isinstance(price, int) or not isinstance(sym, str):
            raise MalformedAction("a bid names a company and an integer price", "bid_shape")
        if sym not in round_.companies:
            raise IllegalAction(f"{sym} is not up for auction", "bid_company")
        player = game.player(pid)
        player.passed = False
        active = round_.active_auction()
        if active is not None:
            if sym != active:
                raise IllegalAction(f"only {active} may be bid on now", "bid_company")
            self.add_bid(game, round_, pid, sym, price)
            return
        if round_.may_purchase(game, sym):
            if price < game.companies[sym].value:
                raise IllegalAction(f"{sym} costs at least {game.companies[sym].value}", "bid_price")
            round_.buy(game, pid, sym, price)
            round_.resolve_bids(game)
        else:
            self.add_bid(game, round_, pid, sym, price)
            if game.companies[sym].value == FOUNDING_VALUE:
                round_.bids[sym] = [b for b in round_.bids[sym] if b[0] == pid]
        round_.next_index()

    def add_bid(self, game: Game, round_: AuctionRound, pid: int, sym: str, price: int) -> None:
        low = round_.min_bid(game, sym)
        if price < low:
            raise IllegalAction(f"the minimum bid for {sym} is {low}", "bid_price")
        if (price - low) % MIN_INCREMENT:
            raise IllegalAction(f"bids rise in steps of {MIN_INCREMENT}", "bid_increment")
        most = round_.max_bid(game, pid, sym)
        if price > most:
            raise IllegalAction(f"{game.player(pid).name} can bid at most {most}", "bid_cash")
        bids = [b for b in round_.bids.get(sym, []) if b[0] != pid]
        bids.append((pid, price))
        round_.bids[sym] = bids

    def pass_(self, game: Game, round_: AuctionRound, action: dict[str, Any], trusted: bool) -> None:
        pid = action["entity"]
        active = round_.active_auction()
        if active is not None:
            round_.bids[active] = [b for b in round_.bids[active] if b[0] != pid]
            round_.resolve_bids(game)
            return
        game.player(pid).passed = True
        if all(game.player(p).passed for p in round_.entities):
            round_.round_end = True
            round_.resolve_bids(game)
        round_.next_index()

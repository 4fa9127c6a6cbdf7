"""The stock round's step: a player in his turn buys, sells and starts corporations (`BuySellParShares`), and
the shared rules it asks (the certificate limit, the float). The round itself is in `stockround.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import EngineError, IllegalAction, MalformedAction
from ..model import POOL, Company, Corporation, Player, Share
from .rounds import Round, Step
from .shares import Bundle, parse_bundle, share_unit
from .stockround import StockRound

if TYPE_CHECKING:
    from ..protocol import Game
    from .market import Cell

UNLIMITED_CERTS = 99  # the data writes "no certificate limit" (1828) as 99


def below_cert_limit(game: Game, player: Player) -> bool:
    """Room for one more certificate (cheap when the title has no limit)."""
    limit = game.rules.cert_limit(game)
    return limit >= UNLIMITED_CERTS or game.num_certs(player) < limit


def check_float(game: Game, corp: Corporation) -> None:
    """The shared float rule: a started corporation floats once its float percentage is out of its treasury;
    a fully capitalised one then receives ten times its par price."""
    if corp.floated or not corp.ipoed:
        return
    sold = 100 - corp.treasury_percent
    if sold < corp.float_percent:
        return
    corp.floated = True
    if corp.capitalization == "full":
        assert corp.par_price is not None
        game.pay(None, corp, corp.par_price * 10)


class BuySellParShares(Step):
    handlers = {
        "buy_shares": "buy_shares",
        "sell_shares": "sell_shares",
        "par": "par",
        "buy_company": "buy_company",
        "sell_company": "sell_company",
        "pass": "pass_turn",
    }
    offers = {
        "buy_shares": "offer_buy_shares",
        "sell_shares": "offer_sell_shares",
        "par": "offer_par",
        "buy_company": "offer_buy_company",
        "sell_company": "offer_sell_company",
        "pass": "offer_pass",
    }

    # a player may not sell a corporation in the turn he bought or started it
    no_sell_after_buy_same_corp = False
    # a director may sell his certificate to the market (else only to a player who takes the presidency over)
    president_sales_to_market = False

    # while `actions` runs (nothing moves): the player's certificate count, asked once per candidate share,
    # and whether the turn has bought (`StockRound.bought` reads the turn's moves), asked as often
    _certs: dict[int, int] | None = None
    _bought: tuple[list[dict[str, Any]], int, bool] | None = None

    # -- the rules a title's step changes (each the shared 18xx answer) -------------------------------------
    def sell_allowed_this_round(self, game: Game) -> bool:
        """Whether shares may be sold in this stock round: the title's data says from which round on."""
        return game.rules.rule(game, "SELL_AFTER", "first") != "first" or game.turn > 1

    def can_start(self, game: Game, corp: Corporation) -> bool:
        """Whether `corp` may be started (its director's certificate bought) now."""
        return True

    def par_prices(self, game: Game, corp: Corporation, player: Player) -> list[Cell]:
        """The cells `player` may start `corp` on."""
        return game.market.par_cells()

    def ipo_share_buyable(self, game: Game, corp: Corporation, share: Share) -> bool:
        """Whether this certificate of the corporation's treasury is for sale now."""
        return True

    def companies_for_sale(self, game: Game) -> list[Company]:
        """The privates the bank sells in the stock round."""
        return []

    def company_purchase_open(self, game: Game, round_: StockRound, player: Player) -> bool:
        """Whether `buy_company` is among the player's options (which keeps him in the turn order)."""
        return bool(self.buyable_companies(game, round_, player))

    def can_sell_companies(self, game: Game, round_: StockRound, player: Player) -> bool:
        """Whether the player may sell a private to the bank now."""
        return False

    def company_sale_price(self, game: Game, company: Company) -> int:
        return company.value

    def after_buy_shares(self, game: Game, corp: Corporation) -> None:
        """What a purchase or a start does next: the corporation floats once enough is sold."""
        check_float(game, corp)

    def after_buy_company(self, game: Game, company: Company) -> None:
        pass

    def after_sell_company(self, game: Game, company: Company) -> None:
        pass

    # -- what may the player do? ---------------------------------------------------------------------------
    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, StockRound)
        if entity != round_.current_entity(game) or not isinstance(entity, int):
            return []
        outer, self._certs = self._certs, {}
        outer_bought, self._bought = self._bought, None
        try:
            return self._actions(game, round_, game.player(entity))
        finally:
            self._certs, self._bought = outer, outer_bought

    def num_certs(self, game: Game, player: Player) -> int:
        """`game.num_certs`, counted once per enumeration of the player's actions."""
        memo = self._certs
        if memo is None:
            return game.num_certs(player)
        count = memo.get(player.id)
        if count is None:
            count = memo[player.id] = game.num_certs(player)
        return count

    def bought(self, round_: StockRound) -> bool:
        """`round_.bought()`, worked out once per enumeration of the player's actions for the turn's list of
        moves as it stands (a title may look at the turn through another list for a moment: 1828's double
        purchase), so asked again whenever that list is another one or has grown."""
        if self._certs is None:  # not enumerating: the turn may have moved since
            return round_.bought()
        moves = round_.turn_actions
        known = self._bought
        if known is None or known[0] is not moves or known[1] != len(moves):
            known = self._bought = (moves, len(moves), round_.bought())
        return known[2]

    def _actions(self, game: Game, round_: StockRound, player: Player) -> list[str]:
        if self.must_sell(game, player):
            out = ["sell_shares"] if self.sellable_bundles(game, round_, player, first=True) else []
            if out and self.can_sell_companies(game, round_, player):
                out.append("sell_company")
            return out
        out = []
        if self.buyable_shares(game, round_, player, first=True):
            out.append("buy_shares")
        if self.parable(game, round_, player):
            out.append("par")
        if self.company_purchase_open(game, round_, player):
            out.append("buy_company")
        if self.sellable_bundles(game, round_, player, first=True):
            out.append("sell_shares")
        if self.can_sell_companies(game, round_, player) and self._may_sell_now(game, round_):
            out.append("sell_company")
        if out or self.director_certificate_in_reach(game, round_, player):
            out.append("pass")
        return out

    def director_certificate_in_reach(self, game: Game, round_: StockRound, player: Player) -> bool:
        """Rule (docs/rules-1825.md, "A director's certificate in the market keeps the turn open"): where a
        director may sell his certificate to the market, a player's turn does not end by itself while the
        market's only certificate of some corporation is its director's certificate and he could pay for it
        and hold it (not bought this turn, not sold that corporation this round); he must pass."""
        if not self.president_sales_to_market or self.bought(round_):
            return False
        for corp in game.corporations.values():
            pooled = [s for s in corp.shares if s.owner == POOL]
            if not corp.ipoed or corp.closed or not pooled or not all(s.president for s in pooled):
                continue
            if round_.sold.get(player.id, {}).get(corp.sym):
                continue
            share = pooled[0]
            if player.cash >= self.share_cost(game, corp, share) and self.room_for_cert(game, player, corp) \
                    and corp.percent_owned_by(player.id) + share.percent <= corp.max_ownership_percent:
                return True
        return False

    def must_sell(self, game: Game, player: Player) -> bool:
        limit = game.rules.cert_limit(game)
        return limit < UNLIMITED_CERTS and self.num_certs(game, player) > limit

    def _may_sell_now(self, game: Game, round_: StockRound) -> bool:
        return self.sell_allowed_this_round(game)

    def room_for_cert(self, game: Game, player: Player, corp: Corporation) -> bool:
        limit = game.rules.cert_limit(game)
        if limit >= UNLIMITED_CERTS:
            return True
        cell = game.market.cell(corp.share_cell) if corp.share_cell is not None else None
        if cell is not None and "no_cert_limit" in cell.types:
            return True
        return self.num_certs(game, player) < limit

    def examines_buy_order(self, game: Game, round_: StockRound, player: Player, types: list[str]) -> bool:
        """Whether a standing buy order is looked at in this turn of its owner (docs/standing-orders.md S5):
        when a purchase is among his moves. A title whose stock turn counts a purchase as open where its
        rules offer none (1840's start obligation) says so here; the order then finds nothing to buy and is
        cleared, as 18xx.games clears it."""
        return "buy_shares" in types

    def can_buy(self, game: Game, round_: StockRound, player: Player, share: Share) -> str | None:
        """None when the purchase is allowed, else the reason."""
        corp = game.corporations[share.corporation]
        if self.bought(round_):
            return "only one purchase per turn"
        if not corp.ipoed:
            return f"{corp.sym} has not been started"
        if corp.closed:
            return f"{corp.sym} is closed"
        if share.owner == corp.sym:
            if not self.ipo_share_buyable(game, corp, share):
                return f"{share.id} is not the next certificate for sale"
        elif share.owner != POOL:
            return f"{share.id} is not for sale"
        if share.president:
            return "the director's certificate is only bought by starting the corporation"
        if round_.sold.get(player.id, {}).get(corp.sym):
            return f"{player.name} sold {corp.sym} this round and may not buy it back"
        price = self.share_cost(game, corp, share)
        if player.cash < price:
            return f"{player.name} has {player.cash}, the share costs {price}"
        return self.limit_refusal(game, player, corp, share)

    def limit_refusal(self, game: Game, player: Player, corp: Corporation, share: Share) -> str | None:
        """Why taking `share` would break a holding limit (the certificate limit, the most of one
        corporation a player may hold), or None."""
        if not self.room_for_cert(game, player, corp):
            return f"{player.name} is at the certificate limit ({game.rules.cert_limit(game)})"
        if corp.percent_owned_by(player.id) + share.percent > corp.max_ownership_percent:
            return f"{player.name} may hold at most {corp.max_ownership_percent}% of {corp.sym}"
        return None

    def share_cost(self, game: Game, corp: Corporation, share: Share) -> int:
        per10 = corp.par_price if share.owner == corp.sym else game.share_price(corp)
        assert per10 is not None
        return per10 * share.percent // 10

    def buyable_shares(self, game: Game, round_: StockRound, player: Player, *, first: bool = False) -> list[Share]:
        """Distinct certificates the player may buy now (`first`: stop at the first one found)."""
        out: list[Share] = []
        for corp in game.corporations.values():
            if self.closed_to(game, round_, player, corp):
                continue
            seen: set[tuple[Any, int]] = set()
            # certificates alike (same holder, same size) cost the same: one the player cannot pay for
            # rules out the rest unasked (every title's price needs the par and the share price)
            priced = corp.par_price is not None and game.share_price(corp) is not None
            for share in corp.shares:
                key = (share.owner, share.percent)
                if key in seen or share.president or share.owner not in (corp.sym, POOL):
                    continue
                if priced and player.cash < self.share_cost(game, corp, share):
                    seen.add(key)
                    continue
                if self.can_buy(game, round_, player, share) is None:
                    seen.add(key)
                    out.append(share)
                    if first:
                        return out
        return out

    def closed_to(self, game: Game, round_: StockRound, player: Player, corp: Corporation) -> bool:
        """True only when `can_buy` refuses the player every certificate of `corp` now, whichever it is: the
        search for buyable shares then looks at none of them (it runs after every stock action, and after
        a purchase would otherwise hear "one purchase per turn" once per certificate). A title whose
        `can_buy` lifts one of these refusals narrows this to match."""
        return corp.closed or not corp.ipoed or self.bought(round_)

    def parable(self, game: Game, round_: StockRound, player: Player) -> list[Corporation]:
        if self.bought(round_):
            return []
        limit = game.rules.cert_limit(game)
        if limit < UNLIMITED_CERTS and self.num_certs(game, player) >= limit:
            return []  # below_cert_limit, asked once rather than once per corporation
        return [c for c in game.corporations.values()
                if not c.ipoed and not c.closed and self.can_start(game, c)
                and self.par_prices(game, c, player)]

    def buyable_companies(self, game: Game, round_: StockRound, player: Player) -> list[Any]:
        if self.bought(round_) or player.cash <= 0 or not below_cert_limit(game, player):
            return []
        return [c for c in self.companies_for_sale(game) if c.value <= player.cash]

    def sellable_bundles(self, game: Game, round_: StockRound, player: Player, *, first: bool = False
                         ) -> list[Corporation]:
        """The corporations the player may sell shares of now (`first`: stop at the first one found)."""
        if not self._may_sell_now(game, round_):
            return []
        out = []
        for corp in game.corporations.values():
            if corp.percent_owned_by(player.id) and self.can_sell(game, round_, player, corp) is None:
                out.append(corp)
                if first:
                    break
        return out

    def can_sell(self, game: Game, round_: StockRound, player: Player, corp: Corporation,
                 bundle: Bundle | None = None) -> str | None:
        if not self.sell_allowed_this_round(game):
            return "no shares may be sold in the first stock round"
        if corp.share_cell is None:
            return f"{corp.sym} has no share price yet"
        last = round_.turn_actions[-1] if round_.turn_actions else None
        if last is not None and last["type"] in ("buy_shares", "par") and \
                self.no_sell_after_buy_same_corp and self._action_corp(last) == corp.sym:
            return f"{player.name} just bought {corp.sym} and may not sell it in the same turn"
        if bundle is not None:
            pool_after = corp.percent_owned_by(POOL) + bundle.percent
            if pool_after > game.rules.market_share_limit(game):
                return f"the market may hold at most {game.rules.market_share_limit(game)}% of {corp.sym}"
            if bundle.includes_president and not self.president_sales_to_market:
                others = max((corp.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
                if others < corp.shares[0].percent:
                    return "nobody can take over as director"
        else:
            held = [s for s in corp.shares if s.owner == player.id]
            if not held:
                return f"{player.name} holds no {corp.sym}"
            if all(s.president for s in held) and not self.president_sales_to_market:
                return "only the director's certificate is held"
        return None

    # -- the concrete moves of each open type ---------------------------------------------------------------
    def offer_buy_shares(self, game: Game, round_: StockRound, entity: int) -> list[dict[str, Any]]:
        player = game.player(entity)
        return [{"shares": [s.id], "percent": s.percent} for s in self.buyable_shares(game, round_, player)]

    def offer_par(self, game: Game, round_: StockRound, entity: int) -> list[dict[str, Any]]:
        player = game.player(entity)
        out = []
        for corp in self.parable(game, round_, player):
            for cell in self.par_prices(game, corp, player):
                if cell.price * corp.shares[0].percent // 10 <= player.cash:
                    out.append({"corporation": corp.sym, "share_price": cell.id})
        return out

    def offer_sell_shares(self, game: Game, round_: StockRound, entity: int) -> list[dict[str, Any]]:
        """Per corporation: one to all of the player's ordinary certificates, and, where a director may sell
        to the market, everything including the director's certificate (a title where part of that
        certificate may be sold offers those sales in its own step: 1825)."""
        player = game.player(entity)
        out = []
        for corp in game.corporations.values():
            held = sorted((s for s in corp.shares if s.owner == player.id), key=lambda s: (s.president, s.stamp))
            ordinary = [s for s in held if not s.president]
            bundles = [Bundle(corp, ordinary[:n], sum(s.percent for s in ordinary[:n]))
                       for n in range(1, len(ordinary) + 1)]
            if len(held) > len(ordinary) and self.president_sales_to_market:
                bundles.append(Bundle(corp, held, sum(s.percent for s in held)))
            elif len(held) > len(ordinary):
                bundles += self.presidency_sales(game, player, corp, held, ordinary)
            for bundle in bundles:
                if self.can_sell(game, round_, player, corp, bundle) is None:
                    out.append({"shares": [s.id for s in bundle.shares], "percent": bundle.percent})
        return out

    @staticmethod
    def presidency_sales(game: Game, player: Player, corp: Corporation, held: list[Share],
                         ordinary: list[Share]) -> list[Bundle]:
        """Sales that hand the presidency over, where the director's certificate never goes to the market on
        its own: the certificate with any number of the seller's ordinary ones, all of it or all but part of
        the certificate (the new president swaps his shares for it), when another player then holds more
        than the seller keeps. A sale that leaves the seller the largest holder keeps him president, so it
        is one of his ordinary certificates and offered as that."""
        president = next(s for s in held if s.president)
        unit = share_unit(corp)
        total_held = sum(s.percent for s in held)
        others = max((corp.percent_owned_by(p.id) for p in game.players if p.id != player.id), default=0)
        out = []
        for n in range(len(ordinary) + 1):
            shares = ordinary[:n] + [president]
            whole = sum(s.percent for s in shares)
            for percent in range(whole - president.percent + unit, whole + 1, unit):
                if others > total_held - percent:
                    out.append(Bundle(corp, shares, percent))
        return out

    def offer_buy_company(self, game: Game, round_: StockRound, entity: int) -> list[dict[str, Any]]:
        player = game.player(entity)
        return [{"company": c.sym, "price": c.value} for c in self.buyable_companies(game, round_, player)]

    def offer_sell_company(self, game: Game, round_: StockRound, entity: int) -> list[dict[str, Any]]:
        player = game.player(entity)
        return [{"company": sym, "price": self.company_sale_price(game, game.companies[sym])}
                for sym in player.companies if not game.companies[sym].closed]

    @staticmethod
    def _action_corp(action: dict[str, Any]) -> str | None:
        if action["type"] == "par":
            return action.get("corporation")
        shares = action.get("shares") or []
        return shares[0].rpartition("_")[0] if shares else None

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        """Run the handler's own checks on a throw-away copy to name the rule that closes this action."""
        kind = action["type"]
        if kind not in ("buy_shares", "sell_shares", "par", "buy_company", "sell_company"):
            return None
        if kind in ("sell_shares", "sell_company") and not self.sell_allowed_this_round(game):
            return IllegalAction("no shares or privates may be sold in the first stock round", "sell_first_round")
        trial = game.trial()
        round_ = trial.round
        assert isinstance(round_, Round)  # the game protocol's round is core's `Round` at run time
        step = next(s for s in round_.steps if isinstance(s, BuySellParShares))
        try:
            step.process(trial, round_, action, False)
        except EngineError as err:
            return err
        return None

    # -- doing it -----------------------------------------------------------------------------------------
    def buy_shares(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        player = game.player(action["entity"])
        bundle = parse_bundle(game.corporations, action.get("shares"), action.get("percent"))
        if len(bundle.shares) != 1 or bundle.percent != bundle.shares[0].percent:
            raise IllegalAction("buy one certificate at a time", "one_share_per_turn")
        share = bundle.shares[0]
        reason = self.can_buy(game, round_, player, share)
        if reason:
            raise IllegalAction(f"cannot buy {share.id}: {reason}", "buy_shares")
        corp = bundle.corporation
        from_ipo = share.owner == corp.sym
        price = self.share_cost(game, corp, share)
        receiver = corp if (from_ipo and corp.capitalization == "incremental") else None
        game.pay(player, receiver, price)
        game.transfer_shares(bundle, player.id)
        self.after_buy_shares(game, corp)

    def par(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        player = game.player(action["entity"])
        corp = game.corporation(action.get("corporation"))
        cell = game.market.parse_cell(action.get("share_price"))
        if self.bought(round_):
            raise IllegalAction("only one purchase per turn", "one_share_per_turn")
        if corp.ipoed:
            raise IllegalAction(f"{corp.sym} has already been started", "par_started")
        if not self.can_start(game, corp):
            raise IllegalAction(f"{corp.sym} is not available to start yet", "par_unavailable")
        cost = cell.price * corp.shares[0].percent // 10
        if player.cash < cost:
            raise IllegalAction(f"{player.name} has {player.cash}, the director's certificate costs {cost}", "cash")
        if cell.price not in [c.price for c in self.par_prices(game, corp, player)]:
            raise IllegalAction(f"{cell.price} is not a par price {corp.sym} may start at", "par_price")
        if not below_cert_limit(game, player):
            raise IllegalAction(f"{player.name} is at the certificate limit", "cert_limit")
        corp.par_price = cell.price
        corp.share_cell = (cell.row, cell.column)
        corp.ipoed = True
        receiver = corp if corp.capitalization == "incremental" else None
        game.pay(player, receiver, cost)
        game.transfer_shares(Bundle(corp, [corp.shares[0]], corp.shares[0].percent), player.id)
        self.after_buy_shares(game, corp)

    def sell_shares(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        player = game.player(action["entity"])
        bundle = self.sale_bundle(game, action)
        corp = bundle.corporation
        for share in bundle.shares:
            if share.owner != player.id:
                raise IllegalAction(f"{player.name} does not hold {share.id}", "sell_not_owned")
        reason = self.can_sell(game, round_, player, corp, bundle)
        if reason:
            raise IllegalAction(f"cannot sell {corp.sym}: {reason}", "sell_shares")
        round_.sold.setdefault(player.id, {})[corp.sym] = "now"
        self.sell(game, player, bundle)

    def sale_bundle(self, game: Game, action: dict[str, Any]) -> Bundle:
        """The certificates a sale names (a part of the president's certificate among them where the title
        lets him sell one: `move_sold`)."""
        return parse_bundle(game.corporations, action.get("shares"), action.get("percent"))

    def sell(self, game: Game, player: Player, bundle: Bundle) -> None:
        """What a checked sale does: the seller is paid the market price, the certificates move, the price
        moves."""
        price = game.share_price(bundle.corporation)
        assert price is not None
        game.pay(None, player, price * bundle.percent // 10)
        self.move_sold(game, player, bundle)
        self.price_after_sale(game, bundle.corporation, bundle)

    def price_after_sale(self, game: Game, corp: Corporation, bundle: Bundle) -> None:
        """What a stock-round sale does to the price: the title's step says (1840 drops it a row a share);
        titles whose sales outside the stock round move the price the same way keep it in their rules hook."""
        game.rules.after_sell_shares(game, corp, bundle)

    def move_sold(self, game: Game, player: Player, bundle: Bundle) -> None:
        """Where sold certificates go: the market. Titles that let a president sell part of his certificate
        (1825, 1828) swap certificates here."""
        game.transfer_shares(bundle, POOL, seller=player.id)

    def buy_company(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        player = game.player(action["entity"])
        company = game.company(action.get("company"))
        price = action.get("price")
        if not isinstance(price, int):
            raise MalformedAction("buy_company needs an integer price", "price")
        if company not in self.buyable_companies(game, round_, player):
            raise IllegalAction(f"{company.sym} is not for sale to {player.name} now", "buy_company")
        if price != company.value:
            raise IllegalAction(f"{company.sym} costs {company.value}, not {price}", "company_price")
        game.pay(player, None, price)
        company.owner = player.id
        player.companies.append(company.sym)
        self.after_buy_company(game, company)

    def sell_company(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        player = game.player(action["entity"])
        company = game.company(action.get("company"))
        if company.owner != player.id:
            raise IllegalAction(f"{player.name} does not own {company.sym}", "sell_company")
        price = self.company_sale_price(game, company)
        if action.get("price") not in (None, price):
            raise IllegalAction(f"{company.sym} sells for {price}", "company_price")
        game.pay(None, player, price)
        player.companies.remove(company.sym)
        company.owner = None
        self.after_sell_company(game, company)

    def pass_turn(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        self._pass(game, round_)

    def skip(self, game: Game, round_: Round) -> None:
        assert isinstance(round_, StockRound)
        self._pass(game, round_)

    def _pass(self, game: Game, round_: StockRound) -> None:
        self.passed = True
        player = game.player(round_.current_entity(game))
        player.passed = not round_.turn_counts_as_action()

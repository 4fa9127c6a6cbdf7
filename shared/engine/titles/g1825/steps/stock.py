"""1825's stock-round step: the shared buy/sell/par step with 1825's rules for each action.

- Starting: a major starts at its fixed par, a minor at a price whose ten shares pay for the train it sets
  aside (`par_prices`); a corporation forms when it floats (a major) or pays for that train (a minor):
  `check_formation`.
- Buying: the privates are sold cheapest first, then those sold back to the bank; a player keeps his turn
  while one is unsold (`company_purchase_open`); the director's certificate may be bought back from the
  market (`director_purchase_refusal`).
- Selling: no sale of what was bought this turn; a director may sell his certificate, or part of it
  (`sales.sell_to_pool`); privates sell to the bank from the second stock round at their value less a fee,
  and are not bought back by their seller in the same round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.shares import Bundle, parse_bundle
from ....core.stock import BuySellParShares, check_float
from ....core.stockround import StockRound
from ....errors import IllegalAction
from ....model import POOL, Company, Corporation, Player, Share, Train
from ..sales import ordinary_unit, partial_director_bundles, sell_to_pool
from ..state import state

if TYPE_CHECKING:
    from ....core.market import Cell
    from ....game import Game


class BuySellParShares1825(BuySellParShares):
    """The shared stock-round step, selling through `sell_to_pool`.

    Rule (docs/rules-1825.md, "No buying back a private sold this round"): a private a player sells to the
    bank in a stock round is not for sale to him again until the next stock round (others may buy it)."""

    no_sell_after_buy_same_corp = True
    president_sales_to_market = True

    def __init__(self) -> None:
        super().__init__()
        # player -> privates he sold to the bank in this stock round (a new step serves each stock round)
        self.sold_companies: dict[int, set[str]] = {}

    # -- starting and forming -------------------------------------------------------------------------------
    def can_start(self, game: Game, corp: Corporation) -> bool:
        # The digest opens corporations band by band, but the recorded games (which win for 1825) show the
        # reference accepting a start in any band; `Rules1825.current_band` stays for display. See
        # docs/conflicts-1825.md #1.
        return True

    def par_prices(self, game: Game, corp: Corporation, player: Player) -> list[Cell]:
        return par_prices(game, corp, player)

    def after_buy_shares(self, game: Game, corp: Corporation) -> None:
        check_float(game, corp)
        check_formation(game, corp)

    # -- privates ---------------------------------------------------------------------------------------------
    def sold_company(self, player: Player, sym: str) -> bool:
        return sym in self.sold_companies.get(player.id, ())

    def companies_for_sale(self, game: Game) -> list[Company]:
        unbought = [c for c in game.companies.values() if c.owner is None and not c.closed]
        if unbought:
            return [min(unbought, key=lambda c: c.value)]
        return [c for c in game.companies.values() if c.owner == "bank" and not c.closed]

    def company_purchase_open(self, game: Game, round_: StockRound, player: Player) -> bool:
        # The option stays open while any private is unsold, whatever the player's cash (so such a player
        # keeps his turn and must pass); which private and at what price is checked when he buys.
        # A private the player sold to the bank this round does not count (docs/rules-1825.md, "No buying back
        # a private sold this round").
        return (not round_.bought() and player.cash > 0 and game.num_certs(player) < game.rules.cert_limit(game)
                and any(c.owner in (None, "bank") and not c.closed and not self.sold_company(player, c.sym)
                        for c in game.companies.values()))

    def buyable_companies(self, game: Game, round_: StockRound, player: Player) -> list[Any]:
        return [c for c in super().buyable_companies(game, round_, player) if not self.sold_company(player, c.sym)]

    def buy_company(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        sym = action.get("company")
        player = game.player(action["entity"])
        if isinstance(sym, str) and self.sold_company(player, sym):
            raise IllegalAction(f"{player.name} sold {sym} in this stock round and may not buy it back before "
                                "the next one", "buy_back_company")
        super().buy_company(game, round_, action, trusted)

    def can_sell_companies(self, game: Game, round_: StockRound, player: Player) -> bool:
        return game.turn > 1 and bool(player.companies) and not round_.bought()

    def company_sale_price(self, game: Game, company: Company) -> int:
        return company.value - int(game.rules.rule(game, "COMPANY_SALE_FEE", 30))

    def sell_company(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        super().sell_company(game, round_, action, trusted)
        self.sold_companies.setdefault(action["entity"], set()).add(str(action.get("company")))

    def after_sell_company(self, game: Game, company: Company) -> None:
        company.owner = "bank"

    # -- selling shares -------------------------------------------------------------------------------------
    def move_sold(self, game: Game, player: Player, bundle: Bundle) -> None:
        sell_to_pool(game, player, bundle)

    def offer_sell_shares(self, game: Game, round_: StockRound, entity: int) -> list[dict[str, Any]]:
        """The shared step's sales, and those of part of the director's certificate (docs/rules-1825.md,
        "Selling part of the director's certificate")."""
        player = game.player(entity)
        return super().offer_sell_shares(game, round_, entity) + partial_director_sale_options(game, round_, self, player)

    # -- the director's certificate bought back from the market -------------------------------------------
    def can_buy(self, game: Game, round_: StockRound, player: Player, share: Share) -> str | None:
        if share.president and share.owner == POOL:
            return director_purchase_refusal(self, game, round_, player, share)
        return super().can_buy(game, round_, player, share)

    def buyable_shares(self, game: Game, round_: StockRound, player: Player, *, first: bool = False) -> list[Share]:
        out = super().buyable_shares(game, round_, player, first=first)
        if first and out:
            return out
        for corp in game.corporations.values():
            pres = corp.shares[0] if corp.shares else None
            if pres is not None and pres.president and pres.owner == POOL \
                    and director_purchase_refusal(self, game, round_, player, pres) is None:
                out.append(pres)
                if first:
                    return out
        return out

    def buy_shares(self, game: Game, round_: StockRound, action: dict[str, Any], trusted: bool) -> None:
        bundle = parse_bundle(game.corporations, action.get("shares"), action.get("percent"))
        share = bundle.shares[0]
        if not (len(bundle.shares) == 1 and share.president and share.owner == POOL):
            super().buy_shares(game, round_, action, trusted)
            return
        player = game.player(action["entity"])
        if bundle.percent != share.percent:
            raise IllegalAction(f"the director's certificate {share.id} is bought whole ({share.percent}%)",
                                "one_share_per_turn")
        reason = director_purchase_refusal(self, game, round_, player, share)
        if reason:
            raise IllegalAction(f"cannot buy {share.id}: {reason}", "buy_shares")
        buy_director_from_pool(game, player, bundle.corporation)
        self.after_buy_shares(game, bundle.corporation)


def required_train(game: Game, corp: Corporation) -> Train | None:
    """The train a minor set aside at set-up (`Rules1825.setup`), which it must pay for to form."""
    return game.depot.by_id(corp.required_train) if corp.required_train else None


def par_prices(game: Game, corp: Corporation, player: Player) -> list[Cell]:
    """The cells `player` may start `corp` on (the set-up starts LNWR with it too)."""
    if corp.kind == "major":
        # the director's certificate (20%) must be affordable
        return [c for c in game.market.par_cells()
                if c.price == corp.fixed_par and c.price * corp.shares[0].percent // 10 <= player.cash]
    train = required_train(game, corp)
    if train is None:
        return []
    return [c for row in game.market.grid for c in row
            if c is not None and c.price * 10 > train.price and "endgame" not in c.types
            and c.price * 4 <= player.cash]


def check_formation(game: Game, corp: Corporation) -> None:
    """A corporation forms (joins the operating order) when it floats (a major) or, floated, can pay for the
    train it set aside (a minor, which then buys it); asked after every purchase and at set-up."""
    formed = state(game).formed
    if corp.sym in formed:
        return
    if corp.kind == "major":
        if corp.floated:
            formed.append(corp.sym)
        return
    train = required_train(game, corp)
    if train is None or not corp.floated or corp.cash < train.price:
        return
    formed.append(corp.sym)
    # the first set-aside train of the kind goes to the minor that forms first (two minors may need a 4T)
    train = next(t for t in game.depot.trains
                 if t.name == train.name and t.reserved and t.owner is None and not t.rusted)
    corp.required_train = train.id
    # stays reserved: the reference takes minors' trains out of the depot for good (never the first of
    # its kind, never for sale)
    train.owner = corp.sym
    corp.trains.append(train)
    game.pay(corp, None, train.price)


def partial_director_sale_options(game: Game, round_: StockRound, step: BuySellParShares,
                                  player: Player) -> list[dict[str, Any]]:
    """The stock round's offers of `partial_director_bundles` that the step's own sale checks allow."""
    out = []
    for corp in game.corporations.values():
        for bundle in partial_director_bundles(game, corp, player):
            if step.can_sell(game, round_, player, corp, bundle) is None:
                out.append({"shares": [s.id for s in bundle.shares], "percent": bundle.percent})
    return out


def director_purchase_refusal(step: BuySellParShares, game: Game, round_: StockRound, player: Player,
                              share: Share) -> str | None:
    """Rule (docs/rules-1825.md, "The director's certificate bought back from the market"): why `player`
    may not take the director's certificate `share` from the market now (None: he may)."""
    corp = game.corporations[share.corporation]
    if round_.bought():
        return "only one purchase per turn"
    if corp.closed:
        return f"{corp.sym} is closed"
    if round_.sold.get(player.id, {}).get(corp.sym):
        return f"{player.name} sold {corp.sym} this round and may not buy it back"
    if not any(s.owner == player.id for s in corp.shares):
        return f"only a holder of a {corp.sym} share may take its director's certificate from the market"
    whole = step.share_cost(game, corp, share)
    if player.cash < whole:
        return f"{player.name} has {player.cash}; taking the director's certificate needs its value, {whole}, in hand"
    return step.limit_refusal(game, player, corp, share)


def buy_director_from_pool(game: Game, player: Player, corp: Corporation) -> None:
    """The purchase itself: the player pays one ordinary share at the market price, takes the director's
    certificate and hands the market his longest-held ordinary shares for the rest of it (one share for a
    major's 20% certificate, one for a minor's 40%); he is director from now on (the corporation leaves
    receivership). The step then does what any purchase does (`BuySellParShares1825.after_buy_shares`)."""
    pres = corp.shares[0]
    unit = ordinary_unit(corp)
    price = game.share_price(corp)
    assert price is not None
    game.pay(player, None, price * unit // 10)
    back = pres.percent - unit
    corp.give(pres, player.id)
    for held in sorted((s for s in corp.shares if s.owner == player.id and not s.president), key=lambda s: s.stamp):
        if back <= 0:
            break
        corp.give(held, POOL)
        back -= held.percent
    game.rules.after_share_transfer(game, corp)

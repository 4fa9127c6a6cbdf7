"""A corporation's own finance and shopping during its operating turn, open in both the build step and the
train step: issuing shares from its treasury or buying them back from the market (once a turn), buying a
private from a player, buying a ferry, and choosing the ferry P5 doubles (the seed sets no moment for these).

`CorporationFinance` is the step mixin the two steps share: the moves it opens (`finance_actions`,
`shopping_actions`), their offers (`FINANCE_OFFERS`) and handlers (`FINANCE_HANDLERS`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.operating import OperatingRound, SpecialBuy
from ....errors import IllegalAction, MalformedAction
from ....model import POOL, Company, Corporation
from .. import bonuses
from .. import constants as K
from .. import tables as T
from ..finance import buy_back, buyback_price, issue, issue_limit, issue_price
from ..operating import Operating1833
from ..state import state

if TYPE_CHECKING:
    from ....game import Game
    from ..protocol import Rules

FINANCE_HANDLERS = {"sell_shares": "finance", "buy_shares": "finance", "buy_company": "buy_company",
                    "special_buy": "special_buy", "choose": "choose"}
FINANCE_OFFERS = {"sell_shares": "offer_issue", "buy_shares": "offer_buy_back", "buy_company": "offer_buy_company",
                  "special_buy": "offer_special_buy", "choose": "offer_choose"}


def rules_of(game: Game) -> Rules:
    return game.rules  # type: ignore[return-value]


class CorporationFinance(SpecialBuy):
    """The finance and shopping moves of the operating corporation, mixed into a step (before the core step
    it subclasses) that adds `FINANCE_HANDLERS` and `FINANCE_OFFERS` to its own."""

    # -- what is open --------------------------------------------------------------------------------------
    def finance_actions(self, game: Game, round_: Operating1833, corp: Corporation) -> list[str]:
        """One issue or one buy-back a turn: an issue while the limit and the price allow one, a buy-back
        while the market holds a share the treasury can pay."""
        out: list[str] = []
        if round_.financed:
            return out
        if issue_limit(game, corp) > 0 and issue_price(game, corp) > 0:
            out.append("sell_shares")
        if corp.percent_owned_by(POOL) and corp.cash >= buyback_price(game, corp):
            out.append("buy_shares")
        return out

    def shopping_actions(self, game: Game, corp: Corporation) -> list[str]:
        """Privates and ferries may be bought, and P5's ferry chosen, at any point of the corporation's turn
        (the seed sets no moment)."""
        out = []
        if self.buyable_privates(game, corp):
            out.append("buy_company")
        if bonuses.buyable_ferries(game, corp):
            out.append("special_buy")
        if bonuses.luxury_choices(game, corp):
            out.append("choose")
        return out

    # -- offers --------------------------------------------------------------------------------------------
    def offer_issue(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """One to as many treasury certificates as the issue limit allows, in certificate order."""
        corp = game.corporations[entity]
        treasury = [s for s in corp.shares if s.owner == corp.sym]
        return [{"shares": [s.id for s in treasury[:n]], "percent": 10 * n}
                for n in range(1, issue_limit(game, corp) + 1)]

    def offer_buy_back(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """One to all of the market's certificates, as far as the treasury pays the buy-back price."""
        corp = game.corporations[entity]
        pool = [s for s in corp.shares if s.owner == POOL]
        price = buyback_price(game, corp)
        out: list[dict[str, Any]] = []
        for n in range(1, len(pool) + 1):
            if n * price > corp.cash:
                break
            out.append({"shares": [s.id for s in pool[:n]], "percent": 10 * n})
        return out

    def offer_buy_company(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        """Each private a player owns, at 1, half and full face value (P6 costs the bank's fee on top)."""
        corp = game.corporations[entity]
        out: list[dict[str, Any]] = []
        for company in self.buyable_privates(game, corp):
            for price in sorted({1, company.value // 2, company.value}):
                extra = K.P6_BANK_FEE if company.sym == K.P6 else 0
                if price + extra <= corp.cash:
                    out.append({"company": company.sym, "price": price})
        return out

    def special_buy_options(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[dict[str, Any]]:
        """The ferries for sale now (1833NE's special purchase), each at the ferry price."""
        return [{"description": ferry, "cost": T.of(game).ferry_price}
                for ferry in bonuses.buyable_ferries(game, corp)]

    def offer_choose(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        return [{"choice": f} for f in bonuses.luxury_choices(game, game.corporations[entity])]

    # -- privates from players --------------------------------------------------------------------------------
    @staticmethod
    def buyable_privates(game: Game, corp: Corporation) -> list[Company]:
        """Seed: in phases I and II a corporation buys a private from a player (any player, like a train from
        another corporation: the seller's consent is agreed between the players, not asked by the engine)."""
        if game.phase.name not in K.CORP_BUY_PHASES:
            return []
        return [c for c in game.companies.values() if not c.closed and isinstance(c.owner, int)
                and 1 + (K.P6_BANK_FEE if c.sym == K.P6 else 0) <= corp.cash]

    @classmethod
    def refuse_private(cls, game: Game, corp: Corporation, action: dict[str, Any]) -> IllegalAction | None:
        """`private_refusal` as the refusal a player is shown (the build step's and the purchase's own)."""
        reason = cls.private_refusal(game, corp, action)
        return None if reason is None else IllegalAction(
            f"{corp.sym} cannot buy {action.get('company')}: {reason}", "buy_company")

    @staticmethod
    def private_refusal(game: Game, corp: Corporation, action: dict[str, Any]) -> str | None:
        """Why `corp` may not buy the private `action` names at its price, in the words of the rule."""
        sym = action.get("company")
        company = game.companies.get(sym) if isinstance(sym, str) else None
        if company is None:
            return None
        if game.phase.name not in K.CORP_BUY_PHASES:
            return "corporations buy privates only in phases I and II"
        if company.closed:
            return f"{company.sym} has been removed from the game"
        if not isinstance(company.owner, int):
            owner = "the bank" if company.owner is None else company.owner
            return f"{company.sym} belongs to {owner}: a corporation buys privates only from players"
        price = action.get("price")
        if isinstance(price, int) and not 1 <= price <= company.value:
            return f"{company.sym} sells for $1 to ${company.value}, not {price}"
        fee = K.P6_BANK_FEE if company.sym == K.P6 else 0
        if isinstance(price, int) and price + fee > corp.cash:
            extra = f" (+{fee} to the bank)" if fee else ""
            return f"{corp.sym} has {corp.cash}, {company.sym} costs {price}{extra}"
        return None

    @classmethod
    def corporation_buys_private(cls, game: Game, corp: Corporation, action: dict[str, Any]) -> None:
        company = game.company(action.get("company"))
        price = action.get("price")
        if not isinstance(price, int):
            raise MalformedAction("buy_company needs an integer price", "price")
        refusal = cls.refuse_private(game, corp, action)  # the price is an int: the cash is checked there
        if refusal is not None:
            raise refusal
        if company not in cls.buyable_privates(game, corp):
            raise IllegalAction(f"{corp.sym} cannot buy {company.sym} now", "buy_company")
        fee = K.P6_BANK_FEE if company.sym == K.P6 else 0
        seller = game.player(company.owner)
        game.pay(corp, seller, price)
        if fee:
            game.pay(corp, None, fee)
        seller.companies.remove(company.sym)
        company.owner = corp.sym
        corp.companies.append(company.sym)
        game.board.remove_blocker(company.sym)
        if company.sym == K.P2:
            state(game).p2_bought = True
            state(game).p2_free = (corp.sym, game.turn, getattr(game.round, "round_num", 0))
        rules_of(game).sync_virtual_stations(game)  # P4 and P6 act as stations for their buyer

    # -- refusals ------------------------------------------------------------------------------------------
    @staticmethod
    def ferry_refusal(game: Game, corp: Corporation) -> IllegalAction | None:
        tables = T.of(game)
        if game.phase.name not in tables.ferry_phases:
            return IllegalAction(f"ferries are sold only in phases {', '.join(tables.ferry_phases)}", "ferry")
        if corp.cash < tables.ferry_price:
            return IllegalAction(f"{corp.sym} has {corp.cash}, a ferry costs {tables.ferry_price}", "cash")
        if not any(owner is None for owner in state(game).ferries.values()):
            return IllegalAction("every ferry has been sold", "ferry")
        return None

    # -- handlers ------------------------------------------------------------------------------------------
    def finance(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        """An issue (`sell_shares`) or a buy-back (`buy_shares`) of whole certificates of the corporation's own."""
        assert isinstance(round_, Operating1833)
        corp = game.corporations[action["entity"]]
        if round_.financed:
            raise IllegalAction(f"{corp.sym} already issued or bought back shares this turn", "finance_once")
        ids = action.get("shares")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise MalformedAction("'shares' must list certificates like 'CV_3'", "shares_shape")
        shares = []
        for sid in ids:
            sym, _, idx = sid.rpartition("_")
            if sym != corp.sym or not idx.isdigit() or int(idx) >= len(corp.shares):
                raise MalformedAction(f"{sid!r} is not a {corp.sym} certificate", "share_id")
            shares.append(corp.shares[int(idx)])
        if len(set(ids)) != len(ids):
            raise MalformedAction("a certificate is listed twice", "share_id")
        total = sum(s.percent for s in shares)
        if action.get("percent") not in (None, total):  # whole certificates only, as a player's sale
            raise MalformedAction(f"percent {action.get('percent')!r} does not match the certificates' {total}%",
                                  "shares_percent")
        if action["type"] == "sell_shares":
            issue(game, corp, shares)
        else:
            buy_back(game, corp, shares)
        round_.financed = True

    def buy_company(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        self.corporation_buys_private(game, game.corporations[action["entity"]], action)

    def special_buy(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        bonuses.buy_ferry(game, game.corporations[action["entity"]], action)

    def choose(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        bonuses.choose_luxury(game, action)

"""The share exchange of a merger (the Merger step, `steps/merger.py`, runs it). A System has one share price,
treasury and set of stations, but two train fleets ("shells", one per former corporation).

A merger happens in a stock round. The acting player `choose`s the corporation that starts it, then the
corporation `merge`s with a partner. The System is created at once (cash, stations, privates and trains
move over, the price is set from the two prices); then the shareholders exchange their shares:

* pairs first, each player in turn from the acting player: two old shares (any mix) for one System
  share, the two presidents' certificates together for the System's president's certificate. A player
  with an odd count keeps one share back (a player who could keep either is asked).
  A player short of the starting corporation's shares trades with the first holder that has them
  (the discards, later players, the treasury, the market).
* then singles, from the player after the acting player: a last share is exchanged for the price
  difference or sold to the bank ("Exchange ($-31)" / "Sell ($77)"); a player who sold either
  corporation this round, cannot pay, or finds the System treasury empty must sell.
* finally the market's and the treasuries' shares are exchanged the same way, discarded shares of the
  starting corporation put System shares into the market, the two corporations close, and the president
  gives one System share to the System's treasury (it cannot be bought back).

Shares on their way out are held by two markers, USED and DISCARD, so they count for nobody.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core.shares import change_presidency
from ...errors import IllegalAction
from ...model import POOL, Corporation, Share
from .state import state
from .systems import update_float

if TYPE_CHECKING:
    from ...game import Game

USED = "~used"
DISCARD = "~discard"
IPO = "~ipo"


@dataclass
class Choice:
    chooser: int
    labels: list[str]
    kind: str  # "odd_share" | "single" | "source"


@dataclass
class MergerState:
    acting_player: int
    initiator: str
    target: str | None = None
    system: str | None = None
    phase: str = "select_target"
    queue: list[Any] = field(default_factory=list)
    choice: Choice | None = None
    selection: str | None = None
    exchange_selection: str | None = None
    odd_share: str | None = None
    trade_order: list[Any] = field(default_factory=list)
    presidents: dict[str, Any] = field(default_factory=dict)


def money(amount: int) -> str:
    return f"${amount}"



class Exchange:
    """The share movements of one merger step (see the module docstring)."""

    def __init__(self, game: Game, round_: Any, state: MergerState) -> None:
        self.game = game
        self.round = round_
        self.state = state
        assert state.target is not None and state.system is not None
        self.merger = game.corporations[state.initiator]
        self.target = game.corporations[state.target]
        self.system = game.corporations[state.system]

    # -- holdings -------------------------------------------------------------------------------------------
    def shares_of(self, holder: Any, corp: Corporation) -> list[Share]:
        return sorted((s for s in corp.shares if s.owner == holder), key=lambda s: (s.stamp, s.index))

    def count(self, holder: Any, corp: Corporation) -> int:
        return corp.percent_owned_by(holder) // 10

    def ordinary(self, holder: Any, corp: Corporation) -> list[Share]:
        return [s for s in self.shares_of(holder, corp) if not s.president]

    def move(self, share: Share, to: Any) -> None:
        self.game.corporations[share.corporation].give(share, to)

    def price(self, share: Share) -> int:
        corp = self.game.corporations[share.corporation]
        return (self.game.share_price(corp) or 0) * share.percent // 10

    def system_price(self) -> int:
        return self.game.share_price(self.system) or 0

    def treasury(self) -> list[Share]:
        """The System's treasury certificates in the order they arrived there (shares handed back in a
        president's swap come last), which decides the certificate each exchange hands out."""
        return self.shares_of(self.system.sym, self.system)

    def give_system(self, holder: Any, shares: list[Share]) -> None:
        """Hand a player or the market the System shares of an exchange. The old treasuries' exchanges take
        none (their shares simply stay in the System's treasury). An exchange that finds the treasury empty
        cannot be made, and the move that leads the merger into it is refused (docs/rules-1828.md *The
        System's shares run out*; camp1828_base_5p_6367086 after index 1197: the market's pairs outrun the
        treasury once 1003 has traded his single GT share up)."""
        if holder == IPO:
            return
        if not shares:
            who = self.game.player(holder).name if isinstance(holder, int) else "the market"
            raise IllegalAction(f"{self.system.sym} has no share left for {who}'s exchange",
                                rule="merger_shares_exhausted")
        pres = self.system.shares[0]
        previous = pres.owner
        for share in shares:
            self.move(share, holder)
        if pres.owner == previous:  # (a certificate still in the treasury goes to the first with 20%)
            change_presidency(self.system, self.game.player_order, previous)
        update_float(self.game, self.system)

    def sold(self, player: Any, corp: Corporation) -> bool:
        return isinstance(player, int) and bool(self.round.sold.get(player, {}).get(corp.sym))

    def mark_sold(self, player: Any, corp: Corporation) -> None:
        self.round.sold.setdefault(player, {})[corp.sym] = "now"

    def discard_partner(self, holder: Any) -> None:
        for share in self.shares_of(holder, self.target):
            self.move(share, DISCARD)

    # -- pairs ----------------------------------------------------------------------------------------------
    def hide_odd_share(self, holder: Any) -> None:
        if self.state.odd_share is None:
            self.identify_odd_share(holder)
        if self.state.odd_share is not None:
            self.move(self.share_by_id(self.state.odd_share), USED)

    def identify_odd_share(self, holder: Any) -> None:
        m, t = self.merger, self.target
        if (self.count(holder, m) + self.count(holder, t)) % 2 == 0:
            return
        m_share = next(iter(self.ordinary(holder, m)), None)
        t_share = next(iter(self.ordinary(holder, t)), None)
        odd: Share | None
        if self.state.selection is not None:
            odd = m_share if m.sym in self.state.selection else t_share
            self.state.selection = None
        elif isinstance(holder, int) and m_share is not None and t_share is not None:
            # a player holding ordinary shares of both always chooses (the recordings ask even when the
            # starting corporation's shares are too few to keep one back: stock_market index 1000)
            labels = [f"{c.sym} ({money(self.game.share_price(c) or 0)})" for c in (m, t)]
            self.state.choice = Choice(holder, labels, "odd_share")
            return
        else:
            odd = m_share or t_share
        self.state.odd_share = odd.id if odd is not None else None

    def share_by_id(self, share_id: str) -> Share:
        corp_sym, _, index = share_id.rpartition("_")
        return self.game.corporations[corp_sym].shares[int(index)]

    def restore_odd_share(self, holder: Any) -> None:
        if self.state.odd_share is not None:
            self.move(self.share_by_id(self.state.odd_share), holder)

    def pairs(self, holder: Any) -> None:
        m, t = self.merger, self.target
        while self.count(holder, m) + self.count(holder, t) >= 2 and not self.state.choice:
            m_pres = next((s for s in self.shares_of(holder, m) if s.president), None)
            t_pres = next((s for s in self.shares_of(holder, t) if s.president), None)
            needed = 2 if m_pres or t_pres else 1
            source = self.source(holder, needed)
            if self.state.choice:
                return
            if source is None:
                self.restore_odd_share(holder)
                self.state.odd_share = None
                self.discard_partner(holder)
                return
            if source == holder:
                for share in [m_pres] if m_pres else self.shares_of(holder, m)[:needed]:
                    self.move(share, USED)
                discarded = [t_pres] if t_pres else (self.shares_of(holder, t) + self.shares_of(holder, m))[:needed]
                for share in discarded:
                    self.move(share, DISCARD)
                pres = next((s for s in self.treasury() if s.president), None)
                self.give_system(holder, [pres] if needed == 2 and pres else self.treasury()[:needed])
            else:
                to_trade = [m_pres or t_pres or self.shares_of(holder, t)[0]]
                from_m = self.ordinary(source, m)
                to_receive = (from_m[:1] + self.ordinary(source, t)[:1] + from_m[1:2])[:needed]
                self.trade(holder, to_trade, source, to_receive)
                self.move(self.shares_of(holder, m)[0], USED)
                self.move((self.shares_of(holder, t) + self.shares_of(holder, m))[0], DISCARD)
                self.give_system(holder, [s for s in self.treasury() if not s.president][:1])

    def pairs_keeping_odd(self, holder: Any) -> None:
        """The market and the treasuries exchange pairs like a player, keeping an odd share back too (the
        starting corporation's), so the exchanges may draw on discarded shares (gen1828_4p_752101 index 60)."""
        self.state.odd_share = None
        self.hide_odd_share(holder)
        self.pairs(holder)
        self.restore_odd_share(holder)
        self.state.odd_share = None

    def source(self, holder: Any, needed: int = 1) -> Any:
        """Who supplies the starting corporation's share(s) an exchange needs: the holder itself, else the
        discards, the other players in turn, the old treasury, the market (a player may pick among players)."""
        m, t = self.merger, self.target
        if self.state.selection is not None:
            chosen = next((p for p in self.state.trade_order
                           if self.game.player(p).name == self.state.selection), None)
            self.state.selection = None
            return chosen
        if self.count(holder, m) >= needed:
            return holder
        candidates = [DISCARD, *self.state.trade_order[1:], m.sym, POOL]
        found = [c for c in candidates
                 if self.ordinary(c, m) and len(self.ordinary(c, m)) + len(self.ordinary(c, t)) >= needed]
        if found and isinstance(found[0], int):
            players = [c for c in found if c in self.state.trade_order]
            if len(players) > 1:
                self.state.choice = Choice(holder, [self.game.player(p).name for p in players], "source")
        return found[0] if found else None

    def trade(self, a: Any, shares_a: list[Share], b: Any, shares_b: list[Share]) -> None:
        """Swap certificates; a player left with an odd count settles the price difference."""
        for share in shares_a:
            self.move(share, b)
        for share in shares_b:
            self.move(share, a)
        m, t = self.merger, self.target
        if not isinstance(b, int) or len(shares_b) != 1 or (self.count(b, m) + self.count(b, t)) % 2 == 0:
            return
        difference = self.price(shares_b[0]) - self.price(shares_a[0])
        player = self.game.player(b)
        if difference > 0:
            self.game.pay(None, player, difference)
        elif difference < 0:
            if player.cash >= -difference:
                self.game.pay(player, None, -difference)
            else:
                share = shares_a[0]
                self.move(share, DISCARD)
                self.mark_sold(b, self.game.corporations[share.corporation])
                self.game.pay(None, player, self.price(share))

    # -- singles --------------------------------------------------------------------------------------------
    def singles(self, holder: Any) -> None:
        m, t = self.merger, self.target
        if self.count(holder, m) == 0 and self.count(holder, t) == 0:
            return
        if self.state.exchange_selection is None and self.state.selection is not None:
            self.state.exchange_selection = self.state.selection
            self.state.selection = None
        share = (self.shares_of(holder, m) + self.shares_of(holder, t))[0]
        corp = self.game.corporations[share.corporation]
        player = self.game.player(holder) if isinstance(holder, int) else None
        selection = self.state.exchange_selection
        if player is not None and (self.sold(holder, m) or self.sold(holder, t)
                                   or self.price(share) + player.cash < self.system_price()
                                   or not self.treasury()
                                   or (selection is not None and "Sell" in selection)):
            self.move(share, DISCARD)
            self.mark_sold(holder, corp)
            self.game.pay(None, player, self.price(share))
            self.state.exchange_selection = None
            return
        if player is not None and selection is None:
            cost = self.price(share) - self.system_price()
            self.state.choice = Choice(holder, [f"Exchange ({money(cost)})", f"Sell ({money(self.price(share))})"],
                                       "single")
            return
        source = self.source(holder)
        if self.state.choice:
            return
        if source is None:
            self.discard_partner(holder)
            return
        if source != holder:
            self.trade(holder, [share], source, self.ordinary(source, m)[:1])
        if player is not None:
            difference = self.system_price() - self.price(share)
            if difference > 0:
                self.game.pay(player, None, difference)
            elif difference < 0:
                self.game.pay(None, player, -difference)
        self.move(self.shares_of(holder, m)[0], USED)
        self.give_system(holder, self.treasury()[:1])
        self.state.exchange_selection = None

    # -- completion -----------------------------------------------------------------------------------------
    def complete(self) -> bool:
        """Settle the market's and treasuries' shares and close the two corporations. A merger fails when the
        System's president ends with fewer than three System shares (one is owed to the treasury): the two
        corporations then stay in play, their exchanged certificates back in their treasuries, the System
        as the exchanges left it, and the acting player must acknowledge (`failed_merge`) or take it back
        (gen1828_4p_612537 index 65, gen1828_4p_752101 index 53). Returns whether the merger completed."""
        game, m, t, system = self.game, self.merger, self.target, self.system
        self.state.queue = []
        self.state.trade_order = []
        self.pairs_keeping_odd(POOL)
        self.singles(POOL)
        for corp in (m, t):  # both treasuries, with the shares traded into them, exchange as one
            for share in self.shares_of(m.sym, corp) + self.shares_of(t.sym, corp):
                self.move(share, IPO)
        self.pairs_keeping_odd(IPO)
        self.singles(IPO)
        discarded = self.count(DISCARD, m)
        stock = self.treasury()
        if discarded and not stock:
            # every discarded share of the starting corporation is owed a System share for the market; the
            # market takes what the treasury still holds, even short of the count (camp1828_ensure_good_
            # privates_5p_6899070 index 904: one share for two), but a treasury already emptied (a
            # presidency taken from it gives one share more) has nothing to give, and the move that would
            # complete such a merger is refused (docs/rules-1828.md *The System's shares run out*)
            raise IllegalAction(
                f"{system.sym} has no share left for the {discarded} discarded shares of {m.sym}",
                rule="merger_shares_exhausted")
        for share in stock[:discarded]:
            self.move(share, POOL)
        for player in self.round.entities:
            if self.sold(player, m) or self.sold(player, t):
                self.mark_sold(player, system)
        update_float(game, system)  # floated is decided before the donated share returns to the treasury
        president = system.president
        if president is None or self.count(president, system) < 3:
            for corp in (m, t):
                for share in corp.shares:
                    if not isinstance(share.owner, int):  # exchanged, discarded or in either treasury
                        share.owner = corp.sym
            return False
        share = next(s for s in self.shares_of(president, system) if not s.president)
        self.move(share, system.sym)
        state(game).unbuyable.append(share.id)
        # the gift may leave another player with more: the presidency passes as usual (gen1828_4p_519478
        # index 117: 1001 gives one of three, 1003 holds three and becomes president)
        change_presidency(system, game.player_order, president)
        update_float(game, system)
        if not m.floated or not t.floated:  # an unfloated half: the System is capitalised afresh
            game.pay(system, None, system.cash)
            if system.floated:
                game.pay(None, system, self.system_price() * 10)
        for corp in (m, t):
            for share in corp.shares:
                share.owner = None
            corp.closed = True
            del game.corporations[corp.sym]
        game.rules.after_share_transfer(game, system)
        return True


"""Systems: two corporations merged into one, with one share price, treasury and set of stations, but two
train fleets ("shells", one per former corporation).

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

from ...core.rounds import Round, Step
from ...core.shares import change_presidency
from ...errors import IllegalAction, MalformedAction
from ...model import POOL, Corporation, Share
from .coal import sync as coal_sync

if TYPE_CHECKING:
    from ...game import Game

USED = "~used"
DISCARD = "~discard"
IPO = "~ipo"
SYSTEM_FLOAT_PERCENT = 60


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


class Merger(Step):
    """Runs a merger the acting player started; blocks the stock round until the exchanges are done."""

    handlers = {"merge": "merge", "choose": "choose", "failed_merge": "acknowledge_failure"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        state = getattr(round_, "merger", None)
        if state is None:
            return []
        if state.phase == "failed":  # the acting player acknowledges the failure (or takes it all back)
            return ["failed_merge"] if entity == state.acting_player else []
        if state.phase == "select_target":  # the starting corporation names its partner, its player acting
            return ["merge"] if entity in (state.initiator, state.acting_player) else []
        return ["choose"] if state.choice is not None and entity == state.choice.chooser else []

    def blocking(self, game: Game, round_: Round) -> bool:
        return getattr(round_, "merger", None) is not None

    # -- actions ------------------------------------------------------------------------------------------
    def merge(self, game: Game, round_: Any, action: dict[str, Any], trusted: bool) -> None:
        from .stock import merge_candidate

        state: MergerState = round_.merger
        target = game.corporation(action.get("corporation"))
        initiator = game.corporations[state.initiator]
        if not merge_candidate(game, round_, state.acting_player, initiator, target):
            raise IllegalAction(f"{initiator.sym} cannot merge with {target.sym}", "merge")
        if initiator.share_cell is None:  # it may start a merger but has no price to form a System with
            raise IllegalAction(f"{initiator.sym} has no share price to form a System with", "merge")
        state.target = target.sym
        state.presidents = {initiator.sym: initiator.president, target.sym: target.president}
        state.system = create_system(game, initiator, target)
        state.phase = "pairs"
        order = round_.entities
        i = order.index(state.acting_player)
        state.queue = order[i:] + order[:i]
        self.run(game, round_)
        self.settle(game, round_)

    def choose(self, game: Game, round_: Any, action: dict[str, Any], trusted: bool) -> None:
        state: MergerState = round_.merger
        choice = action.get("choice")
        if not isinstance(choice, str):
            raise MalformedAction("choose needs a string choice", "choice")
        assert state.choice is not None
        if not any(choice in label for label in state.choice.labels):
            raise IllegalAction(f"choose one of {', '.join(state.choice.labels)}", "choice")
        state.selection = choice
        state.choice = None
        self.run(game, round_)
        self.settle(game, round_)

    def acknowledge_failure(self, game: Game, round_: Any, action: dict[str, Any], trusted: bool) -> None:
        """A failed merger can only be taken back (undo): the recordings always do, the reference offers
        the acknowledgement but has nothing to do it with, and the state it leaves (a System beside the two
        corporations it came from) cannot go on."""
        raise IllegalAction("a failed merger can only be taken back (undo)", "failed_merge")

    # -- the exchange procedure -----------------------------------------------------------------------------
    def run(self, game: Game, round_: Any) -> None:
        state: MergerState = round_.merger
        ex = Exchange(game, round_, state)
        order = list(round_.entities)
        if state.phase == "pairs":
            while state.queue:
                player = state.queue[0]
                i = order.index(player)
                state.trade_order = order[i:] + order[:i]  # every other player, from this one on
                ex.hide_odd_share(player)
                ex.pairs(player)
                ex.restore_odd_share(player)
                if state.choice:
                    return
                state.odd_share = None
                state.queue.pop(0)
            state.phase = "singles"
            i = (order.index(state.acting_player) + 1) % len(order)
            state.queue = order[i:] + order[:i]
        if state.phase == "singles":
            while state.queue:
                state.trade_order = list(state.queue)
                ex.singles(state.queue[0])
                if state.choice:
                    return
                state.queue.pop(0)
            state.phase = "complete"
        if ex.complete():
            round_.merger = None
        else:
            state.phase = "failed"

    def settle(self, game: Game, round_: Any) -> None:
        """A merger waiting for a player's answer is shown to everyone: a merging corporation whose treasury
        has given up 60% of its shares by then shows as floated (a share count; it gets no money and closes
        at the end), and a corporation floated so lets the System keep the merged cash. The reference only
        evaluates this when the game is looked at, so a game rebuilt from its actions (after an undo)
        never sees it; `game.loading` marks such a rebuild."""
        state = getattr(round_, "merger", None)
        if state is None or state.target is None or getattr(game, "loading", False):
            return
        for sym in (state.initiator, state.target):
            corp = game.corporations.get(sym)
            if corp is not None and not corp.floated and corp.treasury_percent <= 100 - corp.float_percent:
                corp.floated = True
                game.watched = True  # a rebuild of this game will not see it (no checkpoint from here on)


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
        if holder == IPO:
            return  # the old treasuries' shares simply stay in the System's treasury
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
        for share in self.treasury()[:discarded]:
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
        game.extra.setdefault("unbuyable", []).append(share.id)
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


def sold_percent(game: Game, system: Corporation) -> int:
    """How much of a System is out of its treasury; the share its president gave to the treasury counts as
    out (stock_market index 333: 50% in the treasury before the gift, unfloated; gen1828_3p_136186 index
    184: 50% with the gift, floated)."""
    unbuyable = game.extra.get("unbuyable", [])
    given = sum(s.percent for s in system.shares if s.owner == system.sym and s.id in unbuyable)
    return 100 - system.treasury_percent + given


def update_float(game: Game, system: Corporation) -> bool:
    """A System floats once 60% is out of its treasury; returns whether it floated just now."""
    if not system.floated and sold_percent(game, system) >= SYSTEM_FLOAT_PERCENT:
        system.floated = True
        return True
    return False


# -- creating a System -------------------------------------------------------------------------------------
def create_system(game: Game, first: Corporation, second: Corporation) -> str:
    """The System takes over both corporations' cash, stations, privates and trains (in two shells)."""
    sym = f"{first.sym}-{second.sym}"
    raw = next(c for c in game.defn.data.setup["corporations"] if c["sym"] == first.sym)
    system = game._make_corporation(dict(raw, sym=sym, abilities=[]))
    system.capitalization = "none"
    system.float_percent = SYSTEM_FLOAT_PERCENT
    homes = [h for c in (first, second) for h in (c.home if isinstance(c.home, list) else [c.home])]
    system.home = homes
    used = first.tokens_placed + second.tokens_placed
    unused = sorted(first.token_prices[first.tokens_placed:] + second.token_prices[second.tokens_placed:])
    system.token_prices = [0] * used + unused
    system.tokens_placed = used
    shells: dict[str, list[str]] = {}
    for corp in (first, second):
        game.pay(corp, system, corp.cash)
        for sym_ in corp.companies:
            game.companies[sym_].owner = sym
            system.companies.append(sym_)
        corp.companies = []
        shells[corp.sym] = []
        for train in list(corp.trains):
            corp.trains.remove(train)
            train.owner = sym
            system.trains.append(train)
            shells[corp.sym].append(train.id)
        corp.tokens_placed = 0
        corp.token_prices = []
        _retoken(game, corp.sym, sym)
        loose = game.extra.get("loose_homes", {})
        for hex_id, owner in list(loose.items()):
            if owner == corp.sym:
                loose[hex_id] = sym
    _block_doubled_cities(game, system)
    coal = game.extra["coal"]
    if first.sym in coal or second.sym in coal:
        had = [c for c in (first.sym, second.sym) if c in coal]
        for c in had:
            coal.remove(c)
        coal.append(sym)
        if len(had) > 1:
            game.extra["coal_on_field"] += 1
        coal_sync(game)
    game.extra["systems"][sym] = [first.sym, second.sym]
    game.extra.setdefault("shells", {})[sym] = shells
    cell = system_cell(game, first, second)
    system.share_cell = cell
    system.par_price = game.market.cell(cell).price
    system.ipoed = True
    game.corporations[sym] = system
    game.rules.set_cell(game, system, cell)  # type: ignore[attr-defined]
    return sym


def _retoken(game: Game, old: str, new: str) -> None:
    for h in game.board.hexes.values():
        for slots in h.tokens:
            for i, entity in enumerate(slots):
                if entity == old:
                    slots[i] = new
        for slots in h.reservations:
            for i, entity in enumerate(slots):
                if entity == old:
                    slots[i] = new
        h.tile_reservations[:] = [new if entity == old else entity for entity in h.tile_reservations]
    game.board.forget_reach()


def _block_doubled_cities(game: Game, system: Corporation) -> None:
    """Two System stations in one city: one gives way to a blocking token."""
    for h in game.board.hexes.values():
        for slots in h.tokens:
            where = [i for i, e in enumerate(slots) if e == system.sym]
            for i in where[1:]:
                slots[i] = "B"
                system.tokens_placed -= 1
    game.board.forget_reach()


def system_cell(game: Game, a: Corporation, b: Corporation) -> tuple[int, int]:
    """The higher price plus half the lower, placed in the leftmost of the two columns (or along the top
    row when even its top cell is cheaper)."""
    assert a.share_cell is not None and b.share_cell is not None
    prices = sorted([game.share_price(a) or 0, game.share_price(b) or 0])
    column = min(a.share_cell[1], b.share_cell[1])
    value = prices[1] + prices[0] // 2
    grid = game.market.grid
    top = grid[0]
    if top[column] is not None and top[column].price < value:
        i = len(top) - 1
        while top[i] is None or top[i].price > value:
            i -= 1
        return (0, i)
    i = 0
    while grid[i][column] is not None and grid[i][column].price > value:
        i += 1
    return (i, column)


# -- operating a System ------------------------------------------------------------------------------------
def is_system(game: Game, corp: Corporation) -> bool:
    return corp.sym in game.extra["systems"]


def shells(game: Game, corp: Corporation) -> dict[str, list[Any]]:
    """The System's trains by shell (former corporation), in purchase order."""
    owned = {t.id: t for t in corp.trains if not t.rusted}
    return {name: [owned[i] for i in ids if i in owned]
            for name, ids in game.extra["shells"][corp.sym].items()}


def add_to_shell(game: Game, corp: Corporation, shell: str, train_id: str) -> None:
    """Put the train in `shell`, and only there: a train that left the System and came back, or moved
    between shells, is never counted twice."""
    table = game.extra["shells"][corp.sym]
    for ids in table.values():
        while train_id in ids:
            ids.remove(train_id)
    table[shell].append(train_id)


def shells_with_room(game: Game, corp: Corporation) -> list[str]:
    limit = game.train_limit(corp)
    return [name for name, trains in shells(game, corp).items() if len(trains) < limit]


class SwapTrain(Step):
    """After paying, a System may move trains between its two shells (each holds up to the train limit)."""

    handlers = {"swap_train": "swap_train", "pass": "pass_step"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        if entity != round_.current_entity(game) or entity not in game.corporations:
            return []
        corp = game.corporations[entity]
        if not is_system(game, corp) or not corp.trains:
            return []
        limit = game.train_limit(corp)
        crowded = any(len(trains) > limit for trains in shells(game, corp).values())
        return ["swap_train"] if crowded else ["swap_train", "pass"]

    def swap_train(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        train_id = action.get("train")
        table = game.extra["shells"][corp.sym]
        current = next((name for name, ids in table.items() if train_id in ids
                        and any(t.id == train_id for t in corp.trains)), None)
        if current is None:
            raise IllegalAction(f"{corp.sym} has no train {train_id}", "swap_train")
        other = next(name for name in table if name != current)
        add_to_shell(game, corp, other, train_id)
        # once a train was moved, no train-limit discard is asked while the arranging lasts: an over-full
        # shell is mended by moving, and "done" waits for it (rules-1828.md, "Arranging trains")
        round_.ignore_train_limit = True  # type: ignore[attr-defined]

    def pass_step(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        self.passed = True
        round_.ignore_train_limit = False  # type: ignore[attr-defined]

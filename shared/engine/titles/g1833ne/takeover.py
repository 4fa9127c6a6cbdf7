"""The 1833NE Takeover game: five variable-start corporations and the takeover round that follows the
second operating round of each pair from phase II on.

A takeover buys back every outstanding share of the target (players' and the market's) at the target's
price, "with cash or own shares" (digest): a merge with `pay: "shares"` hands each player as many of the
acquirer's treasury shares (at the acquirer's price) as his due covers, within the 60% limit and while the
treasury has them, and the rest in cash; market shares are always bought for cash. The target's president
may refuse unless the target has no train or only obsolete ones. The acquirer inherits trains, treasury,
ferries, privates and stations, and its train limit rises by one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...board.tiles import NODE_BASE
from ...core.operating import OperatingRound
from ...core.rounds import Round, Step
from ...core.shares import change_presidency
from ...errors import IllegalAction, MalformedAction
from ...model import POOL, Corporation
from . import constants as K
from . import tables as T
from .state import state

if TYPE_CHECKING:
    from ...game import Game


# -- variable-start corporations --------------------------------------------------------------------------
def add_variable_corporations(game: Game) -> None:
    """The Takeover game's corporations as tables.json lists them: names, stations and allowed homes."""
    for spec in T.of(game).takeover_corporations:
        raw = {"sym": spec.sym, "name": spec.name, "home": None, "home_city_index": None,
               "token_prices": [0] + [K.STATION_PRICE] * (spec.tokens - 1), "float_percent": 20,
               "max_ownership_percent": K.MAX_HOLDING, "capitalization": "incremental", "shares": [20] + [10] * 8,
               "abilities": [{"type": "variable_start", "hexes": None if spec.homes is None else list(spec.homes)}]}
        game.corporations[spec.sym] = game._make_corporation(raw)


def allowed_homes(corp: Corporation) -> list[str] | None:
    """The hexes a variable-start corporation may start on; None: any free city (the seed's rule)."""
    for ability in corp.abilities:
        if ability.get("type") == "variable_start":
            hexes = ability.get("hexes")
            return None if hexes is None else list(hexes)
    return None


def _home_cost(game: Game, hex_id: str) -> int:
    h = game.board.hex(hex_id)
    if h.tile.color == "gray" or not h.tile.paths:
        return K.VARIABLE_HOME_CHEAP
    return K.VARIABLE_HOME_DEAR


def _other_available_home(game: Game, corp: Corporation, hex_id: str) -> bool:
    for other in game.corporations.values():
        if other is corp or other.closed or other.ipoed:
            continue
        homes = other.home if isinstance(other.home, list) else [other.home]
        if hex_id in homes:
            return True
    return False


def check_variable_home(game: Game, corp: Corporation, price: int, action: dict[str, Any]) -> int:
    """A variable-start launch names a free, unreserved city slot; returns what its home token costs."""
    city, slot = action.get("city"), action.get("slot")
    if not isinstance(city, str) or not isinstance(slot, int):
        raise MalformedAction(f"launching {corp.sym} needs the city and slot of its home", "par_home")
    game.board.check_token(corp.sym, city, slot, must_connect=False)
    hex_id = game.board.city_hex(city)
    homes = allowed_homes(corp)
    if homes is not None and hex_id not in homes:
        raise IllegalAction(f"{corp.sym} starts on {' or '.join(homes)}, not {hex_id}", "par_home")
    if _other_available_home(game, corp, hex_id):
        raise IllegalAction(f"{hex_id} is the home of a corporation still to be launched", "par_home")
    cost = _home_cost(game, hex_id)
    if cost == K.VARIABLE_HOME_DEAR and price < K.VARIABLE_DEAR_MIN_START:
        raise IllegalAction(f"a home on {hex_id} costs {cost} and needs a start price of at least "
                            f"{K.VARIABLE_DEAR_MIN_START}", "par_price")
    return cost


def place_variable_home(game: Game, corp: Corporation, action: dict[str, Any], cost: int) -> None:
    city, slot = action["city"], action["slot"]
    corp.home = game.board.city_hex(city)
    game.board.place_token(corp.sym, city, slot)
    corp.tokens_placed = 1
    game.pay(corp, None, cost)


def variable_home_options(game: Game, corp: Corporation, price: int) -> list[dict[str, Any]]:
    out = []
    homes = allowed_homes(corp)
    for hex_id, h in sorted(game.board.hexes.items()):
        if homes is not None and hex_id not in homes:
            continue
        for ci, slots in enumerate(h.tokens):
            for si, ent in enumerate(slots):
                reserved = h.reservations[ci][si] if si < len(h.reservations[ci]) else None
                if ent is not None or reserved is not None:
                    continue
                if any(corp.sym in s for s in h.tokens) or _other_available_home(game, corp, hex_id):
                    continue
                cost = _home_cost(game, hex_id)
                if cost == K.VARIABLE_HOME_DEAR and price < K.VARIABLE_DEAR_MIN_START:
                    continue
                out.append({"city": game.board.city_id(hex_id, ci), "slot": si})
                break
    return out


# -- the takeover round -------------------------------------------------------------------------------------
def takeover_due(game: Game, previous: OperatingRound) -> bool:
    return game.phase_index >= 1 and previous.round_num >= game.operating_rounds and game.end_trigger is None


def outstanding(target: Corporation) -> list[Any]:
    return [s for s in target.shares if isinstance(s.owner, int) or s.owner == POOL]


def takeover_price(game: Game, target: Corporation) -> int:
    price = game.share_price(target) or 0
    return sum(price * s.percent // 10 for s in outstanding(target))


PAY_KINDS = ("cash", "shares")


def share_payment(game: Game, acquirer: Corporation, target: Corporation) -> dict[int, int]:
    """Player -> how many of the acquirer's treasury shares he receives when the acquirer pays in shares."""
    a_price = game.share_price(acquirer) or 0
    t_price = game.share_price(target) or 0
    left = sum(1 for s in acquirer.shares if s.owner == acquirer.sym and not s.president and s.percent == 10)
    dues: dict[int, int] = {}
    for share in outstanding(target):
        if isinstance(share.owner, int):
            dues[share.owner] = dues.get(share.owner, 0) + t_price * share.percent // 10
    out: dict[int, int] = {}
    for pid in sorted(dues):
        room = (K.MAX_HOLDING - acquirer.percent_owned_by(pid)) // 10
        n = min(dues[pid] // a_price if a_price else 0, left, max(room, 0))
        if n:
            out[pid] = n
            left -= n
    return out


def cash_needed(game: Game, acquirer: Corporation, target: Corporation, pay: str = "cash") -> int:
    if pay == "cash":
        return takeover_price(game, target)
    a_price = game.share_price(acquirer) or 0
    return takeover_price(game, target) - a_price * sum(share_payment(game, acquirer, target).values())


def connected_targets(game: Game, acquirer: Corporation) -> list[Corporation]:
    """Corporations with a station the acquirer's track reaches."""
    reach = game.board.reach(acquirer.sym)
    found: list[Corporation] = []
    for hex_id, code in sorted(reach.nodes):
        h = game.board.hex(hex_id)
        node = h.tile.nodes[code - NODE_BASE]
        if not node.is_city:
            continue
        for ent in h.tokens[node.index]:
            if ent and ent != acquirer.sym and ent in game.corporations:
                other = game.corporations[ent]
                if not other.closed and other.ipoed and other not in found:
                    found.append(other)
    return found


def may_acquire(game: Game, acquirer: Corporation) -> bool:
    return not acquirer.closed and any(not t.obsolete and not t.rusted for t in acquirer.trains)


def targets(game: Game, acquirer: Corporation) -> list[Corporation]:
    if not may_acquire(game, acquirer):
        return []
    return [t for t in connected_targets(game, acquirer) if pay_kinds(game, acquirer, t)]


def pay_kinds(game: Game, acquirer: Corporation, target: Corporation) -> list[str]:
    """The ways the acquirer can pay for the target: cash, and own shares when that gives any share."""
    out = []
    if takeover_price(game, target) <= acquirer.cash:
        out.append("cash")
    if share_payment(game, acquirer, target) and cash_needed(game, acquirer, target, "shares") <= acquirer.cash:
        out.append("shares")
    return out


def may_refuse(game: Game, target: Corporation) -> bool:
    return any(not t.obsolete and not t.rusted for t in target.trains)


class TakeoverRound(Round):
    kind = "Takeover"

    def __init__(self, game: Game) -> None:
        super().__init__([TakeoverStep()], 1)
        self.pending: tuple[str, str, str] | None = None  # (acquirer, target, pay) awaiting the target's answer

    def start(self, game: Game) -> None:
        order = sorted((c for c in game.corporations.values() if c.floated and not c.closed),
                       key=lambda c: -(game.share_price(c) or 0))
        self.entities = [c.sym for c in order]
        self.index = 0
        self._settle(game)

    def current_entity(self, game: Game) -> Any:
        if self.pending is not None and not self.done:
            return self.pending[1]
        return super().current_entity(game)

    def _settle(self, game: Game) -> None:
        while not self.done:
            if self.index >= len(self.entities):
                self.done = True
                return
            sym = self.entities[self.index]
            corp = game.corporations[sym]
            if self.pending is None and (corp.closed or not targets(game, corp)):
                self.index += 1
                continue
            for step in self.steps:
                step.passed = False
            return

    def after_process(self, game: Game, action: dict[str, Any]) -> None:
        if self.pending is None and action["type"] == "pass":
            self.index += 1
        self._settle(game)


class TakeoverStep(Step):
    handlers = {"merge": "merge", "choose": "choose", "pass": "pass_turn"}
    offers = {"merge": "offer_merge", "choose": "offer_choose", "pass": "offer_pass"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        assert isinstance(round_, TakeoverRound)
        if entity != round_.current_entity(game):
            return []
        if round_.pending is not None:
            return ["choose"]
        return ["merge", "pass"] if targets(game, game.corporations[entity]) else []

    def skip(self, game: Game, round_: Round) -> None:
        pass

    def merge(self, game: Game, round_: TakeoverRound, action: dict[str, Any], trusted: bool) -> None:
        acquirer = game.corporations[action["entity"]]
        target = game.corporation(action.get("corporation"))
        pay = action.get("pay", "cash")
        if pay not in PAY_KINDS:
            raise MalformedAction(f"pay for a takeover with {' or '.join(PAY_KINDS)}, not {pay!r}", "pay")
        if target not in targets(game, acquirer) or pay not in pay_kinds(game, acquirer, target):
            raise IllegalAction(f"{acquirer.sym} cannot take over {target.sym} paying {pay} (not connected, or it "
                                f"cannot pay {cash_needed(game, acquirer, target, pay)})", "takeover_target")
        if target.president == acquirer.president or not may_refuse(game, target):
            complete_takeover(game, acquirer, target, pay)
            return
        round_.pending = (acquirer.sym, target.sym, pay)

    def choose(self, game: Game, round_: TakeoverRound, action: dict[str, Any], trusted: bool) -> None:
        assert round_.pending is not None
        choice = action.get("choice")
        if choice not in ("accept", "refuse"):
            raise MalformedAction("answer a takeover with choice 'accept' or 'refuse'", "choice")
        acquirer, target = game.corporations[round_.pending[0]], game.corporations[round_.pending[1]]
        pay = round_.pending[2]
        round_.pending = None
        if choice == "accept":
            complete_takeover(game, acquirer, target, pay)

    def pass_turn(self, game: Game, round_: TakeoverRound, action: dict[str, Any], trusted: bool) -> None:
        pass

    def offer_merge(self, game: Game, round_: TakeoverRound, entity: str) -> list[dict[str, Any]]:
        """Each target with each way the acquirer can pay for it (cash, the default, is not stated)."""
        acquirer = game.corporations[entity]
        return [{"corporation": t.sym} if pay == "cash" else {"corporation": t.sym, "pay": pay}
                for t in targets(game, acquirer) for pay in pay_kinds(game, acquirer, t)]

    def offer_choose(self, game: Game, round_: TakeoverRound, entity: str) -> list[dict[str, Any]]:
        return [{"choice": c} for c in ("accept", "refuse")]


def complete_takeover(game: Game, acquirer: Corporation, target: Corporation, pay: str = "cash") -> None:
    """Buy back the target's outstanding shares and fold everything it owns into the acquirer."""
    price = game.share_price(target) or 0
    a_price = game.share_price(acquirer) or 0
    in_shares = share_payment(game, acquirer, target) if pay == "shares" else {}
    for pid, n in in_shares.items():
        treasury = [s for s in acquirer.shares if s.owner == acquirer.sym and not s.president and s.percent == 10]
        for share in treasury[:n]:
            acquirer.give(share, pid)
    if in_shares:
        change_presidency(acquirer, game.player_order, acquirer.president)
    credit = {pid: n * a_price for pid, n in in_shares.items()}
    for share in outstanding(target):
        amount = price * share.percent // 10
        receiver = game.player(share.owner) if isinstance(share.owner, int) else None
        if receiver is not None and credit.get(receiver.id):
            covered = min(credit[receiver.id], amount)
            credit[receiver.id] -= covered
            amount -= covered
        if amount:
            game.pay(acquirer, receiver, amount)
        target.give(share, target.sym)
    game.pay(target, acquirer, target.cash)
    for train in list(target.trains):
        target.trains.remove(train)
        train.owner = acquirer.sym
        acquirer.trains.append(train)
    for ferry, owner in state(game).ferries.items():
        if owner == target.sym:
            state(game).ferries[ferry] = acquirer.sym
    for sym in list(target.companies):
        game.companies[sym].owner = acquirer.sym
        acquirer.companies.append(sym)
    target.companies = []
    game.rules.sync_virtual_stations(game)  # type: ignore[attr-defined]
    for h in game.board.hexes.values():
        for slots in h.tokens:
            for i, ent in enumerate(slots):
                if ent == target.sym:
                    slots[i] = None if acquirer.sym in slots else acquirer.sym
        for slots in h.reservations:
            for i, ent in enumerate(slots):
                if ent == target.sym:
                    slots[i] = None
    game.board.forget_reach()
    for share in target.shares:
        share.owner = None
    target.closed = True
    target.share_cell = None
    takeovers = state(game).takeovers
    takeovers[acquirer.sym] = takeovers.get(acquirer.sym, 0) + 1
    cards = [t for t in game.depot.upcoming() if t.name == "6/9"]
    if len(cards) > T.of(game).six_nine_cards_kept:
        cards[-1].rusted = True


__all__ = ["TakeoverRound", "add_variable_corporations", "check_variable_home", "complete_takeover",
           "place_variable_home", "takeover_due", "variable_home_options"]

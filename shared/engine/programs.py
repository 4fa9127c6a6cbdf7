"""Standing orders (program_* actions): the server acts for a player while the order holds; and the
actions a title's rules take by themselves (`TitleRules.auto_action`), which nobody decides.

In live play the engine generates the resulting actions after each submitted action and stores them as
that action's `auto_actions`, exactly as recorded games carry them; a replay applies the recorded ones.
Every rule implemented here is written out in docs/standing-orders.md (rule numbers S1-S9 below).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.stock import BuySellParShares
from .core.stockround import StockRound
from .errors import EngineError, IllegalAction, MalformedAction
from .model import POOL

if TYPE_CHECKING:
    from .model import Corporation, Player, Share
    from .protocol import Game

MAX_AUTO = 64  # a bound on one cascade: every auto action is a pass, one purchase or one order change
# S7: the moves of other players an order watches. The reference records only these in a stock round:
# the share moves, 1825's sale of a private to the bank and 1828's `choose` that starts a merger; passing,
# buying a private and 1828's `failed_merge` are not recorded (gen1828_4p_612537 id 173: a pass order
# still passes after another player's failed merger).
WATCHED = frozenset({"buy_shares", "sell_shares", "par", "sell_company", "choose"})


# -- setting and clearing (S1) ---------------------------------------------------------------------------
def process_program(game: Game, action: dict[str, Any]) -> None:
    """S1: any player may set or clear a standing order at any moment, in any round, on or off turn; a
    player has at most one order, a new one replaces the old, `program_disable` removes it."""
    kind = action["type"]
    entity = action.get("entity")
    if not isinstance(entity, int) or entity not in {p.id for p in game.players}:
        raise IllegalAction("only a player sets a standing order", "program_entity")
    player = game.player(entity)
    if kind == "program_disable":
        player.programs = []
        return
    if kind == "program_buy_shares":
        corp = game.corporations.get(action.get("corporation"))
        if corp is None:
            raise MalformedAction(f"unknown corporation {action.get('corporation')!r}", "program_corporation")
        until = action.get("until_condition")
        if until != "float" and not (isinstance(until, int) and not isinstance(until, bool) and until > 0):
            raise MalformedAction("until_condition is 'float' or a number of shares", "program_until")
    program = dict(action)
    if not isinstance(program.get("id"), int):  # set by an order (S5.1): dated by its place in the round
        program.update(id=game.action_id, auto=True,
                       seq=game.round.moves if isinstance(game.round, StockRound) else 0)
    player.programs = [program]


def program_options(game: Game, player_id: Any) -> list[dict[str, Any]]:
    """S1's moves, as legal-actions offers them to a player at any moment: a pass order of each kind, a buy
    order for every corporation with certificates (until it floats, or until a share count: a range from 1,
    without an upper bound), from the IPO or the market, with or without a pass order after; and clearing the
    order the player has."""
    base = {"entity": player_id, "entity_type": "player"}
    out: list[dict[str, Any]] = [
        {"type": "program_share_pass", **base, "unconditional": unconditional, "indefinite": indefinite}
        for unconditional in (False, True) for indefinite in (False, True)]
    for corp in game.corporations.values():
        if corp.closed or not corp.shares:
            continue
        for from_market in (False, True):
            for after in (False, True):
                order = {"type": "program_buy_shares", **base, "corporation": corp.sym,
                         "from_market": from_market, "auto_pass_after": after}
                out.append({**order, "until_condition": "float"})
                # any positive count is taken (S1); one beyond the shares there are never ends the order
                out.append({**order, "until_condition": 1, "min": 1, "step": 1, "max": None})
    player = game.player(player_id)
    if player.programs:
        out.append({"type": "program_disable", **base, "reason": "user",
                    "original_type": player.programs[0]["type"]})
    return out


# -- the cascade -----------------------------------------------------------------------------------------
def run_programs(game: Game) -> list[dict[str, Any]]:
    """S2: after every action, while whoever must act now has an order that produces actions, apply them;
    then whatever the title's rules do by themselves. Returns the actions taken, in order."""
    taken: list[dict[str, Any]] = []
    for _ in range(MAX_AUTO):
        actions = next_auto_actions(game)
        if not actions:
            action = None if game.finished else game.rules.auto_action(game)
            if action is None:
                break
            actions = [action]
        for action in actions:
            try:
                game.process(action)
            except EngineError:
                # our own order produced an action the rules refuse: drop the order rather than corrupt play
                player = game.player(action["entity"])
                player.programs = []
                action = {"type": "program_disable", "entity": player.id, "entity_type": "player",
                          "reason": "the standing order could not be carried out"}
            taken.append(action)
    return taken


def next_auto_actions(game: Game) -> list[dict[str, Any]]:
    """What the order of the player who must act now produces (S3): nothing outside a stock round's
    buy/sell step, nothing when that player has no order or the step offers them nothing."""
    if game.finished or not isinstance(game.round, StockRound):
        return []
    acting = game.acting()
    if not acting or not isinstance(acting[0], int):
        return []
    player = game.player(acting[0])
    if not player.programs:
        return []
    round_ = game.round
    step = round_.active_step(game)
    if not isinstance(step, BuySellParShares):
        return []
    types = round_.actions_for(game, player.id)
    if not types:
        return []
    program = player.programs[0]
    if program["type"] == "program_share_pass":
        return _share_pass(game, step, player, program, types)
    if program["type"] == "program_buy_shares":
        return _buy_shares(game, step, player, program, types)
    return []


def _base(player: Player) -> dict[str, Any]:
    return {"entity": player.id, "entity_type": "player"}


def _disable(player: Player, reason: str) -> dict[str, Any]:
    return {"type": "program_disable", **_base(player), "reason": reason}


def _share_pass(game: Game, step: BuySellParShares, player: Player, program: dict[str, Any],
                types: list[str]) -> list[dict[str, Any]]:
    """S4: pass whenever passing is open; unless `unconditional`, first stop on anything suspicious (S6)."""
    if "pass" not in types:
        return []
    if not program.get("unconditional"):
        reason = _stop_reason(game, step, player, program, None)
        if reason:
            return [_disable(player, reason)]
    return [{"type": "pass", **_base(player)}]


def _buy_shares(game: Game, step: BuySellParShares, player: Player, program: dict[str, Any],
                types: list[str]) -> list[dict[str, Any]]:
    """S5: buy one certificate of the named corporation per turn from the named source until the end
    condition holds; then clear the order (and set a pass order when `auto_pass_after`).

    A corporation that has left the game (merged into another) has no certificates anywhere, so it counts
    as floated and the player holds none of it: its order is looked at as any other, ended when it waited for
    the float, cleared when a purchase is open (nothing to buy), else kept (S5.5; 1828: bot game
    camp1828_base_5p_7787909 index 619, 1001's order for C&O, merged into C&O-NYC, stays while 1001 can only
    sell; the reference clears it at the end of the round)."""
    corp = game.corporations.get(program.get("corporation"))
    if corp is None:
        name = str(program.get("corporation"))
        done = f"{name} is floated" if program.get("until_condition") == "float" else None
    else:
        name = game.rules.short_name(game, corp)
        done = _end_condition(program, corp, player, name)
    if done:
        out = [_disable(player, done)]
        if program.get("auto_pass_after"):
            out.append({"type": "program_share_pass", **_base(player), "unconditional": False, "indefinite": False})
        return out
    round_ = game.round
    assert isinstance(round_, StockRound)
    if step.examines_buy_order(game, round_, player, types):
        from_market = bool(program.get("from_market"))
        if corp is None:  # the rules' name for the treasury needs the corporation
            return [_disable(player, f"Cannot buy {name} from {'market' if from_market else 'IPO'}")]
        source = "market" if from_market else game.rules.ipo_name(game, corp)
        candidates = _source_shares(corp, from_market)
        buyable = [s for s in candidates if step.can_buy(game, round_, player, s) is None]
        if not buyable:
            return [_disable(player, f"Cannot buy {name} from {source}")]
        if len({s.percent for s in buyable}) != 1:
            return [_disable(player, f"Shares of different sizes exist, cannot auto buy {name} from {source}")]
        share = buyable[0]
        reason = _stop_reason(game, step, player, program, share)
        if reason:
            return [_disable(player, reason)]
        return [{"type": "buy_shares", **_base(player), "shares": [share.id], "percent": share.percent}]
    if round_.bought() and "pass" in types:
        return [{"type": "pass", **_base(player)}]
    return []


def _end_condition(program: dict[str, Any], corp: Corporation, player: Player, name: str) -> str | None:
    until = program.get("until_condition")
    if until == "float":
        return f"{name} is floated" if corp.floated else None
    if isinstance(until, int) and shares_held(corp, player.id) >= until:
        return f"{until} share(s) bought in {name}, end condition met"
    return None


def shares_held(corp: Corporation, owner: Any) -> float:
    """Holdings counted in normal shares (a 20% director's certificate of a 10% company counts 2)."""
    unit = min((s.percent for s in corp.shares if not s.president), default=10) or 10
    return corp.percent_owned_by(owner) / unit


def _source_shares(corp: Corporation, from_market: bool) -> list[Share]:
    """The certificates an order may take, in the order the source hands them out: the order they arrived
    there (the treasury's original certificates by number, before any that came back)."""
    owner = POOL if from_market else corp.sym
    return sorted((s for s in corp.shares if s.owner == owner and not s.president), key=lambda s: s.stamp)


# -- S6: suspicious moves by the others ------------------------------------------------------------------
def _stop_reason(game: Game, step: BuySellParShares, player: Player, program: dict[str, Any],
                 share: Share | None) -> str | None:
    """The first reason to hand the decision back to the player, or None.

    A player over a holding limit must decide what to sell. Otherwise every other player's moves in their
    latest turn of this stock round that came after the order was set are examined, players in the
    round's order, each player's moves grouped by corporation in the order first touched.
    """
    round_ = game.round
    assert isinstance(round_, StockRound)
    if step.must_sell(game, player):
        return f"{player.name} must sell shares"
    for other, moves in round_.history.items():
        if other == player.id:
            continue
        by_corp: dict[Any, list[dict[str, Any]]] = {}
        for move in moves:
            if move.get("type") not in WATCHED:
                continue
            if _before(game, move, program):
                continue  # the player saw it when setting the order
            by_corp.setdefault(_corp_of(move), []).append(move)
        for corp_sym, corp_moves in by_corp.items():
            for move in corp_moves:
                reason = _suspicious(game, step, player, game.player(other), move, corp_sym, share)
                if reason:
                    return reason
    return None


def _before(game: Game, move: dict[str, Any], program: dict[str, Any]) -> bool:
    """S8: was `move` made before the order was set?

    An order a player set is dated by its action's id, a move by the id of the player's action (an auto
    action by the action that caused it); an auto action caused by the very action that set the order
    counts as after it while that action's consequences are being worked out, and as before it from the
    next action on (the reference stamps stored auto actions a moment before their cause). An order set by
    an order is dated by its place among the round's moves: the moves recorded before it came first."""
    if program.get("auto"):
        return isinstance(move.get("seq"), int) and move["seq"] <= program.get("seq", 0)
    since, moved = program.get("id"), move.get("id")
    if not isinstance(since, int) or not isinstance(moved, int):
        return False
    if moved < since:
        return True
    return moved == since and move.get("auto") is True and game.action_id != since


def _corp_of(move: dict[str, Any]) -> Any:
    if move.get("type") == "par" or "corporation" in move:
        return move.get("corporation")
    shares = move.get("shares") or []
    return shares[0].rpartition("_")[0] if shares else None


def _suspicious(game: Game, step: BuySellParShares, player: Player, other: Player, move: dict[str, Any],
                corp_sym: Any, share: Share | None) -> str | None:
    """S7: which of another player's moves cancel an order."""
    kind = move.get("type")
    corp = game.corporations.get(corp_sym) if isinstance(corp_sym, str) else None
    if kind == "par":
        if share is None or step.sell_allowed_this_round(game):
            return f"Corporation {game.rules.short_name(game, corp) if corp else corp_sym} parred"
        return None
    if kind == "buy_shares":
        if corp is None or corp.president != player.id:
            return None
        mine = corp.percent_owned_by(player.id)
        if mine >= SECURE_PERCENT:
            return None
        if share is None or share.corporation != corp.sym:
            return f"{other.name} bought on corporation {game.rules.short_name(game, corp)} and is unsecure"
        after = mine + share.percent
        if after > SECURE_PERCENT:
            return None
        bigger = [s.percent for s in corp.shares if s.percent > share.percent and s.owner != player.id]
        if bigger and after < corp.percent_owned_by(other.id) + max(bigger):
            return f"{other.name} has bought, shares exist that could allow them to gain presidency"
        return None
    if kind == "sell_shares":
        return "Shares were sold"
    return f"Unknown action {kind} disabling for safety"


SECURE_PERCENT = 50  # a president holding this much cannot lose the chair

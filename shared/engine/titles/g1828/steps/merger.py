"""The merger that forms a System, in the stock round: who may start one and with which partner
(`merge_candidate`), the step that runs it (`Merger`), and the offers that steer clear of a merger that
would fail (it can only be taken back: `merger_completes` plays it out on a copy)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.rounds import Round, Step, dead_end
from ....errors import IllegalAction, MalformedAction
from ..exchange import Exchange, MergerState
from ..state import state
from ..systems import create_system

if TYPE_CHECKING:
    from ....core.stockround import StockRound
    from ....game import Game
    from ....model import Corporation

Option = dict[str, Any]
MAX_ANSWERS = 50  # questions a merger may ask (a few per player); a trial answering more has gone wrong


def merge_candidate(game: Game, round_: StockRound, player: int, corp: Corporation, other: Corporation) -> bool:
    """`other` is a partner `corp` may name for a System when the partner has been started, the acting
    player presides over one of the two, both have operated or neither has, one has floated, and some
    player holds 6 of their shares together (or exactly 5 without having sold either this round).

    Only the partner must have been started: the corporation that starts the merger may be one nobody
    has parred yet (gen1828_3p_136186 action 65: NYH, unstarted, is offered with MC as its partner)."""
    systems = state(game).systems
    if other is corp or corp.sym in systems or other.sym in systems or corp.kind != "major" \
            or other.kind != "major" or not other.ipoed or corp.closed or other.closed:
        return False
    if player not in (corp.president, other.president):
        return False
    if corp.operated != other.operated or not (corp.floated or other.floated):
        return False
    for p in game.players:
        shares = (corp.percent_owned_by(p.id) + other.percent_owned_by(p.id)) // 10
        sold = round_.sold.get(p.id, {})
        if shares >= 6 or (shares == 5 and not sold.get(corp.sym) and not sold.get(other.sym)):
            return True
    return False


def can_merge_any(game: Game, round_: StockRound, player: int) -> bool:
    corps = [c for c in game.corporations.values() if c.kind == "major"]
    # the player presides over one of the two; the starting one may be unstarted (no president)
    mine = [c for c in corps if c.president == player]
    return any(merge_candidate(game, round_, player, a, b) or merge_candidate(game, round_, player, b, a)
               for a in mine for b in corps)


class Merger(Step):
    """Runs a merger the acting player started; blocks the stock round until the exchanges are done."""

    handlers = {"merge": "merge", "choose": "choose", "failed_merge": "acknowledge_failure"}
    offers = {"merge": "offer_merge", "choose": "offer_answer", "failed_merge": "offer_acknowledgement"}
    dead_ends = {"merge": "dead_end_merges", "choose": "dead_end_answers"}

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

    def deciders(self, game: Game, round_: Round, entity: Any) -> list[int]:
        """Naming the partner is the starting corporation's move (`merge` names it as its entity): its
        president decides, also when another player started the merger with it; he may decline instead
        (`proposer`). A starting corporation nobody presides (unstarted) leaves it to the player who chose it."""
        state = getattr(round_, "merger", None)
        if state is not None and state.phase == "select_target" and entity == state.acting_player:
            president = game.controller(state.initiator)
            return [president if president is not None else state.acting_player]
        return super().deciders(game, round_, entity)

    def proposer(self, game: Game, round_: Round, entity: Any) -> int | None:
        """A merger started with another player's corporation is the starter's proposal to its president."""
        state = getattr(round_, "merger", None)
        if state is None or state.phase != "select_target":
            return None
        president = game.controller(state.initiator)
        return state.acting_player if president not in (None, state.acting_player) else None

    # -- the concrete moves ---------------------------------------------------------------------------------
    def offer_merge(self, game: Game, round_: Any, entity: Any) -> list[Option]:
        """The partners the starting corporation may name (its player may name them for it) with which the
        merger completes."""
        state: MergerState = round_.merger
        initiator = game.corporations[state.initiator]
        return [{"entity": initiator.sym, "entity_type": "corporation", "corporation": c.sym}
                for c in game.corporations.values()
                if merge_candidate(game, round_, state.acting_player, initiator, c)
                and merger_completes(game, [merge_move(initiator.sym, c.sym)])]

    def offer_answer(self, game: Game, round_: Any, entity: Any) -> list[Option]:
        """The answers to the question put to `entity` after which the merger still completes (later
        questions answered with their first label); when none does, every answer the engine takes (one that
        would leave the System's treasury short of the shares owed to the market is refused, so never
        offered)."""
        choice = round_.merger.choice
        if not choice or choice.chooser != entity:
            return []
        good = [label for label in choice.labels
                if merger_completes(game, [{"type": "choose", "entity": entity, "choice": label}])]
        if not good:
            good = [label for label in choice.labels
                    if game.accepts({"type": "choose", "entity": entity, "choice": label})]
        return [{"choice": label} for label in good]

    def dead_end_merges(self, game: Game, round_: Any, entity: Any) -> list[Option]:
        """The partners the engine takes with which the merger fails."""
        state: MergerState = round_.merger
        initiator = game.corporations[state.initiator]
        out = []
        for c in game.corporations.values():
            if merge_candidate(game, round_, state.acting_player, initiator, c):
                why = merger_failure(game, [merge_move(initiator.sym, c.sym)])
                if why is not None:
                    out.append(dead_end({"entity": initiator.sym, "entity_type": "corporation",
                                         "corporation": c.sym}, why))
        return out

    def dead_end_answers(self, game: Game, round_: Any, entity: Any) -> list[Option]:
        """The answers the engine takes after which the merger fails, when `offer_answer` has better ones
        (when none completes it offers every answer the engine takes)."""
        choice = round_.merger.choice
        if not choice or choice.chooser != entity:
            return []
        failures = {label: merger_failure(game, [{"type": "choose", "entity": entity, "choice": label}])
                    for label in choice.labels}
        if all(why is not None for why in failures.values()):
            return []
        return [dead_end({"choice": label}, why) for label, why in failures.items()
                if why is not None and game.accepts({"type": "choose", "entity": entity, "choice": label})]

    def offer_acknowledgement(self, game: Game, round_: Any, entity: Any) -> list[Option]:
        """Nothing: a failed merger can only be taken back (`acknowledge_failure`)."""
        return []

    # -- actions ------------------------------------------------------------------------------------------
    def merge(self, game: Game, round_: Any, action: dict[str, Any], trusted: bool) -> None:
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




def merge_move(initiator: str, target: str) -> Option:
    return {"type": "merge", "entity": initiator, "corporation": target}


def merger_completes(game: Game, moves: list[Option]) -> bool:
    """Does the merger `moves` start or answer complete? One that fails can only be taken back, so the offers
    steer clear of it (`merger_failure` says why)."""
    return merger_failure(game, moves) is None


def merger_failure(game: Game, moves: list[Option]) -> str | None:
    """Play `moves` on a copy, then every question the merger asks answered with its first label: why the
    merger does not complete (None: it does)."""
    trial = game.trial()
    try:
        for move in moves:
            trial.process(move)
        for _ in range(MAX_ANSWERS):
            state = getattr(trial.round, "merger", None)
            if state is None or state.choice is None:
                break
            trial.process({"type": "choose", "entity": state.choice.chooser, "choice": state.choice.labels[0]})
    except IllegalAction as err:
        return str(err)
    state = getattr(trial.round, "merger", None)
    if state is None:
        return None
    if state.phase == "failed":
        return "the System's president would end with fewer than three System shares, so the merger fails"
    return "the merger does not end"


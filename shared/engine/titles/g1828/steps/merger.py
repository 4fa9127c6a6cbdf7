"""The merger that forms a System, in the stock round: who may start one and with which partner
(`merge_candidate`), the step that runs it (`Merger`), and the way out of a merger that cannot complete:
the player declares it failed, from the position before it (`Merger.dead_end`, `Merger.acknowledge_failure`;
rules-1828.md "A merger that cannot complete")."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from ....core.rounds import Round, Step
from ....errors import IllegalAction, MalformedAction
from ..exchange import Exchange, MergerState
from ..state import state
from ..systems import create_system

if TYPE_CHECKING:
    from ....core.stock import StockRound
    from ....game import Game
    from ....model import Corporation

Option = dict[str, Any]


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

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        state = getattr(round_, "merger", None)
        if state is None:
            return []
        failure = ["failed_merge"] if entity == state.acting_player and self.dead_end(game, round_) else []
        if state.phase == "failed":  # the acting player declares the failure (or takes it all back)
            return failure
        if state.phase == "select_target":  # the starting corporation names its partner, its player acting
            return (["merge"] if entity in (state.initiator, state.acting_player) else []) + failure
        return ["choose"] if state.choice is not None and entity == state.choice.chooser else []

    def blocking(self, game: Game, round_: Round) -> bool:
        return getattr(round_, "merger", None) is not None

    def dead_end(self, game: Game, round_: Any) -> bool:
        """The merger cannot complete: it has failed (its president had no System share to give), or its
        starting corporation has no partner it can form a System with (one not yet started has no price)."""
        state: MergerState = round_.merger
        if state.phase == "failed":
            return True
        return state.phase == "select_target" and not self.partners(game, round_)

    def partners(self, game: Game, round_: Any) -> list[Corporation]:
        """The corporations the starting one may name (`merge` takes them)."""
        state: MergerState = round_.merger
        initiator = game.corporations[state.initiator]
        if initiator.share_cell is None:
            return []
        return [c for c in game.corporations.values()
                if merge_candidate(game, round_, state.acting_player, initiator, c)]

    def takes_back(self, game: Game, round_: Any, action: dict[str, Any]) -> int | None:
        """A declared failure is played from the position before the merger: the id of the `choose` that
        started it, so that a session undoes the moves from there first (the reference's client posts that
        undo before the failure; a record replays as it does)."""
        state = getattr(round_, "merger", None)
        if state is None or action.get("type") != "failed_merge" or action.get("entity") != state.acting_player \
                or not self.dead_end(game, round_):
            return None
        return state.start_id

    # -- the concrete moves ---------------------------------------------------------------------------------
    def offer_merge(self, game: Game, round_: Any, entity: Any) -> list[Option]:
        """Every partner the starting corporation may name (its player may name it for it): the merger may
        still fail later, and is then declared failed (`dead_end`)."""
        initiator = round_.merger.initiator
        return [{"entity": initiator, "entity_type": "corporation", "corporation": c.sym}
                for c in self.partners(game, round_)]

    def offer_answer(self, game: Game, round_: Any, entity: Any) -> list[Option]:
        """Every answer to the question put to `entity`."""
        choice = round_.merger.choice
        if not choice or choice.chooser != entity:
            return []
        return [{"choice": label} for label in choice.labels]

    def offer_acknowledgement(self, game: Game, round_: Any, entity: Any) -> list[Option]:
        """The declared failure of a merger that cannot complete, naming its two corporations (the partner
        not yet named: the first it could have been)."""
        state: MergerState = round_.merger
        if entity != state.acting_player or not self.dead_end(game, round_):
            return []
        target = state.target or next(
            (c.sym for c in game.corporations.values()
             if merge_candidate(game, round_, state.acting_player, game.corporations[state.initiator], c)), None)
        return [{"corporations": [state.initiator, target]}] if target else []

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
        """A merger that cannot complete is declared failed from the position before it (rules-1828.md, "A
        merger that cannot complete"): the game goes back to where it stood before the `choose` (the state
        the merger kept), and there the declaration is the player's purchase for the turn. A session undoes
        the merger's moves first (`takes_back`), so this is reached only by a game on its own (a trial)."""
        state: MergerState = round_.merger
        if not self.dead_end(game, round_):
            raise IllegalAction("the merger can still complete: it is not failed", "failed_merge")
        if state.before is None:
            raise IllegalAction("a failed merger can only be taken back (undo)", "failed_merge")
        serial, action_id = game.serial, game.action_id
        before = pickle.loads(state.before)
        game.__dict__.clear()
        game.__dict__.update(before.__dict__)
        game.serial, game.action_id = serial, action_id
        game.round.process(game, action, trusted)

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

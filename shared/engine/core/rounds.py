"""Rounds as ordered lists of small steps.

Each step says which action types the current entity may take now; the first step with something to
offer blocks the ones after it. A step with nothing to offer is skipped (its `skip` may act on its own,
e.g. withholding when no train ran). This is what makes "what may I do now?" fall out for free.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from ..errors import EngineError, IllegalAction, MalformedAction

if TYPE_CHECKING:
    from ..protocol import Game


def dead_end(option: dict[str, Any], why: str) -> dict[str, Any]:
    """A move the engine takes that leaves only an undo, with its reason, as `Step.dead_end_options` (and a
    round with no steps) names it: one wording for every title."""
    return {**option, "reason": f"{why}; it could only be taken back"}


def controlled_by(game: Game, entity: Any) -> list[int]:
    """The entity's controller as the players who decide its moves (none for an entity nobody controls)."""
    player = game.controller(entity)
    return [] if player is None else [player]


class Step:
    """One piece of a turn, and the one home of its rules: which action types are open now (`actions`), the
    concrete moves of each (`offers` -> `options`), why one is refused (`refusal`) and what it does
    (`handlers`), each an action type -> method name."""

    handlers: dict[str, str] = {}
    # action type -> name of the method listing that type's concrete options now (see `options`)
    offers: dict[str, str] = {}
    # action type -> name of the method listing the moves of that type the handler takes but `offers` leaves
    # out because the game can only be taken back from where they lead (see `dead_end_options`)
    dead_ends: dict[str, str] = {}

    def __init__(self) -> None:
        self.passed = False

    def setup(self, game: Game, round_: Round) -> None:
        """Called when a new entity starts its turn."""
        self.passed = False

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        return []

    def blocking(self, game: Game, round_: Round) -> bool:
        return not self.passed and bool(self.actions(game, round_, round_.current_entity(game)))

    def skip(self, game: Game, round_: Round) -> None:
        self.passed = True

    def options(self, game: Game, round_: Round, entity: Any,
                kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        """Every concrete action this step accepts from `entity` now, each with its "type" (`kinds`: only
        those types). Each open type is expanded by the method `offers` names for it, which runs the same
        checks as the type's handler, so what is offered is what `process` accepts."""
        out: list[dict[str, Any]] = []
        for kind in self.actions(game, round_, entity):
            if kinds is not None and kind not in kinds:
                continue
            for option in self.offer(game, round_, entity, kind):
                option.setdefault("type", kind)
                out.append(option)
        return out

    def offer(self, game: Game, round_: Round, entity: Any, kind: str) -> list[dict[str, Any]]:
        """The concrete options of one open type (without "type"): the method `offers` names. A type a step
        opens must be offered by it: a move nobody is shown is a move nobody can make."""
        name = self.offers.get(kind)
        if name is None:
            raise NotImplementedError(f"{type(self).__name__} opens {kind!r} but offers no options for it")
        return getattr(self, name)(game, round_, entity)

    def offer_pass(self, game: Game, round_: Round, entity: Any) -> list[dict[str, Any]]:
        return [{}]

    def dead_end_options(self, game: Game, round_: Round, entity: Any) -> list[dict[str, Any]]:
        """Moves this step accepts from `entity` now that are not offered because no way forward is left
        after them (only an undo): a player may still make one, so the answer names them, each with its
        "type" and the "reason" it leads nowhere. A bot or a numbered email list never sees them among the
        offers, so an offered move never strands a game."""
        out: list[dict[str, Any]] = []
        for kind in self.actions(game, round_, entity):
            name = self.dead_ends.get(kind)
            for option in getattr(self, name)(game, round_, entity) if name else []:
                option.setdefault("type", kind)
                out.append(option)
        return out

    def refusal(self, game: Game, round_: Round, action: dict[str, Any]) -> EngineError | None:
        """Why an action type this step handles is not open now, in the words of the rule (or None)."""
        return None

    def deciders(self, game: Game, round_: Round, entity: Any) -> list[int]:
        """The players who decide the moves this step offers `entity` now: the players who control the
        entities those moves name. By default the entity's own controller; a step whose offers name another
        entity (an 1828 merger partner named by another player's corporation) says whose they are."""
        return controlled_by(game, entity)

    def proposer(self, game: Game, round_: Round, entity: Any) -> int | None:
        """The player whose move put the question now offered to `entity`'s deciders, when they answer
        another player (they may decline: the table takes his move back); None when the move is their own."""
        return None

    def process(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        name = self.handlers[action["type"]]
        getattr(self, name)(game, round_, action, trusted)


class Round:
    kind = "Round"
    # several rounds of this kind are played in one set (operating rounds): players number them by set and
    # place, "OR 3.2"; a round played once a set is numbered by the set alone, "SR 3"
    several_per_set = False
    # What the blocking step offered when the last action settled: (game.serial, step, entity, offered).
    # Working out a step's actions is the costly part of an action (the stock step checks every share),
    # and the next action's `process` asks the very same question of the very same state; this answer is
    # used only while no other action has started since (class defaults: states pickled before have none).
    _offer: tuple[int, Step, Any, list[str]] | None = None
    _known_blocking: Step | None = None  # within `settle`: the step just found blocking (not asked twice)

    def __init__(self, steps: list[Step], round_num: int = 1) -> None:
        self.steps = steps
        self.round_num = round_num
        self.entities: list[Any] = []
        self.index = 0
        self.done = False

    # -- flow ---------------------------------------------------------------------------------------------
    def start(self, game: Game) -> None:
        raise NotImplementedError

    def current_entity(self, game: Game) -> Any:
        if self.done or not self.entities:
            return None
        return self.entities[self.index]

    def finished(self, game: Game) -> bool:
        return self.done

    def active_step(self, game: Game) -> Step | None:
        known = self._known_blocking
        for step in self.steps:
            if step is known or self._blocks(game, step, keep=known is not None):
                return step
        return None

    def _blocks(self, game: Game, step: Step, keep: bool = False) -> bool:
        """`step.blocking`; `keep` (while settling): remember what a step with the default test offers, for
        the next action's `process`."""
        if not keep or type(step).blocking is not Step.blocking:
            return step.blocking(game, self)
        if step.passed:
            return False
        entity = self.current_entity(game)
        offered = step.actions(game, self, entity)
        if offered:
            self._offer = (getattr(game, "serial", 0), step, entity, list(offered))
        return bool(offered)

    def _offered(self, game: Game, step: Step, entity: Any, memo: tuple[int, Step, Any, list[str]] | None) -> list[str]:
        """`step.actions` for the action being processed: the answer kept when the previous action settled
        if no action has begun since (`game.serial` counts them), else asked afresh."""
        if memo is not None:
            serial, known, who, offered = memo
            if known is step and who == entity and serial == getattr(game, "serial", 0) - 1:
                return list(offered)
        return step.actions(game, self, entity)

    def actions_for(self, game: Game, entity: Any) -> list[str]:
        if self.done or entity != self.current_entity(game):
            return []
        out: list[str] = []
        for step in self.steps:
            if step.passed:
                continue
            found = step.actions(game, self, entity)
            for kind in found:
                if kind not in out:
                    out.append(kind)
            if found:
                break
        return out

    def options(self, game: Game, entity: Any, kinds: Collection[str] | None = None) -> list[dict[str, Any]]:
        """Every concrete move `entity` may make now in this round's steps: those of the step `actions_for`
        asks (the first one with something for it). A round that opens moves beside its steps (it overrides
        `actions_for`) overrides this too, so both answers stay one."""
        step = self.asked_step(game, entity)
        return step.options(game, self, entity, kinds) if step is not None else []

    def dead_ends(self, game: Game, entity: Any) -> list[dict[str, Any]]:
        """The moves of the step `options` asks that lead where the game can only be taken back from
        (`Step.dead_end_options`). Only a round with such a step asks (a round that overrides `options` asks
        its steps in its own way, so its steps may not be asked about every entity)."""
        if not any(step.dead_ends for step in self.steps):
            return []
        step = self.asked_step(game, entity)
        return step.dead_end_options(game, self, entity) if step is not None else []

    def asked_step(self, game: Game, entity: Any) -> Step | None:
        """The step whose moves `entity` is offered now: the first one not passed with something for it."""
        if self.done or entity != self.current_entity(game):
            return None
        return next((step for step in self.steps if not step.passed and step.actions(game, self, entity)), None)

    def acting_type(self, game: Game, entity: Any) -> str | None:
        """What a symbol two kinds of entity share (1828's C&P: a minor and a private) names while it acts
        now ("company": the private acting for its owner), or None (the corporation, as anywhere else)."""
        return None

    def deciders(self, game: Game, entity: Any) -> list[int]:
        """Who decides `entity`'s moves now (`Step.deciders` of the step that offers them). Only a round
        with a step that names others asks its steps; otherwise it is the entity's controller, at no cost."""
        if any(type(step).deciders is not Step.deciders for step in self.steps):
            step = self.asked_step(game, entity)
            if step is not None:
                return step.deciders(game, self, entity)
        return controlled_by(game, entity)

    def proposer(self, game: Game, entity: Any) -> int | None:
        """Whose move the question offered to `entity`'s deciders answers (`Step.proposer`), if another's."""
        if any(type(step).proposer is not Step.proposer for step in self.steps):
            step = self.asked_step(game, entity)
            if step is not None:
                return step.proposer(game, self, entity)
        return None

    def extra_options(self, game: Game, entity: Any) -> list[dict[str, Any]]:
        """The concrete moves this round's own `process` takes from `entity` beside its steps' (each with its
        "type"), e.g. a private sold at any moment; none by default."""
        return []

    def skip_steps(self, game: Game) -> None:
        for step in self.steps:
            if step.passed:
                continue
            if step.blocking(game, self):
                return
            step.skip(game, self)
            if self.done or game.finished:
                return

    def settle(self, game: Game) -> Step | None:
        """Skip the steps with nothing to offer and return the step that blocks now (None: turn over).

        The same answer as `skip_steps` followed by `active_step`, without asking every step twice: only
        when a step was skipped (a skip may act, e.g. buy a train) is the whole list asked again.

        While the steps are only asked, nothing changes, so the answers every step asks for again (who
        acts, who is over the train limit) are kept for that stretch (`asking`); a skip starts a new one.
        """
        self._offer = None
        skipped = False
        game.asking = {}
        try:
            for step in self.steps:
                if step.passed:
                    continue
                if self._blocks(game, step, keep=True):
                    if not skipped:
                        return step
                    # a skip may have opened an earlier step; this one's answer cannot have changed since
                    self._known_blocking = step
                    try:
                        return self.active_step(game)
                    finally:
                        self._known_blocking = None
                game.asking = None
                step.skip(game, self)
                game.asking = {}
                skipped = True
                if self.done or game.finished:
                    return None
            return self.active_step(game) if skipped else None
        finally:
            game.asking = None

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        entity = action.get("entity")
        current = self.current_entity(game)
        if entity != current:
            if self._entity_unknown(game, entity):
                raise MalformedAction(f"unknown entity {entity!r}", "entity")
            raise IllegalAction(
                f"it is not {entity}'s turn: {current} must act now ({self.kind} round)", "not_your_turn"
            )
        kind = action["type"]
        memo, self._offer = self._offer, None
        for step in self.steps:
            if step.passed:
                continue
            offered = self._offered(game, step, entity, memo)
            if kind in offered:
                step.process(game, self, action, trusted)
                self.after_process(game, action)
                return
            if offered:
                self._refuse(game, step, action, offered)
        raise IllegalAction(f"{entity} has nothing to do with {kind} now", "wrong_action_now")

    def _refuse(self, game: Game, step: Step, action: dict[str, Any], offered: list[str]) -> None:
        specific = None
        for candidate in self.steps:
            if action["type"] in candidate.handlers:
                specific = candidate.refusal(game, self, action)
                if specific is not None:
                    break
        allowed = f"; allowed now: {', '.join(offered)}"  # the sentence; `valid` carries the same list
        if specific is not None:
            raise type(specific)(specific.message + allowed, specific.rule, valid=list(offered),
                                 reason=specific.reason)
        reason = f"{action['entity']} cannot {action['type']} now"
        raise IllegalAction(reason + allowed, "wrong_action_now", valid=list(offered), reason=reason)

    def _entity_unknown(self, game: Game, entity: Any) -> bool:
        if isinstance(entity, int) and not isinstance(entity, bool):
            return all(p.id != entity for p in game.players)
        if isinstance(entity, str):
            return entity not in game.corporations and entity not in game.companies
        return True

    def after_process(self, game: Game, action: dict[str, Any]) -> None:
        raise NotImplementedError

"""What every 1840 round but the stock round shares: a flow round (docs/architecture.md, *Flow rounds*).

A flow round is one state machine, not a list of steps: its own state says who acts and which action
types are open (`open_actions`, the same answer `process` enforces). Beside that it carries what a `Step`
carries, in the same shape: `handlers` (type -> method doing it) and `offers` (type -> method listing its
concrete moves, run with the handler's own checks), and `settle` moves on to whoever must act next. So a
rule, its choices and its handler stay together on the round. A private may be sold to the bank in any of
them (`extra_options`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Protocol, cast

from ...core.rounds import Round
from ...errors import IllegalAction, MalformedAction

if TYPE_CHECKING:
    from ...board.trains import TrainKind
    from ...game import Game
    from ...model import Corporation, Player, Train

ORANGE = "#ffa500"
REMOVE_TOKEN_COST = 40  # a line clears a Stadtbahn station off an orange-framed city (seen in play)
LINE_MIN_BID, LINE_BID_STEP = 20, 5  # line auctions open at 20 and rise in steps of 5
MAX_LAYS = 2  # a line's own tile lays per turn (the reference's TILE_LAYS; extra lays come on top)
MAX_LINES = 3  # lines one Tram Company may own


class Rules(Protocol):
    """What the rounds ask of 1840's rules: the protocol `rules.Rules1840` implements, declared here below it
    (the rules compose the rounds, so the rounds never import them)."""

    def after_tram_bought(self, game: Game, train: Train) -> None: ...
    def all_majors_started(self, game: Game) -> bool: ...
    def base_name(self, game: Game, train: Train) -> str: ...
    def buyable_variants(self, game: Game) -> list[str]: ...
    def cr_multiplier(self, game: Game) -> int: ...
    def extras(self, game: Game) -> dict[str, Any]: ...
    def in_operating_order(self, game: Game, corps: list[Corporation]) -> list[Corporation]: ...
    def lines_of(self, game: Game, major: Corporation) -> list[Corporation]: ...
    def maintenance_of(self, game: Game, line: Corporation) -> int: ...
    def majors(self, game: Game) -> list[Corporation]: ...
    def mark_arrival(self, game: Game, corp: Corporation) -> None: ...
    def move_by_dividend(self, game: Game, corp: Corporation, paid: int) -> None: ...
    def owner_major(self, game: Game, line: Corporation) -> Corporation | None: ...
    def rule(self, game: Game, name: str, default: Any = None) -> Any: ...
    def set_cell(self, game: Game, corp: Corporation, cell: tuple[int, int]) -> None: ...
    def take_loans(self, game: Game, player: Player, needed: int) -> None: ...
    def train_kinds(self, game: Game) -> dict[str, TrainKind]: ...


def rules_of(game: Game) -> Rules:
    """The game's rules as 1840's (the rounds reach the rules' helpers through this, never by importing
    `rules.py`, which composes them)."""
    return cast("Rules", game.rules)


def need_int(action: dict[str, Any], key: str) -> int:
    value = action.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedAction(f"{action.get('type')} needs an integer {key}", key)
    return value


Option = dict[str, Any]


class FlowRound(Round):
    """A round whose current entity and open action types are computed from its own state (no steps)."""

    handlers: dict[str, str] = {}
    # action type -> name of the method `(game, entity) -> list[Option]` listing that type's concrete moves
    offers: dict[str, str] = {}
    # types whose candidates only a try on a copy can settle (a run: its routes are searched, then checked)
    tried: frozenset[str] = frozenset()
    # action type -> name of the method `(game, entity) -> list[Option]` listing the moves of that type the
    # handler takes but `offers` leaves out, since only an undo could follow them (each with its "reason")
    dead_end_offers: dict[str, str] = {}

    def __init__(self, round_num: int = 1) -> None:
        super().__init__([], round_num)

    def open_actions(self, game: Game) -> list[str]:
        """The action types the current entity may take now."""
        raise NotImplementedError

    def options(self, game: Game, entity: Any, kinds: Collection[str] | None = None) -> list[Option]:
        """Every concrete move `entity` may make now, each with its "type": the types `actions_for` opens,
        each expanded by the method `offers` names for it (the same checks as its handler; a type in
        `tried` is also tried on `game.trial()`), so what is offered is what `process` accepts."""
        out: list[Option] = []
        for kind in self.actions_for(game, entity):
            if kinds is not None and kind not in kinds:
                continue
            name = self.offers.get(kind)
            if name is None:
                raise NotImplementedError(f"{type(self).__name__} opens {kind!r} but offers no options for it")
            for option in getattr(self, name)(game, entity):
                option = {"type": kind, **option}
                if kind in self.tried and not game.accepts({**option, "entity": entity}):
                    continue
                out.append(option)
        return out

    def offer_pass(self, game: Game, entity: Any) -> list[Option]:
        return [{}]

    def dead_ends(self, game: Game, entity: Any) -> list[Option]:
        """The moves of the open types that `dead_end_offers` names (`Step.dead_end_options`, for a round
        with no steps)."""
        out: list[Option] = []
        for kind in self.actions_for(game, entity):
            name = self.dead_end_offers.get(kind)
            out += [{"type": kind, **option} for option in (getattr(self, name)(game, entity) if name else [])]
        return out

    def settle(self, game: Game) -> None:
        """After an action: skip entities with nothing to do, end the round when nobody is left."""

    def after_sale(self, game: Game) -> None:
        """After a private's sale to the bank (which is nobody's turn): by default nothing moves on."""

    def actions_for(self, game: Game, entity: Any) -> list[str]:
        if self.done or entity != self.current_entity(game):
            return []
        return self.open_actions(game)

    def process(self, game: Game, action: dict[str, Any], trusted: bool) -> None:
        entity = action.get("entity")
        kind = action["type"]
        if kind == "choose_ability" and entity in game.companies:
            sell_company(game, action)
            self.after_sale(game)
            return
        current = self.current_entity(game)
        if entity != current:
            if self._entity_unknown(game, entity):
                raise MalformedAction(f"unknown entity {entity!r}", "entity")
            raise IllegalAction(f"it is not {entity}'s turn: {current} must act now ({self.kind} round)",
                                "not_your_turn")
        offered = self.open_actions(game)
        if kind not in offered:
            raise IllegalAction(f"{entity} cannot {kind} now; allowed: {', '.join(offered) or 'nothing'}",
                                "wrong_action_now", valid=list(offered), reason=f"{entity} cannot {kind} now")
        getattr(self, self.handlers[kind])(game, action, trusted)
        self.settle(game)

    def after_process(self, game: Game, action: dict[str, Any]) -> None:
        self.settle(game)

    def extra_options(self, game: Game, entity: Any) -> list[dict[str, Any]]:
        """`sell_company` at any moment of these rounds: the private's owner sells it to the bank."""
        return sale_options(game, entity)


def sale_options(game: Game, entity: Any) -> list[dict[str, Any]]:
    """A private with an owner may be sold (`choose_ability`, choice sell): the move its owner makes."""
    company = game.companies.get(entity) if isinstance(entity, str) else None
    if company is None or entity in game.corporations or company.closed or company.owner is None:
        return []
    return [{"type": "choose_ability", "entity": entity, "entity_type": "company", "choice": {"type": "sell"}}]


def sell_company(game: Game, action: dict[str, Any]) -> None:
    """A private may be sold to the bank for its face value at any time by its owner."""
    company = game.companies[action["entity"]]
    choice = action.get("choice")
    if not isinstance(choice, dict) or choice.get("type") != "sell":
        raise MalformedAction("choose_ability needs choice {'type': 'sell'}", "choice")
    if company.closed or company.owner is None:
        raise IllegalAction(f"{company.sym} has no owner to sell it", "sell_company")
    owner = company.owner
    if isinstance(owner, int):
        player = game.player(owner)
        game.pay(None, player, company.value)
        player.companies.remove(company.sym)
    else:
        corp = game.corporations[owner]
        game.pay(None, corp, company.value)
        corp.companies.remove(company.sym)
    company.owner = None
    company.closed = True

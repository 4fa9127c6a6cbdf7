"""The game state and the checked door through which every action passes.

`Game.process` validates an action completely before changing anything, so a refused action leaves the
state as it was. Titles are composed from shared pieces (see `titles/`); this module holds the parts of
the flow every title shares: money, certificates, trains and phases, round sequencing, game end.
"""

from __future__ import annotations

import pickle
from functools import lru_cache
from typing import Any

from . import history, titledata
from .actions import action_types
from .board.trains import TrainKind, kinds_from_setup
from .core.depot import Depot, Phase, phases_from, trains_from
from .core.market import StockMarket
from .core.rounds import Round
from .core.shares import Bundle, change_presidency, move_bundle
from .errors import EngineError, IllegalAction, MalformedAction
from .model import Company, Corporation, Player, Share, TitleState, Train
from .rng import Rng
from .titles import TitleRules, rules_for


class Definition:
    """The immutable part of a game (data, market grid, title rules), shared by all states of it."""

    def __init__(self, title: str, options: tuple[str, ...], players: int) -> None:
        self.key = (title, options, players)
        self.rules: TitleRules = rules_for(title)
        chosen = list(options)
        if self.rules.drops_options_by_players:
            chosen = titledata.options_for_players(title, chosen, players)
        options_n = self.rules.normalise_options(chosen, players)
        self.data = titledata.load(title, options_n, players, self.rules.compose_data)
        self.options = options_n
        self.market = StockMarket(self.data.setup["market"])
        self.phases: list[Phase] = phases_from(self.data.setup["phases"])
        self.phase_names = [p.name for p in self.phases]
        self.board = self.rules.load_board(self.data)
        # what each train name runs as (distance, what it counts): fixed by the data, so one table per
        # definition rather than a copy in every state
        self.train_kinds: dict[str, TrainKind] = kinds_from_setup(self.data.setup["trains"])
        self.action_types = action_types(self.rules.title_actions)  # what `Game.process` takes


@lru_cache(maxsize=32)
def definition(title: str, options: tuple[str, ...], players: int) -> Definition:
    return Definition(title, options, players)


class Game:
    """One game's state. Mutable, but only through `process`, which is all-or-nothing."""

    finished: bool
    game_end_reason: str | None
    loading = False  # True while a session rebuilds the state from its actions (after undo/redo)
    watched = False  # True once a title let being looked at change the state (its rebuild differs)
    # while `Round.settle` only asks the steps (nothing changes): answers asked for again and again, kept
    # for that stretch alone (`Round.settle`); None otherwise, and never copied
    asking: dict[Any, Any] | None = None

    # -- set-up -------------------------------------------------------------------------------------------
    @classmethod
    def new(cls, title: str, players: list[dict[str, Any]], seed: int, optional_rules: list[str]) -> Game:
        if not players:
            raise MalformedAction("a game needs players", "players")
        ids = [p.get("id") for p in players]
        if len(set(ids)) != len(ids) or not all(isinstance(i, int) for i in ids):
            raise MalformedAction("player ids must be distinct integers", "players")
        defn = definition(title, tuple(optional_rules), len(players))
        game = cls.__new__(cls)
        game._init(defn, players, seed)
        return game

    def _init(self, defn: Definition, players: list[dict[str, Any]], seed: int) -> None:
        self.defn = defn
        setup = defn.data.setup
        self.rng = Rng(seed)
        self.players: list[Player] = [Player(p["id"], str(p.get("name", p["id"]))) for p in players]
        self.player_order: list[int] = [p.id for p in self.players]
        self.bank_cash: int = self.rules.initial_bank_cash(self)
        self.corporations: dict[str, Corporation] = {}
        for raw in setup["corporations"]:
            if raw.get("in_game") is False:
                continue
            self.corporations[raw["sym"]] = self._make_corporation(raw)
        for raw in setup.get("minors") or []:
            if raw.get("in_game") is False:
                continue
            self.corporations[raw["sym"]] = self._make_corporation(raw)
        self.companies: dict[str, Company] = {}
        for raw in setup["companies"]:
            if raw.get("in_game") is False:
                continue
            self.companies[raw["sym"]] = Company(
                raw["sym"], raw["name"], raw["value"], raw["revenue"], raw.get("min_price") or 0,
                raw.get("max_price") or 0, list(raw.get("abilities") or []),
            )
        self.depot = Depot(trains_from(setup["trains"]))
        self.phase_index = 0
        self.turn = 1
        self.operating_rounds = self.phase.operating_rounds
        self.finished = False
        self.game_end_reason = None
        self.end_trigger: tuple[str, str] | None = None  # (reason, timing)
        self.bank_broken = False
        self.last_action: dict[str, Any] | None = None
        # id of the player's action being processed; auto actions it causes carry no id and share this one
        # (a standing order compares it with the id of the action that set the order: programs.py)
        self.action_id = 0
        self.history_notes: dict[int, dict[str, Any]] = {}  # what history lines say beyond the action (history.py)
        self.board = defn.board.clone()
        self.title_state: TitleState = self.rules.state_class()
        starting = setup["starting_cash"][str(len(self.players))]
        for player in self.players:
            self.pay(None, player, starting)
        self.rules.setup(self)
        self.round: Round = self.rules.first_round(self)
        self.round.start(self)

    def _make_corporation(self, raw: dict[str, Any]) -> Corporation:
        shares = [
            Share(raw["sym"], i, pct, raw["sym"], president=(i == 0)) for i, pct in enumerate(raw["shares"])
        ]
        return Corporation(
            sym=raw["sym"],
            name=raw["name"],
            kind=self.rules.corporation_kind(raw),
            home=raw.get("home"),
            home_city_index=raw.get("home_city_index"),
            token_prices=list(raw.get("token_prices") or [0]),
            float_percent=raw.get("float_percent") or 60,
            shares=shares,
            capitalization=raw.get("capitalization") or "full",
            max_ownership_percent=raw.get("max_ownership_percent") or 100,
            fixed_par=raw.get("par"),
            band=raw.get("band"),
            required_train=raw.get("required_train"),
            abilities=list(raw.get("abilities") or []),
        )

    # -- pickling: the definition is rebuilt from its key, never stored --------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("asking", None)  # answers kept for one stretch of `Round.settle`, never for a copy
        state.pop("_pickled", None)  # this very state pickled (`trial`): a copy has its own
        state.pop("_processing", None)
        state.pop("_reaches", None)  # a copy's reaches for its board (`trial`), never carried further
        state["defn"] = state["defn"].key
        unbuilt = state.pop("_board_state", None)
        state["board"] = unbuilt if unbuilt is not None else self.board.dynamic_state()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["defn"] = definition(*state["defn"])
        # the board is built from its changing state when first asked for (`__getattr__`): a copy made to
        # try a share sale or a merger may never look at the map, and building it is a good part of a copy
        state["_board_state"] = state.pop("board")
        self.__dict__.update(state)

    def __getattr__(self, name: str) -> Any:
        """Only for what the instance does not hold: the board of a state just unpickled, built now."""
        if name == "board":
            unbuilt = self.__dict__.pop("_board_state", None)
            if unbuilt is not None:
                board = self.__dict__["board"] = self.defn.board.with_dynamic_state(unbuilt)
                board.adopt_reaches(self.__dict__.pop("_reaches", None) or {})
                return board
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def trial(self) -> Game:
        """A throw-away copy to try an action on: what is offered must be what `process` accepts, and for
        options whose acceptance depends on more than one check, trying them is the only honest answer."""
        copy: Game = pickle.loads(self._pickle())
        board = self.__dict__.get("board")
        if board is not None and "_board_state" in copy.__dict__ and not self.__dict__.get("_processing"):
            # the copy's board, built when first asked, starts from the reaches this one has worked out for
            # the very same track and tokens (the state pickled is this one as it is: `_pickle`)
            copy._reaches = board.reaches_for_copy()
        return copy

    def _pickle(self) -> bytes:
        """This state pickled, made once per state: a position's offers try many actions on copies of the
        same state (tile lays, sales, mergers), and each copy needs only the loading half. Kept only
        between actions (an action changes the state between the copies it asks for, so none is kept
        while `process` runs) and under `serial`, which every action begun and every edit (`edited`)
        moves on, so a copy never comes from a state that has changed since."""
        if self.__dict__.get("_processing"):
            return pickle.dumps(self, pickle.HIGHEST_PROTOCOL)
        serial = getattr(self, "serial", 0)
        kept = self.__dict__.get("_pickled")
        if kept is None or kept[0] != serial:
            kept = self._pickled = (serial, pickle.dumps(self, pickle.HIGHEST_PROTOCOL))
        return kept[1]

    def accepts(self, action: dict[str, Any]) -> bool:
        """Whether `process` would take `action` now, asked on a copy (this game is left as it is)."""
        try:
            self.trial().process(action)
        except EngineError:
            return False
        return True

    # -- lookups ------------------------------------------------------------------------------------------
    @property
    def rules(self) -> TitleRules:
        return self.defn.rules

    @property
    def market(self) -> StockMarket:
        return self.defn.market

    @property
    def phase(self) -> Phase:
        return self.defn.phases[self.phase_index]

    def player(self, pid: Any) -> Player:
        for player in self.players:
            if player.id == pid:
                return player
        raise MalformedAction(f"unknown player {pid!r}", "entity")

    def corporation(self, sym: Any) -> Corporation:
        corp = self.corporations.get(sym) if isinstance(sym, str) else None
        if corp is None:
            raise MalformedAction(f"unknown corporation {sym!r}", "corporation")
        return corp

    def company(self, sym: Any) -> Company:
        company = self.companies.get(sym) if isinstance(sym, str) else None
        if company is None:
            raise MalformedAction(f"unknown private company {sym!r}", "company")
        return company

    def players_in_order(self) -> list[Player]:
        return [self.player(pid) for pid in self.player_order]

    def share_price(self, corp: Corporation) -> int | None:
        return None if corp.share_cell is None else self.market.cell(corp.share_cell).price

    def controller(self, entity: Any, entity_type: str | None = None) -> Any:
        """The player who decides for an entity (a corporation's president, or its receivership agent).
        A private and a minor may share a symbol (1828's C&P): a move naming its `entity_type` "company" is
        the private's, decided by whoever controls the private's owner."""
        if isinstance(entity, int):
            return entity
        if entity_type is None and entity in self.companies and entity in self.corporations \
                and getattr(self, "round", None) is not None:
            entity_type = self.round.acting_type(self, entity)  # a shared symbol: what acts under it now
        corp = None if entity_type == "company" else self.corporations.get(entity)
        if corp is not None:
            return self.rules.acting_player_for(self, corp)
        company = self.companies.get(entity)
        if company is not None:
            owner = company.owner
            if isinstance(owner, int):
                return owner
            if isinstance(owner, str) and owner in self.corporations:
                return self.controller(owner)
        return None

    # -- money --------------------------------------------------------------------------------------------
    def pay(self, payer: Player | Corporation | None, receiver: Player | Corporation | None, amount: int) -> None:
        """Move money; None is the bank. Players and corporations may not go below zero."""
        if amount == 0:
            return
        if payer is None:
            self.bank_cash -= amount
        else:
            if payer.cash < amount:
                raise IllegalAction(f"{self.name_of(payer)} cannot pay {amount} (has {payer.cash})", "cash")
            payer.cash -= amount
        if receiver is None:
            self.bank_cash += amount
        else:
            receiver.cash += amount

    def name_of(self, entity: Player | Corporation | None) -> str:
        if entity is None:
            return "the bank"
        return entity.name if isinstance(entity, Player) else entity.sym

    # -- certificates -------------------------------------------------------------------------------------
    def num_certs(self, player: Player) -> int:
        count = 0
        pid = player.id
        unlimited = self.market.coords_of_type("no_cert_limit")
        for corp in self.corporations.values():
            if unlimited and corp.share_cell in unlimited:
                continue
            for share in corp.shares:
                if share.owner == pid:
                    count += 1
        if self.rules.cert_limit_includes_privates:
            count += sum(1 for sym in player.companies if not self.companies[sym].closed)
        return count

    def transfer_shares(self, bundle: Bundle, to: Any, *, seller: int | None = None) -> None:
        corp = bundle.corporation
        previous = corp.shares[0].owner
        move_bundle(bundle, to)
        pivot = seller if seller is not None else previous
        change_presidency(corp, self.player_order, pivot)
        self.rules.after_share_transfer(self, corp)

    # -- trains and phases --------------------------------------------------------------------------------
    def train_limit(self, corp: Corporation) -> int:
        return self.rules.train_limit(self, corp)

    def buy_train_from_depot(self, corp: Corporation, train: Train, price: int) -> None:
        self.pay(corp, None, price)
        if train in self.depot.discarded:
            self.depot.discarded.remove(train)
        # a train set aside at setup (1825 minors' own trains) never counts as the first of its kind
        first_of_kind = not any(t.owner is not None or t.rusted for t in self.depot.trains if t.name == train.name
                                and t is not train and not t.reserved)
        train.owner = corp.sym
        corp.trains.append(train)
        if first_of_kind:
            self._first_train_bought(train)

    def _first_train_bought(self, train: Train) -> None:
        for index, phase in enumerate(self.defn.phases):
            if phase.on == train.name and index > self.phase_index:
                self.phase_index = index
                self.rules.phase_changed(self)
        for other in self.depot.trains:
            if other.rusts_on == train.name and not other.rusted:
                self.rust(other)

    def rust(self, train: Train) -> None:
        train.rusted = True
        if train.owner is not None and train.owner in self.corporations:
            owner = self.corporations[train.owner]
            if train in owner.trains:
                owner.trains.remove(train)
        train.owner = None

    def close_corporation(self, corp: Corporation) -> None:
        """A closed corporation leaves the game: treasury to the bank, trains and stations off the board,
        its certificates worthless."""
        corp.closed = True
        self.pay(corp, None, corp.cash)
        for train in list(corp.trains):
            corp.trains.remove(train)
            train.owner = None
            train.rusted = True
        self.board.remove_tokens(corp.sym)
        for share in corp.shares:
            share.owner = None
        for sym in corp.companies:
            self.companies[sym].closed = True
        corp.companies = []
        corp.share_cell = None

    def move_train(self, train: Train, seller: Corporation, buyer: Corporation, price: int) -> None:
        self.pay(buyer, seller, price)
        seller.trains.remove(train)
        train.owner = buyer.sym
        buyer.trains.append(train)

    def edited(self) -> None:
        """Say that the state was changed outside `process` (a test or a tool building a position by hand):
        what a round kept for the state as it was (the blocking step's offer) must not be used for the new one."""
        self.serial = getattr(self, "serial", 0) + 1
        self._pickled = None

    # -- the checked door ---------------------------------------------------------------------------------
    def process(self, action: dict[str, Any], *, trusted: bool = False) -> None:
        """Apply one action or refuse it; a refusal leaves every part of the state unchanged."""
        if self.finished:
            raise IllegalAction("the game is over", "game_over")
        kind = action.get("type")
        if kind not in self.defn.action_types:
            raise MalformedAction(f"unknown action type {kind!r}", "action_type",
                                  valid=sorted(self.defn.action_types))
        previous = self.action_id
        self.serial = getattr(self, "serial", 0) + 1  # every action begun: what a round kept is for one state
        # (an action may process others inside it: the outer one is still under way when they end)
        outer = self.__dict__.get("_processing", False)
        self._pickled, self._processing = None, True
        try:
            self._process(action, kind, previous, trusted)
        finally:
            self._pickled, self._processing = None, outer

    def _process(self, action: dict[str, Any], kind: str, previous: int, trusted: bool) -> None:
        if isinstance(action.get("id"), int):
            self.action_id = action["id"]
        seen = history.before(self, action)
        try:
            if kind.startswith("program_"):
                self._process_program(action)
                return
            if kind == "end_game":
                self._process_end_game(action)
                history.after(self, self.action_id, seen)
                return
            self.round.process(self, action, trusted=trusted)
        except EngineError:
            self.action_id = previous
            raise
        self.last_action = action
        self._after_action()
        history.after(self, self.action_id, seen)

    def _process_end_game(self, action: dict[str, Any]) -> None:
        """Ending the game by agreement (the rules docs, "Ending the game by agreement"): any player, or a corporation, may end it at any
        moment, on or off turn, in any round; nothing else happens — the game is over, reason
        `manually_ended`, and the final values are counted as usual. A private company cannot."""
        entity = action.get("entity")
        if isinstance(entity, int) and not isinstance(entity, bool):
            if all(p.id != entity for p in self.players):
                raise MalformedAction(f"unknown entity {entity!r}", "entity")
        elif isinstance(entity, str) and entity in self.companies and entity not in self.corporations:
            raise IllegalAction("a private company cannot end the game; its owner can", "end_game_entity")
        elif not (isinstance(entity, str) and entity in self.corporations):
            raise MalformedAction(f"unknown entity {entity!r}", "entity")
        self.last_action = action
        self.end_game("manually_ended")

    def _process_program(self, action: dict[str, Any]) -> None:
        from .programs import process_program

        process_program(self, action)

    def _after_action(self) -> None:
        self.rules.check_game_end(self)
        while not self.finished and self.round.finished(self):
            self.next_round()

    def next_round(self) -> None:
        """Round sequencing shared by the titles that alternate stock rounds with sets of operating rounds."""
        previous = self.round
        if self.end_trigger is not None and self.rules.ends_after_round(self, previous):
            self.end_game(self.end_trigger[0])
            return
        if self.turn >= self.rules.last_turn:
            self.end_game("dnf")  # the turn limit (TitleRules.last_turn)
            return
        self.round = self.rules.next_round(self, previous)
        for player in self.players:
            player.programs = [p for p in player.programs if self.rules.program_survives(self, p, self.round)]
        self.round.start(self)

    def end_game(self, reason: str) -> None:
        self.finished = True
        self.game_end_reason = reason

    # -- reading ------------------------------------------------------------------------------------------
    def acting(self) -> list[Any]:
        if self.finished:
            return []
        entity = self.round.current_entity(self)
        return [] if entity is None else [entity]

    def acting_players(self) -> list[int]:
        """The one answer to "who must act": the players who decide a move offered for the acting entities
        (`Round.deciders`), which the API, the page, the turn mail and the clocks all name."""
        out: list[int] = []
        for entity in self.acting():
            for pid in self.round.deciders(self, entity):
                if pid not in out:
                    out.append(pid)
        return out

    def proposed_by(self, player: int) -> int | None:
        """The player whose move `player` must answer now, when `player` decides for another's proposal (an
        1828 merger started with his corporation): he may decline, and the table takes that move back."""
        for entity in self.acting():
            if player in self.round.deciders(self, entity):
                proposer = self.round.proposer(self, entity)
                if proposer is not None and proposer != player:
                    return proposer
        return None

    def legal_actions(self, entity: Any = None, kinds: set[str] | None = None) -> list[dict[str, Any]]:
        from .legal import legal_actions

        return legal_actions(self, entity, kinds)

    def dead_ends_of(self, player: Any, memo: dict[Any, Any] | None = None) -> list[dict[str, Any]]:
        """Moves the engine takes from `player`'s entities that leave only an undo, each with its reason
        (`memo`: see `legal_actions_of`)."""
        from .legal import dead_ends_of

        return dead_ends_of(self, player, memo)

    def legal_actions_of(self, player: Any, orders: bool = True,
                         memo: dict[Any, Any] | None = None) -> list[dict[str, Any]]:
        """Every move of every entity `player` controls, standing orders last (what legal-actions answers
        without `?entity=`). `memo`: one dict shared by the players asked at one position, so the acting
        entity's moves are worked out once (`legal.legal_actions_of`)."""
        from .legal import legal_actions_of

        return legal_actions_of(self, player, orders, memo)

    def action_types(self, entity: Any = None) -> list[str]:
        """The action types open to `entity` (default: whoever acts now)."""
        if self.finished:
            return []
        if entity is None:
            acting = self.acting()
            if not acting:
                return []
            entity = acting[0]
        return self.round.actions_for(self, entity)

    def result(self) -> dict[str, int]:
        return {str(p.id): self.rules.player_value(self, p) for p in self.players}

    def digest(self, action: dict[str, Any]) -> dict[str, Any]:
        from .digest import digest

        return digest(self, action)


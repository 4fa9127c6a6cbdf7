"""The title's rules object: set-up, round order, phases, the end and scoring, and the hooks not yet
moved to a step (docs/architecture.md, "Where a rule of each kind lives")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.market import Cell
from ...core.operating import OperatingRound
from ...core.rounds import Round
from ...core.stockround import StockRound
from ...core.track import HomeToken
from ...model import Corporation, Player, Train
from ..base import TitleRules
from . import coal, privates
from .auction import AuctionRound
from .operating import OperatingRound1828
from .state import State1828, state
from .steps.companies import BuyCompany
from .steps.merger import Merger
from .steps.routes import Dividend1828, RunRoutes1828
from .steps.stock import BuySellParShares1828
from .steps.track import Token1828, Track1828
from .steps.trains import Bankrupt, BuyTrain1828, DiscardTrain1828, SwapTrain
from .stock import StockRound1828
from .systems import is_system, shells, shells_with_room

if TYPE_CHECKING:
    from ...board import Board
    from ...core.shares import Bundle
    from ...game import Game
    from ...titledata import TitleData

FOUNDING_VALUE = 250
PAR_GROUP_EVENTS = {"green_par": "par_1", "blue_par": "par_2", "brown_par": "par_3"}


class Rules1828(TitleRules):
    title = "1828.Games"
    state_class = State1828
    title_actions = {
        "swap_train": ("train",),  # a System moves a train between its shells (steps/trains.py, SwapTrain)
        "failed_merge": ("corporations",),  # a merger that cannot be done, acknowledged (steps/merger.py, stock.py)
    }

    # -- set-up -------------------------------------------------------------------------------------------
    def load_board(self, data: TitleData) -> Board:
        """An off-board area ends the track (rules-1828.md, Operating): nothing beyond Chicago or the other
        red areas is in a network by way of them, for a station or a tile."""
        board = super().load_board(data)
        board.rules.offboards_end_track = True
        return board

    def corporation_kind(self, raw: dict[str, Any]) -> str:
        return "major" if raw.get("shares") else "minor"

    def setup(self, game: Game) -> None:
        state(game).par_groups = ["par"]
        state(game).minor_owner = {}
        state(game).coal = []  # corporations holding a coal marker
        coal.sync(game)
        state(game).coal_on_field = int((game.defn.data.extras.get("coal") or {}).get(
            "markers_on_coalfields_at_start", 2))
        state(game).cell_stamp = {}
        state(game).remove_corporations = False
        state(game).systems = {}
        state(game).stamp = 0
        self._remove_founding_privates(game)
        self._remove_extra_six_train(game)
        self._setup_minor(game)

    def _remove_founding_privates(self, game: Game) -> None:
        """7 - players of the eight $250 privates leave the game, drawn with the seeded generator."""
        founding = [c for c in game.companies.values() if c.value == FOUNDING_VALUE]
        keep_one = ("GT", "NW", "OSH")
        while True:
            removed = game.rng.shuffle(founding)[: 7 - len(game.players)]
            syms = {c.sym for c in removed}
            if "ensure_good_privates" not in game.defn.options or not all(s in syms for s in keep_one):
                break
        for company in removed:
            company.closed = True

    def _remove_extra_six_train(self, game: Game) -> None:
        if len(game.players) >= 5:
            return
        last = [t for t in game.depot.trains if t.name == "6"][-1]
        game.depot.trains.remove(last)

    def _setup_minor(self, game: Game) -> None:
        """C&P runs the second 2-train of the depot for free; it never rusts and cannot be sold."""
        for corp in game.corporations.values():
            if corp.kind != "minor":
                continue
            train = game.depot.upcoming()[1]
            train.rusts_on = None
            game.depot.trains.remove(train)
            train.owner = corp.sym
            corp.trains.append(train)
            corp.tokens_placed = 1

    def first_round(self, game: Game) -> Round:
        return AuctionRound(game)

    def stock_round(self, game: Game) -> Round:
        if game.phase.name == "Purple":
            self._remove_unparred(game)
        return StockRound1828([DiscardTrain1828(), Merger(), BuySellParShares1828()])

    def operating_round(self, game: Game, round_num: int) -> Round:
        return OperatingRound1828([Bankrupt(), DiscardTrain1828(), HomeToken(), Track1828(), Token1828(), RunRoutes1828(),
                                   Dividend1828(), SwapTrain(), BuyTrain1828(), BuyCompany()], round_num)

    # -- limits ---------------------------------------------------------------------------------------------
    # 1828 has practically no certificate limit (the data's 99 for every player count); it is never checked
    has_cert_limit = False
    path_dependent = True  # a merger seen while it waits differs from its reload (steps/merger.py `settle`)

    def looked_at(self, game: Game) -> None:
        """A merger waiting for an answer when an undo or redo has reloaded the game is seen as the reloaded
        game is shown: its share-count float counts from there on (docs/rules-1828.md, *Being watched*)."""
        for step in getattr(game.round, "steps", ()):
            if isinstance(step, Merger):
                step.settle(game, game.round)
                game.edited()  # the state changed outside an action: nothing kept for it before stands

    @property
    def cert_limit_includes_privates(self) -> bool:
        return False

    def par_cells(self, game: Game) -> list[Cell]:
        """Par prices of the groups the phases have opened so far."""
        key = tuple(sorted(state(game).par_groups))
        cache = self.__dict__.setdefault("_par_cells", {})  # a memo of static market data, per definition
        if key not in cache:
            groups = set(key)
            cells = [c for row in game.market.grid for c in row if c is not None and c.types & groups]
            cache[key] = sorted(cells, key=lambda c: -c.price)
        return list(cache[key])

    # -- flow -----------------------------------------------------------------------------------------------
    def next_round(self, game: Game, previous: Round) -> Round:
        if isinstance(previous, AuctionRound):
            i = previous.index
            game.player_order = game.player_order[i:] + game.player_order[:i]
            for company in game.companies.values():
                if company.owner is None or company.closed:
                    continue
                for ability in company.abilities:
                    if ability.get("type") == "revenue_change" and ability.get("when") == "auction_end":
                        company.revenue = ability["revenue"]
            return self.stock_round(game)
        return super().next_round(game, previous)

    def _remove_unparred(self, game: Game) -> None:
        """Purple: corporations never started leave the game; their home slots get blocking tokens. A share a
        player holds already (a founding private's, from the auction) stays his: worthless, it cannot be sold,
        and it still shows among his holdings (docs/rules-1828.md, *Purple: unstarted corporations withdraw*)."""
        kept = state(game).withdrawn_shares
        players = {p.id for p in game.players}
        for corp in list(game.corporations.values()):
            if corp.kind != "major" or corp.ipoed or corp.closed:
                continue
            for share in corp.shares:
                if isinstance(share.owner, int) and share.owner in players:
                    held = kept.setdefault(share.owner, {})
                    held[corp.sym] = held.get(corp.sym, 0) + share.percent
            h = game.board.hex(corp.home)
            cities = [i for i, r in enumerate(h.reservations) if corp.sym in r]
            if corp.sym in h.tile_reservations:
                cities = list(range(len(h.tokens)))
            game.board.remove_tokens(corp.sym)
            for ci in cities or [0]:
                self.place_blocking_token(game, corp.home, ci)
            del game.corporations[corp.sym]

    def place_blocking_token(self, game: Game, hex_id: str, city: int = 0) -> None:
        h = game.board.hex(hex_id)
        slots = h.tokens[city]
        free = next((i for i, s in enumerate(slots) if s is None), None)
        if free is None:
            slots.append("B")
        else:
            slots[free] = "B"
        game.board.forget_reach()

    def reorder_players(self, game: Game, stock: StockRound) -> None:
        order = getattr(stock, "pass_order", [])
        if order:
            game.player_order = list(order) + [p for p in game.player_order if p not in order]

    # -- game end -------------------------------------------------------------------------------------------
    def check_game_end(self, game: Game) -> None:
        """A price in the red cell ends the game with the current round; the last phase gives one more full
        set of operating rounds. (A bankruptcy ends it at once, see the Bankrupt step.)"""
        if game.end_trigger is not None and game.end_trigger[0] != "final_phase":
            return
        endgame = game.market.coords_of_type("endgame")
        for corp in game.corporations.values():
            if corp.share_cell in endgame:
                game.end_trigger = ("stock_market", "current_round")  # sooner than the final phase's end
                return
        if game.end_trigger is None and game.phase_index == len(game.defn.phases) - 1:
            game.end_trigger = ("final_phase", "one_more_full_or_set")
            state(game).final_turn = game.turn + 1

    def ends_after_round(self, game: Game, previous: Round) -> bool:
        assert game.end_trigger is not None
        if game.end_trigger[0] != "final_phase":
            return True
        return isinstance(previous, OperatingRound) and previous.round_num >= game.operating_rounds \
            and game.turn >= state(game).final_turn

    # -- the market -----------------------------------------------------------------------------------------
    def set_cell(self, game: Game, corp: Corporation, cell: tuple[int, int]) -> None:
        if corp.sym in state(game).systems:
            corp.par_price = game.market.cell(cell).price  # a System's shares always sell at market price
        if corp.share_cell != cell:
            corp.share_cell = cell
            state(game).stamp += 1
            state(game).cell_stamp[corp.sym] = (cell, state(game).stamp)

    def arrival(self, game: Game, corp: Corporation) -> int:
        stamp = state(game).cell_stamp.get(corp.sym)
        if stamp is None or stamp[0] != corp.share_cell:
            state(game).stamp += 1
            stamp = (corp.share_cell, state(game).stamp)
            state(game).cell_stamp[corp.sym] = stamp
        return stamp[1]

    def sorted_by_price(self, game: Game, corps: list[Corporation]) -> list[Corporation]:
        def key(c: Corporation) -> tuple[int, int, int]:
            assert c.share_cell is not None
            return (-(game.share_price(c) or 0), -c.share_cell[1], self.arrival(game, c))

        return sorted(corps, key=key)

    def after_sell_shares(self, game: Game, corp: Corporation, bundle: Bundle) -> None:
        assert corp.share_cell is not None
        cell = corp.share_cell
        for _ in range(bundle.percent // 10):
            cell = game.market.down(cell)
        self.set_cell(game, corp, cell)

    def after_share_transfer(self, game: Game, corp: Corporation) -> None:
        if corp.share_cell is not None:
            self.arrival(game, corp)

    def short_name(self, game: Game, corp: Corporation) -> str:
        """A System is named after its first member in messages ("ERIE is floated" for ERIE-B&M), as the
        reference's standing-order reasons show."""
        return str(state(game).systems.get(corp.sym, [corp.sym])[0])

    # -- phases and events ----------------------------------------------------------------------------------
    def after_corporation_buys_company(self, game: Game, round_: Any, corp: Corporation, company: Any) -> None:
        privates.bought_by_corporation(game, round_, corp, company)

    def use_company(self, game: Game, round_: Any, company: Any, action: dict[str, Any], trusted: bool) -> None:
        privates.use(game, round_, company, action, trusted)

    def add_diesel(self, game: Game) -> None:
        """D trains are unlimited: a fresh card replaces each one sold."""
        template = next(t for t in game.depot.trains if t.name == "D")
        copies = sum(1 for t in game.depot.trains if t.name == "D")
        game.depot.trains.append(Train(f"D-{copies}", "D", template.distance, template.price))

    def fire_event(self, game: Game, event: str) -> None:
        if event in PAR_GROUP_EVENTS:
            state(game).par_groups.append(PAR_GROUP_EVENTS[event])
        elif event == "close_companies":
            for company in game.companies.values():
                if not company.closed:
                    self.close_company(game, company.sym)
            for corp in game.corporations.values():
                if corp.kind == "minor" and not corp.closed:
                    self.remove_minor(game, corp)
        elif event == "remove_corporations":
            state(game).remove_corporations = True

    def close_at_first_train(self, game: Game, members: list[str]) -> None:
        """A founding private closes when its corporation gets a train: by a purchase, or as a member of
        a System that gets one, also the first trains the partners bring into it (rules-1828.md, "A
        founding private closes when its System gets a train")."""
        for company in game.companies.values():
            if company.closed:
                continue
            for ability in company.abilities:
                if ability.get("type") == "close" and ability.get("when") == "bought_train" \
                        and ability.get("corporation") in members:
                    self.close_company(game, company.sym)

    def close_company(self, game: Game, sym: str) -> None:
        company = game.companies[sym]
        company.closed = True
        owner = company.owner
        if isinstance(owner, int):
            game.player(owner).companies.remove(sym)
        elif isinstance(owner, str) and owner in game.corporations and sym in game.corporations[owner].companies:
            game.corporations[owner].companies.remove(sym)
        game.board.remove_blocker(sym)

    def remove_minor(self, game: Game, minor: Corporation, block: bool = True) -> None:
        """The C&P minor leaves the game at the first 6-train (a blocking token keeps its station) or when
        a corporation buys its private."""
        game.pay(minor, None, minor.cash)
        hexes = game.board.token_hexes(minor.sym)
        game.board.remove_tokens(minor.sym)
        for hex_id in hexes if block else ():
            self.place_blocking_token(game, hex_id)
        for train in list(minor.trains):
            minor.trains.remove(train)
            train.owner = None
            train.rusted = True
        minor.closed = True
        state(game).removed_minors.append(minor.sym)

    # -- operating ------------------------------------------------------------------------------------------
    def acting_player_for(self, game: Game, corp: Corporation) -> int | None:
        if corp.kind == "minor":
            return state(game).minor_owner.get(corp.sym)
        return corp.president

    def limit_trains(self, game: Game, corp: Corporation) -> list[Train]:
        """A System's limit holds per shell: the fullest shell counts."""
        if is_system(game, corp):
            return max(shells(game, corp).values(), key=len)
        return super().limit_trains(game, corp)

    def room_for_train(self, game: Game, corp: Corporation) -> bool:
        if is_system(game, corp):
            return bool(shells_with_room(game, corp))
        return super().room_for_train(game, corp)


    # -- digest ---------------------------------------------------------------------------------------------
    def digest_corporations(self, game: Game) -> list[Corporation]:
        return [c for c in game.corporations.values() if c.kind == "major"]

    def digest_player(self, game: Game, player: Player, entry: dict[str, Any]) -> dict[str, Any]:
        """Shares of corporations withdrawn at Purple that the player kept are still among his holdings."""
        for sym, pct in state(game).withdrawn_shares.get(player.id, {}).items():
            entry["shares"][sym] = entry["shares"].get(sym, 0) + pct
        return entry

    def digest_corporation(self, game: Game, corp: Corporation, entry: dict[str, Any]) -> dict[str, Any]:
        """While a merger runs, the two old corporations keep the presidents they had when it began."""
        if corp.sym in state(game).systems and entry["share_price"] is not None:
            entry["par_price"] = entry["share_price"]  # a System's par follows its market price
        merger = getattr(game.round, "merger", None)
        if merger is not None and corp.sym in merger.presidents:
            entry["president"] = merger.presidents[corp.sym]
        return entry

    def digest_minors(self, game: Game) -> dict[str, Any]:
        out = {}
        for corp in game.corporations.values():
            if corp.kind != "minor" or corp.sym in state(game).removed_minors:
                continue
            out[corp.sym] = {
                "cash": corp.cash,
                "floated": corp.floated,
                "president": state(game).minor_owner.get(corp.sym),
                "trains": sorted(t.name for t in corp.trains if not t.rusted),
                "tokens": game.board.token_hexes(corp.sym),
                "closed": corp.closed,
            }
        return out

    def digest_bank_cash(self, game: Game) -> int | None:
        return None

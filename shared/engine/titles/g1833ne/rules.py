"""The title's rules object: set-up, round order, phases, the end and scoring, and what more than one step
or round asks (docs/architecture.md, "Where a rule of each kind lives"); a rule of one action lives in
its step (`steps/`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...board import Board
from ...board.routes import DefaultRouteRules
from ...board.tiles import NODE_BASE
from ...core.operating import OperatingRound
from ...core.rounds import Round
from ...core.stockround import StockRound
from ...core.track import HomeToken
from ...model import POOL, Company, Corporation, Player
from ..base import TitleRules
from . import constants as K
from . import p3
from . import tables as T
from .operating import Operating1833, operating_order
from .routes import RouteRules1833NE
from .state import State1833NE, state
from .steps.runs import DividendStep, RunStep
from .steps.stock import StockStep
from .steps.track import BuildStep
from .steps.trains import DiscardStep, TrainStep
from .stock import StockRound1833NE

if TYPE_CHECKING:
    from ...board.trains import TrainKind
    from ...game import Game
    from ...titledata import TitleData

TAKEOVER = "takeover_game"


class GameOver(Round):
    """What follows a stalled game: nothing happens in it."""

    kind = "GameOver"

    def start(self, game: Game) -> None:
        self.done = True


class Rules1833NE(TitleRules):
    state_class = State1833NE
    title = "1833NE"

    # -- set-up -------------------------------------------------------------------------------------------
    def route_rules(self) -> DefaultRouteRules:
        return RouteRules1833NE()  # runs may be extended to collect a bonus

    def load_board(self, data: TitleData) -> Board:
        board = super().load_board(data)
        tables = T.load_checked(data)  # a bad tables file stops here, when the game is created
        board.rules.extension_bonuses = tuple((b.a, b.b, tuple(sorted(b.value))) for b in tables.bonuses)
        return board

    def provisional_values(self, options: list[str]) -> list[dict[str, str]]:
        """The values this title plays with that no rulebook source confirms yet (`key`, `description`),
        for the service to show; the Takeover corporations only when the Takeover game is chosen."""
        from ...titledata import title_directory

        return T.load(title_directory(self.title)).provisional(TAKEOVER in options)

    def entity_colors(self, game: Game) -> dict[str, dict[str, str | None]]:
        """Colours of the corporations the title adds beyond the board data (the Takeover game's)."""
        if not self.takeover(game):
            return {}
        return {c.sym: {"color": c.color, "text_color": c.text_color} for c in T.of(game).takeover_corporations}

    def takeover(self, game: Game) -> bool:
        return TAKEOVER in game.defn.options

    def setup(self, game: Game) -> None:
        own = state(game)
        own.ferries = {f.id: None for f in T.of(game).ferries}
        own.p3_left = p3.ability(game).get("count", 2)
        for corp in game.corporations.values():
            corp.token_prices = [0, K.STATION_PRICE]
            corp.max_ownership_percent = K.MAX_HOLDING
        for train in game.depot.trains:
            if train.name == "7+3":
                train.price = K.LAST_TRAIN_PRICE
        worcester = game.board.hex(K.WORCESTER)
        if worcester.reservations and worcester.reservations[0]:
            worcester.reservations[0][0] = "BW"
        if self.takeover(game):
            from .takeover import add_variable_corporations

            add_variable_corporations(game)

    def stock_round(self, game: Game) -> Round:
        return StockRound1833NE([StockStep()])

    def operating_round(self, game: Game, round_num: int) -> Round:
        return Operating1833([DiscardStep(), HomeToken(), BuildStep(), RunStep(), DividendStep(), TrainStep()],
                             round_num)

    def next_round(self, game: Game, previous: Round) -> Round:
        from .takeover import TakeoverRound, takeover_due

        if self.takeover(game) and isinstance(previous, OperatingRound) and takeover_due(game, previous):
            return TakeoverRound(game)
        if isinstance(previous, StockRound) and previous.last_to_act is None and not operating_order(game):
            # gap: nobody acted and nothing operates, so no later round can change anything
            game.end_game("stalled")
            return GameOver([])
        if isinstance(previous, TakeoverRound):
            game.turn += 1
            return self.stock_round(game)
        return super().next_round(game, previous)

    # -- certificates and the market -------------------------------------------------------------------
    def corporations_in_play(self, game: Game) -> int:
        return sum(1 for c in game.corporations.values() if not c.closed)

    def cert_limit(self, game: Game) -> int:
        table = game.defn.data.setup["cert_limit"][str(len(game.players))]
        count = min(max(self.corporations_in_play(game), 5), 14)
        return int(table[str(count)])

    def check_price_close(self, game: Game, corp: Corporation) -> None:
        if corp.share_cell is not None and not corp.closed and (game.share_price(corp) or 0) <= 0:
            self.close(game, corp)

    def close(self, game: Game, corp: Corporation) -> None:
        """A corporation at $0 (or left without a president by a bankruptcy) leaves the game."""
        for sym in corp.companies:
            game.board.remove_blocker(sym)
        for fid, owner in state(game).ferries.items():
            if owner == corp.sym:
                state(game).ferries[fid] = "removed"
        for train in corp.trains:
            state(game).faces.pop(train.id, None)
        game.close_corporation(corp)
        self.sync_virtual_stations(game)

    # -- privates (the close, the phases, the purchase and the takeover ask it) ------------------------------
    def sync_virtual_stations(self, game: Game) -> None:
        """P4 and P6 let their owner build and run from A6 / A12 as if it had a station there."""
        stations: dict[str, set[tuple[str, int]]] = {}
        for sym, hex_id in ((K.P4, K.P4_HEX), (K.P6, K.P6_HEX)):
            company = game.companies.get(sym)
            if company and not company.closed and isinstance(company.owner, str) and company.owner in game.corporations:
                nodes = game.board.hex(hex_id).tile.nodes
                code = next(NODE_BASE + i for i, n in enumerate(nodes) if n.kind == "offboard")
                stations.setdefault(company.owner, set()).add((hex_id, code))
        game.board.set_virtual_stations({k: frozenset(v) for k, v in stations.items()})

    # -- routes and revenue -------------------------------------------------------------------------------------
    def train_kinds(self, game: Game) -> dict[str, TrainKind]:
        kinds = dict(super().train_kinds(game))
        for train_id, face in state(game).faces.items():
            kinds[train_id] = kinds[face]
        return kinds

    # -- trains --------------------------------------------------------------------------------------------------
    def uniform_train_limit(self, game: Game) -> bool:
        return not self.takeover(game)  # a takeover raises the acquirer's own limit

    def train_limit(self, game: Game, corp: Corporation) -> int:
        if self.takeover(game):
            return K.TAKEOVER_TRAIN_LIMIT[game.phase.name] + state(game).takeovers.get(corp.sym, 0)
        return game.phase.train_limit

    # -- phases ---------------------------------------------------------------------------------------------------
    def phase_changed(self, game: Game) -> None:
        name = game.phase.name
        for train in game.depot.trains:
            if train.rusted:
                continue
            if K.REMOVED_IN.get(train.name) == name:
                state(game).faces.pop(train.id, None)
                game.rust(train)
                if train in game.depot.discarded:
                    game.depot.discarded.remove(train)  # a removed train handed back is no longer on sale
            elif K.OBSOLETE_IN.get(train.name) == name:
                train.obsolete = True
        if name == "III":
            for company in game.companies.values():
                if company.closed:
                    continue
                if isinstance(company.owner, int) or company.owner is None or company.sym in K.PRIVATES_REMOVED_IN_III:
                    self.remove_private(game, company)
                elif company.sym in K.PRIVATES_FLIPPED_IN_III:
                    company.revenue = 0
        if name == "IV":
            for sym in K.PRIVATES_REMOVED_IN_IV:
                company = game.companies.get(sym)
                if company is not None and not company.closed:
                    self.remove_private(game, company)
            for ferry in state(game).ferries:
                state(game).ferries[ferry] = "removed"
            for h in game.board.hexes.values():
                for ci, slots in enumerate(h.reservations):
                    for i, ent in enumerate(slots):
                        if (ent == "BW" and h.id == K.WORCESTER) or (ent == "B&P" and h.id == K.BOSTON):
                            h.reservations[ci][i] = None
            game.board.forget_reach()
        self.sync_virtual_stations(game)

    def remove_private(self, game: Game, company: Company) -> None:
        company.closed = True
        owner = company.owner
        if isinstance(owner, int):
            player = game.player(owner)
            if company.sym in player.companies:
                player.companies.remove(company.sym)
        elif isinstance(owner, str) and owner in game.corporations:
            corp = game.corporations[owner]
            if company.sym in corp.companies:
                corp.companies.remove(company.sym)
        game.board.remove_blocker(company.sym)

    # -- game end ---------------------------------------------------------------------------------------------------
    def check_game_end(self, game: Game) -> None:
        """The bank is empty once only the $1,000 bills set aside remain (their amount: tables.json)."""
        if game.end_trigger is None and game.bank_cash <= T.of(game).bank_set_aside:
            game.end_trigger = ("bank", "full_set")
            game.bank_broken = True

    def ends_after_round(self, game: Game, previous: Round) -> bool:
        return isinstance(previous, OperatingRound) and previous.round_num >= game.operating_rounds

    def companies_value(self, game: Game, player: Player) -> int:
        """Private companies count only in the first two phases (after that they are closed or worthless)."""
        if game.phase_index >= 2:
            return 0
        return sum(game.companies[s].value for s in player.companies if not game.companies[s].closed)


__all__ = ["POOL", "Rules1833NE"]

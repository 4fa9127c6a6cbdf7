"""The 1840 rule hooks: set-up draws, round bar, stock-round limits, money and scoring.

Everything title-specific that the shared core asks through `TitleRules` hooks is answered here; the stock
round's rules for each action are its step's (`steps/stock.py`) and its end its round's (`stock.py`). The rules
compose the rounds (auction, order choice, stock, company, acquisition, line: a module each, imported here);
the rounds never import this module back, they reach the helpers below (line ownership, maintenance, price
movement by dividend) through `flow.rules_of(game)`. The title's facts are `State1840` (`state.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.rounds import Round
from ...core.stockround import StockRound
from ...model import Corporation, Player, Train
from ..base import TitleRules
from .acquisition import AcquisitionRound
from .auction import AuctionRound, ChoicesRound
from .automatic import automatic_action
from .company import CompanyRound
from .line import LineRound
from .state import CITY, LINE, MAJOR, State1840, state
from .steps.stock import BuySellParShares1840
from .stock import StockRound1840
from .trams import base_of

if TYPE_CHECKING:
    from ...board import Board
    from ...game import Game
    from ...titledata import TitleData

__all__ = ["CITY", "LINE", "MAJOR", "Rules1840"]


class Rules1840(TitleRules):
    title = "1840"
    state_class = State1840
    title_actions = {
        "choose_ability": ("choice",),  # a private sold to the bank (flow.py)
        "remove_token": ("city", "slot"),  # a line's token taken off (line.py)
        "scrap_train": ("train",),  # a train scrapped (line.py, company.py, acquisition.py)
        "reassign_trains": ("assignments",),  # trains moved between a company's lines (company.py)
    }

    # -- set-up -------------------------------------------------------------------------------------------
    def initial_bank_cash(self, game: Game) -> int:
        return 10**9

    def load_board(self, data: TitleData) -> Board:
        """Track ends at an off-board area (rules-1840 *Off-board areas end track*): the red terminals and
        the unbuilt centre hexes are reached, but a line's network does not run on through them."""
        board = super().load_board(data)
        board.rules.offboards_end_track = True
        return board

    def corporation_kind(self, raw: dict[str, Any]) -> str:
        return str(raw.get("type") or MAJOR)

    def setup(self, game: Game) -> None:
        """Draw the offered lines and the majors in play with the seeded generator, start the Stadtbahnen."""
        st = state(game)
        lines = [c for c in game.corporations.values() if c.kind == LINE]
        majors = [c for c in game.corporations.values() if c.kind == MAJOR]
        cities = [c for c in game.corporations.values() if c.kind == CITY]
        n = len(game.players)
        drawable = [c.sym for c in lines if c.sym != "2"]
        shuffled = game.rng.shuffle(drawable)
        offered = shuffled[: n + 1]
        st.lines_offered = offered
        st.lines_reserve = [c.sym for c in lines if c.sym not in offered]
        drawn = game.rng.shuffle([c.sym for c in majors])[:n]
        st.majors = drawn
        for sym in [c.sym for c in majors if c.sym not in drawn]:
            del game.corporations[sym]
        st.owned_lines = {sym: [] for sym in drawn}
        st.loans = {p.id: 0 for p in game.players}
        for line in lines:
            line.president_share.president = False
        par = game.defn.data.extras["par"]["stadtbahn_initial_par"]
        city_cards = [t for t in game.depot.trains if t.name == "City"]
        for index, city in enumerate(cities):
            cell = next(c for c in game.market.par_cells() if c.price == par[city.sym])
            city.share_cell = (cell.row, cell.column)
            city.par_price = cell.price
            city.ipoed = True
            self.mark_arrival(game, city)
            city.floated = True
            for share in city.shares:
                share.president = False
            train = city_cards[index]
            train.owner = city.sym
            city.trains.append(train)
            city.tokens_placed = len(game.board.token_hexes(city.sym))
        # which track each kind of company may use: lines broad, Stadtbahnen narrow
        allowed = dict(getattr(game.board, "allowed_track", {}) or {})
        for corp in game.corporations.values():
            if corp.kind == LINE:
                allowed[corp.sym] = frozenset({"broad"})
            elif corp.kind == CITY:
                allowed[corp.sym] = frozenset({"narrow"})
        game.board.allowed_track = allowed

    def first_round(self, game: Game) -> Round:
        return AuctionRound()

    # -- constants ----------------------------------------------------------------------------------------
    def extras(self, game: Game) -> dict[str, Any]:
        return game.defn.data.extras

    def majors(self, game: Game) -> list[Corporation]:
        return [game.corporations[s] for s in state(game).majors]

    def lines_of(self, game: Game, major: Corporation) -> list[Corporation]:
        return [game.corporations[s] for s in state(game).owned_lines.get(major.sym, [])]

    def owner_major(self, game: Game, line: Corporation) -> Corporation | None:
        for sym, lines in state(game).owned_lines.items():
            if line.sym in lines:
                return game.corporations[sym]
        return None

    def cr_multiplier(self, game: Game) -> int:
        table = self.extras(game)["company_round_revenue_multiplier"]
        return int(table[max(state(game).cr_counter - 1, 0)])

    def buyable_variants(self, game: Game) -> list[str]:
        order = self.extras(game)["trams"]["buyable_variants_by_company_round"]
        return list(order[max(state(game).cr_counter - 1, 0)])

    def set_cell(self, game: Game, corp: Corporation, cell: tuple[int, int]) -> None:
        """1840 shows the current price as the 'par' price too: keep both in step."""
        if corp.share_cell != cell:
            self.mark_arrival(game, corp)
        corp.share_cell = cell
        corp.par_price = game.market.cell(cell).price

    def mark_arrival(self, game: Game, corp: Corporation) -> None:
        """Remember when `corp` reached its current cell: on a shared cell the earlier arrival operates first."""
        st = state(game)
        st.arrival_seq += 1
        st.arrival[corp.sym] = st.arrival_seq

    def arrival(self, game: Game, corp: Corporation) -> int:
        return state(game).arrival.get(corp.sym, 0)

    def in_operating_order(self, game: Game, corps: list[Corporation]) -> list[Corporation]:
        """Highest share price first; on equal prices the cell further right, then higher up, then the
        company that reached the cell first, goes first."""
        def key(c: Corporation) -> tuple[int, int, int, int]:
            cell = c.share_cell or (0, 0)
            return (-(game.share_price(c) or 0), -cell[1], cell[0], self.arrival(game, c))

        return sorted(corps, key=key)

    def move_by_dividend(self, game: Game, corp: Corporation, paid: int) -> None:
        if corp.share_cell is None:
            return
        move = 0
        for row in self.extras(game)["dividend_share_price_movement"]:
            lo, hi = row["paid_total"]
            if paid >= lo and (hi is None or paid <= hi):
                move = row["move"]
                break
        if move < 0:
            self.set_cell(game, corp, game.market.left(corp.share_cell, -move))
        elif move > 0:
            self.set_cell(game, corp, game.market.right(corp.share_cell, move))

    # -- money ----------------------------------------------------------------------------------------------
    def take_loans(self, game: Game, player: Player, needed: int) -> None:
        """A director short of cash borrows in units of 100 (each costs 200 at the end)."""
        if needed <= player.cash:
            return
        count = -(-(needed - player.cash) // 100)
        state(game).loans[player.id] += count * 100
        game.pay(None, player, count * 100)

    # -- flow -----------------------------------------------------------------------------------------------
    def next_round(self, game: Game, previous: Round) -> Round:
        st = state(game)
        if isinstance(previous, AuctionRound):
            return ChoicesRound()
        if isinstance(previous, ChoicesRound):
            order = st.order_choice
            game.player_order = sorted(game.player_order, key=lambda pid: order.get(pid, 0))
            return self.stock_round(game)
        if isinstance(previous, StockRound):
            self.reorder_players(game, previous)
            if st.cr_counter == 0:
                return self.company_round(game)
            return self.line_round(game, 1)
        if isinstance(previous, CompanyRound):
            if previous.stage == "routes":
                return CompanyRound("trains")
            return AcquisitionRound()
        if isinstance(previous, AcquisitionRound):
            if st.cr_counter == 1:
                return self.line_round(game, 1)
            return self.stock_round(game)
        assert isinstance(previous, LineRound)
        if previous.round_num < game.operating_rounds:
            return self.line_round(game, previous.round_num + 1)
        game.turn += 1
        return self.company_round(game)

    def stock_round(self, game: Game) -> Round:
        st = state(game)
        if st.first_sr:
            st.first_sr = False
            founding = int(self.extras(game)["founding_cash"]["amount"])
            for player in game.players:
                game.pay(None, player, founding)
        return StockRound1840([BuySellParShares1840()])

    def company_round(self, game: Game) -> Round:
        st = state(game)
        st.cr_counter += 1
        clearing = self.extras(game)["trams"]["exported_at_company_round_start"]
        index = st.cr_counter - 1
        if index < len(clearing) and clearing[index]:
            for train in game.depot.upcoming():
                if train.name == clearing[index]:
                    train.rusted = True
        return CompanyRound("routes")

    def line_round(self, game: Game, round_num: int) -> Round:
        st = state(game)
        # phases follow the line-round count, not trams: the change comes before LR 2a, 4a and 5a
        changes = self.extras(game)["phase_schedule"]["line_rounds_before_phase_change"]
        if st.lr_counter in changes:
            game.phase_index = min(game.phase_index + 1, len(game.defn.phases) - 1)
            game.operating_rounds = game.phase.operating_rounds
        if round_num == 1:
            game.operating_rounds = game.phase.operating_rounds
        st.lr_counter += 1
        return LineRound(round_num)

    def reorder_players(self, game: Game, stock: Any) -> None:
        """Next stock round: most cash first, ties keep the current order."""
        current = list(game.player_order)
        game.player_order = sorted(current, key=lambda pid: (-game.player(pid).cash, current.index(pid)))

    def companies_value(self, game: Game, player: Player) -> int:
        return sum(game.companies[sym].value for sym in player.companies if not game.companies[sym].closed)

    def value_deductions(self, game: Game, player: Player) -> int:
        """Each loan still owed costs the end game penalty (`PLAYER_LOAN_ENDGAME_PENALTY`, percent of it)."""
        penalty = int(self.rule(game, "PLAYER_LOAN_ENDGAME_PENALTY", 200)) // 100
        return state(game).loans[player.id] * penalty

    def value_notes(self, game: Game, player: Player) -> list[str]:
        """`State1840.loans` holds the amount borrowed (loans of 100 each, `take_loans`), not a count."""
        borrowed = state(game).loans[player.id]
        if not borrowed:
            return []
        count = borrowed // 100
        off = borrowed * int(self.rule(game, "PLAYER_LOAN_ENDGAME_PENALTY", 200)) // 100
        return [f"{count} loan{'s' if count != 1 else ''} of 100 ({borrowed} borrowed): {off} off at the end"]

    def acting_player_for(self, game: Game, corp: Corporation) -> int | None:
        if corp.kind == LINE:
            major = self.owner_major(game, corp)
            return None if major is None else major.president
        if corp.kind == CITY:
            return None
        return corp.president

    # -- stock round ---------------------------------------------------------------------------------------
    @property
    def cert_limit_includes_privates(self) -> bool:
        return False

    def all_majors_started(self, game: Game) -> bool:
        return all(c.ipoed for c in self.majors(game))

    # -- trams ---------------------------------------------------------------------------------------------
    def base_name(self, game: Game, train: Train) -> str:
        return base_of(game).get(train.name, train.name)

    def maintenance_of(self, game: Game, line: Corporation) -> int:
        table = state(game).maintenance
        return sum(int(table.get(self.base_name(game, t), 0)) for t in line.trains)

    def after_tram_bought(self, game: Game, train: Train) -> None:
        """A harsher maintenance table takes over when a new colour is bought for the first time."""
        tables = self.extras(game)["maintenance"]["table_by_first_purchase"]
        new = tables.get(self.base_name(game, train))
        if not new or "Y1" not in new:
            return
        current = state(game).maintenance
        if "Y1" not in current or new["Y1"] < current["Y1"]:
            state(game).maintenance = dict(new)

    # -- end -----------------------------------------------------------------------------------------------
    def check_game_end(self, game: Game) -> None:
        """The game ends when the dividends of company round 6 are paid (no trams bought after)."""
        last = len(self.extras(game)["company_round_revenue_multiplier"])
        round_ = game.round
        if isinstance(round_, CompanyRound) and round_.stage == "routes" and round_.done \
                and state(game).cr_counter >= last:
            game.end_game("fixed_round")

    # -- automatic actions ----------------------------------------------------------------------------------
    def auto_action(self, game: Game) -> dict[str, Any] | None:
        return automatic_action(game)

    # -- digest ---------------------------------------------------------------------------------------------
    def digest_corporations(self, game: Game) -> list[Corporation]:
        st = state(game)
        shown = set(st.lines_offered)
        for lines in st.owned_lines.values():
            shown.update(lines)
        return [c for c in game.corporations.values() if c.kind != LINE or c.sym in shown]

    def digest_corporation(self, game: Game, corp: Corporation, entry: dict[str, Any]) -> dict[str, Any]:
        if corp.kind == LINE:
            entry["president"] = self.acting_player_for(game, corp)
        return entry

    def digest_player(self, game: Game, player: Player, entry: dict[str, Any]) -> dict[str, Any]:
        borrowed = state(game).loans[player.id]
        # the debt carries the (negative) interest: at -100% nothing is owed back, only the penalty counts
        entry["loans"] = borrowed * (100 + int(self.rule(game, "PLAYER_LOAN_INTEREST_RATE", -100))) // 100
        entry["penalty"] = borrowed * int(self.rule(game, "PLAYER_LOAN_ENDGAME_PENALTY", 200)) // 100
        return entry

    def digest_bank_cash(self, game: Game) -> int | None:
        return None

"""The shared 18xx core as a set of named hooks. A title subclasses this once and overrides only what
its rules change; every default here reads the title's own data (rules.json, setup) rather than a
global flag."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..board import Board, BoardRules
from ..board.routes import DefaultRouteRules
from ..board.trains import TrainKind
from ..core.market import Cell
from ..core.operating import OperatingRound
from ..core.rounds import Round
from ..core.stock import StockRound
from ..errors import IllegalAction
from ..model import POOL, Company, Corporation, Player, TitleState, Train

if TYPE_CHECKING:
    from ..core.shares import Bundle
    from ..game import Game
    from ..titledata import Composer, TitleData


class TitleRules:
    title = ""
    # the title's typed part of the game state (`game.title_state`): a dataclass in the title's package
    state_class: type[TitleState] = TitleState

    # -- set-up -------------------------------------------------------------------------------------------
    # An option that declares its player counts is dropped, silently, from a game of another count
    # (titledata.options_for_players) before the title normalises the rest; a title that checks its options
    # against the player count itself (1825: the merged Units' range) turns this off.
    drops_options_by_players = True

    def normalise_options(self, options: list[str], players: int) -> list[str]:
        return options

    # titles whose option sets are built from blocks (1825) set this; see titledata.load
    compose_data: Composer | None = None

    def load_board(self, data: TitleData) -> Board:
        config = next(c for c in data.meta["configurations"] if c["name"] == data.configuration)
        return Board.load(data.directory, config["map_file"], data.setup, self.board_rules(data.directory))

    def route_rules(self) -> DefaultRouteRules:
        """The checks and revenue this title's runs follow; the board keeps them (`BoardRules.route_rules`)
        so the shared route code asks no title by name. A title whose runs differ returns its own set."""
        return DefaultRouteRules()

    def board_rules(self, directory: Path) -> BoardRules:
        """The board knobs of this title: the defaults its data files give, with its route rules; a title
        adjusts what its rules change (1825's tile limits, 1833NE's bonuses)."""
        out = BoardRules.from_title_data(directory)
        out.route_rules = self.route_rules()
        return out

    def initial_bank_cash(self, game: Game) -> int:
        cash = game.defn.data.setup["bank"]["cash"]
        return 10**9 if cash == "unlimited" else int(cash)

    def corporation_kind(self, raw: dict[str, Any]) -> str:
        return raw.get("type") or "major"

    def setup(self, game: Game) -> None:
        pass

    def first_round(self, game: Game) -> Round:
        return self.stock_round(game)

    def stock_round(self, game: Game) -> Round:
        raise NotImplementedError

    def operating_round(self, game: Game, round_num: int) -> Round:
        raise NotImplementedError

    # -- constants from the data ----------------------------------------------------------------------------
    def rule(self, game: Game, name: str, default: Any = None) -> Any:
        return game.defn.data.rule(name, default)

    # whether the title limits certificates at all (a page must not print a limit nobody applies)
    has_cert_limit = True

    @property
    def cert_limit_includes_privates(self) -> bool:
        return True

    def cert_limit(self, game: Game) -> int:
        setup = game.defn.data.setup
        return int(setup["cert_limit"][str(len(game.players))])

    def market_share_limit(self, game: Game) -> int:
        """The most of one corporation the market may hold, in percent: the title's data says (1825 and 1840
        100, 1828 80, 1833NE 50)."""
        return int(self.rule(game, "MARKET_SHARE_LIMIT", 50))

    # -- flow -----------------------------------------------------------------------------------------------
    # A game still running when a round ends in this turn (or later) ends there, as not finished ("dnf"):
    # a game nobody can bring to its title's own end (every corporation closed, the bank never breaking)
    # must still end (docs/rules-1825.md, "A game that cannot end ends after turn 100"; the reference's
    # engine ends every title's game so).
    last_turn = 100

    def next_round(self, game: Game, previous: Round) -> Round:
        if isinstance(previous, StockRound):
            game.operating_rounds = game.phase.operating_rounds
            self.reorder_players(game, previous)
            return self.operating_round(game, 1)
        assert isinstance(previous, OperatingRound)
        if previous.round_num < game.operating_rounds:
            return self.operating_round(game, previous.round_num + 1)
        game.turn += 1
        return self.stock_round(game)

    def reorder_players(self, game: Game, stock: StockRound) -> None:
        last = stock.last_to_act
        if last is None or last not in game.player_order:
            return
        i = game.player_order.index(last) + 1
        game.player_order = game.player_order[i:] + game.player_order[:i]

    def short_name(self, game: Game, corp: Corporation) -> str:
        """A corporation as messages name it (18xx.games' `name`): its symbol; a title whose corporations
        combine (1828 Systems) names the combination after its first member."""
        return corp.sym

    def entity_colors(self, game: Game) -> dict[str, dict[str, str | None]]:
        """Colours of corporations a title adds beyond its board data (1833NE's Takeover game), for views."""
        return {}

    def ipo_name(self, game: Game, corp: Corporation) -> str:
        """How the title names a corporation's unsold shares (a standing order's refusal names it)."""
        return "IPO"

    def program_survives(self, game: Game, program: dict[str, Any], round_: Round) -> bool:
        if isinstance(round_, StockRound):
            return True
        if program.get("type") == "program_share_pass" and program.get("indefinite"):
            return True
        return False

    def check_game_end(self, game: Game) -> None:
        pass

    def ends_after_round(self, game: Game, previous: Round) -> bool:
        return True

    def player_value(self, game: Game, player: Player) -> int:
        value = player.cash
        for corp in game.corporations.values():
            price = game.share_price(corp)
            if price is None or corp.closed:
                continue
            value += price * corp.percent_owned_by(player.id) // 10
        for sym in player.companies:
            value += game.companies[sym].value
        return value

    def acting_player_for(self, game: Game, corp: Corporation) -> int | None:
        return corp.president

    def value_notes(self, game: Game, player: Player) -> list[str]:
        """What `player_value` takes off beyond cash and holdings (loans, penalties), in words for the page:
        a value far below a player's cash must say why."""
        return []

    def special_buy_phrase(self, action: dict[str, Any]) -> str | None:
        """The log's words for this title's `special_buy` (a lease, a marker), or None for the generic ones."""
        return None

    # -- stock round ---------------------------------------------------------------------------------------
    def sell_allowed_this_round(self, game: Game) -> bool:
        return self.rule(game, "SELL_AFTER", "first") != "first" or game.turn > 1

    no_sell_after_buy_same_corp = False

    president_sales_to_market = False

    def can_sell_companies(self, game: Game, player: Player) -> bool:
        return False

    def ipo_share_buyable(self, game: Game, corp: Corporation, share: Any) -> bool:
        return True

    def can_start(self, game: Game, corp: Corporation) -> bool:
        return True

    def par_prices(self, game: Game, corp: Corporation, player: Player) -> list[Cell]:
        return game.market.par_cells()

    def companies_for_sale(self, game: Game) -> list[Company]:
        return []

    def company_purchase_open(self, game: Game, stock: StockRound, player: Player, step: Any) -> bool:
        """Whether `buy_company` is among the player's options (which keeps him in the turn order)."""
        return bool(step.buyable_companies(game, stock, player))

    def company_sale_price(self, game: Game, company: Company) -> int:
        return company.value

    def after_buy_shares(self, game: Game, corp: Corporation) -> None:
        self.check_float(game, corp)

    def after_sell_shares(self, game: Game, corp: Corporation, bundle: Bundle) -> None:
        pass

    def after_buy_company(self, game: Game, company: Company) -> None:
        pass

    def after_sell_company(self, game: Game, company: Company) -> None:
        pass

    def after_share_transfer(self, game: Game, corp: Corporation) -> None:
        pass

    def sets_priority(self, action: dict[str, Any]) -> bool:
        return True

    def turn_counts_as_action(self, stock: StockRound) -> bool:
        return bool(stock.turn_actions)

    def finish_stock_round(self, game: Game, stock: StockRound) -> None:
        pass

    def check_float(self, game: Game, corp: Corporation) -> None:
        if corp.floated or not corp.ipoed:
            return
        sold = 100 - corp.treasury_percent
        if sold < corp.float_percent:
            return
        corp.floated = True
        if corp.capitalization == "full":
            assert corp.par_price is not None
            game.pay(None, corp, corp.par_price * 10)

    # -- operating round -------------------------------------------------------------------------------------
    def pay_private_income(self, game: Game) -> None:
        for company in game.companies.values():
            if company.closed or company.owner is None or not company.revenue:
                continue
            if isinstance(company.owner, int):
                game.pay(None, game.player(company.owner), company.revenue)
            elif company.owner in game.corporations:
                game.pay(None, game.corporations[company.owner], company.revenue)

    def operating_order(self, game: Game) -> list[str]:
        floated = [c for c in game.corporations.values() if c.floated and not c.closed]
        return [c.sym for c in sorted(floated, key=lambda c: -(game.share_price(c) or 0))]

    def place_home_token(self, game: Game, corp: Corporation, at_round_start: bool) -> None:
        if corp.tokens_placed or corp.home is None:
            return
        homes = corp.home if isinstance(corp.home, list) else [corp.home]
        for home in homes:
            h = game.board.hex(home)
            if corp.home_city_index is None and len(h.tile.cities) > 1 and corp.sym in h.tile_reservations:
                if isinstance(game.round, OperatingRound) and corp.sym not in game.round.pending_homes:
                    game.round.pending_homes.append(corp.sym)
                continue
            game.board.place_home_token(corp.sym, home, corp.home_city_index)
            corp.tokens_placed += 1

    def start_operating(self, game: Game, corp: Corporation) -> None:
        pass

    def tile_lays(self, game: Game) -> list[dict[str, Any]]:
        return list(self.rule(game, "TILE_LAYS", [{"lay": True, "upgrade": True}]))

    def may_build(self, game: Game, corp: Corporation) -> bool:
        return True

    def extra_track_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        return []

    def buying_power(self, game: Game, corp: Corporation) -> int:
        return corp.cash

    def lay_must_connect(self, game: Game, corp: Corporation, hex_id: str) -> bool:
        return True

    def is_upgrade(self, game: Game, hex_id: str, result: Any = None) -> bool:
        """Whether a lay on this hex counts as an upgrade: a question about the hex alone, so that tile-lay
        enumeration can skip a hex before trying tiles on it."""
        return game.board.hex(hex_id).tile.color != "white"

    def check_second_lay(self, game: Game, round_: OperatingRound, hex_id: str) -> None:
        if hex_id in round_.laid_hexes:
            raise IllegalAction(f"{hex_id} already had a tile laid this turn", "same_hex")

    def check_track_restrictions(self, game: Game, round_: OperatingRound, corp: Corporation, hex_id: str,
                                 result: Any, rotation: int) -> None:
        pass

    def pay_for_track(self, game: Game, round_: OperatingRound, corp: Corporation, cost: int) -> None:
        if cost > corp.cash:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, the terrain costs {cost}", "cash")
        game.pay(corp, None, cost)

    def after_lay_tile(self, game: Game, round_: OperatingRound, corp: Corporation, hex_id: str) -> None:
        pass

    def pay_for_token(self, game: Game, round_: OperatingRound, corp: Corporation, price: int) -> None:
        if price > corp.cash:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, the station costs {price}", "cash")
        game.pay(corp, None, price)

    def route_trains(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[Train]:
        return [t for t in corp.trains if not t.rusted]

    def route_available(self, game: Game, corp: Corporation) -> bool:
        """A train could run: one of the corporation's stations is joined by track to another stop (a city,
        town or halt, or another of its stations). Stations that stand alone — two stations with no track
        between them included — run nothing, so the run (and what depends on it) is not offered and the turn's
        revenue is withheld (rules-1825.md, "No run without a route")."""
        reach = game.board.reach(corp.sym)
        if not reach.token_nodes:
            return False
        if reach.nodes - reach.token_nodes:
            return True
        if len(reach.token_nodes) < 2:
            return False
        kinds = self.train_kinds(game)
        kind = kinds.get("2") or next(iter(kinds.values()))  # any run has two stops
        return bool(game.board.best_routes(corp.sym, {"probe": kind}, self.revenue_colors(game),
                                           game.phase.name, per_train=1, search_limit=500))

    def route_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        if not self.route_trains(game, round_, corp):
            return []
        return ["run_routes"]

    def train_kinds(self, game: Game) -> dict[str, TrainKind]:
        return game.defn.train_kinds

    def revenue_colors(self, game: Game) -> tuple[str, ...]:
        return game.phase.tiles

    def extra_revenue(self, game: Game, round_: OperatingRound, corp: Corporation) -> int:
        return 0

    def special_buy(self, game: Game, round_: OperatingRound, corp: Corporation, action: dict[str, Any]) -> None:
        raise IllegalAction("nothing special to buy in this title", "special_buy")

    def after_run_routes(self, game: Game, round_: OperatingRound, corp: Corporation) -> None:
        pass

    def may_choose_dividend(self, game: Game, corp: Corporation) -> bool:
        return True

    def dividend_kinds(self, game: Game, corp: Corporation) -> list[str]:
        return ["payout", "withhold"]

    @staticmethod
    def pay_shareholders(game: Game, corp: Corporation, per_share: int) -> None:
        """The bank pays each player his dividend: `per_share` for every 10% he holds."""
        for player in game.players:
            pct = corp.percent_owned_by(player.id)
            if pct:
                game.pay(None, player, per_share * pct // 10)

    def distribute(self, game: Game, round_: OperatingRound, corp: Corporation, kind: str, amount: Any) -> None:
        revenue = round_.revenue
        if kind == "payout" and revenue > 0:
            per_share = revenue // 10
            self.pay_shareholders(game, corp, per_share)
            pool = corp.percent_owned_by(POOL)
            if pool:
                game.pay(None, corp, per_share * pool // 10)
        elif revenue > 0:
            game.pay(None, corp, revenue)
        self.move_price_after_dividend(game, corp, kind, revenue)

    def move_price_after_dividend(self, game: Game, corp: Corporation, kind: str, revenue: int) -> None:
        if corp.share_cell is None:
            return
        if kind == "payout" and revenue > 0:
            corp.share_cell = game.market.right(corp.share_cell)
        else:
            corp.share_cell = game.market.left(corp.share_cell)

    def limit_trains(self, game: Game, corp: Corporation) -> list[Train]:
        """The trains that count against the limit: always a subset of `corp.trains`."""
        return [t for t in corp.trains if not t.obsolete and not t.rusted]

    def train_limit(self, game: Game, corp: Corporation) -> int:
        return game.phase.train_limit

    def uniform_train_limit(self, game: Game) -> bool:
        """True when every corporation's limit is the phase's (`train_limit` unchanged), so a crowded
        corporation can be ruled out by counting its cards alone (`limit_trains` is always a subset of
        them). A title whose limit differs by corporation says False here beside its `train_limit`."""
        return True

    def room_for_train(self, game: Game, corp: Corporation) -> bool:
        return len(self.limit_trains(game, corp)) < game.train_limit(corp)

    def depot_trains_for(self, game: Game, corp: Corporation) -> list[Train]:
        avail = game.depot.available(game.defn.phase_names, game.phase_index)
        out: list[Train] = []
        names: set[str] = set()
        for train in avail:
            if train.name in names:
                continue
            names.add(train.name)
            out.append(train)
        return out

    def other_trains(self, game: Game, corp: Corporation) -> list[Train]:
        out = []
        for other in game.corporations.values():
            if other is corp or other.closed:
                continue
            out.extend(t for t in other.trains if not t.rusted)
        return out

    def buy_train_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        if not self.room_for_train(game, corp):
            return []
        depot = [t for t in self.depot_trains_for(game, corp) if t.price <= corp.cash]
        others = self.other_trains(game, corp) if corp.cash >= 1 else []
        if depot or others:
            return ["buy_train", "pass"]
        return []

    def skip_buy_train(self, game: Game, round_: OperatingRound, corp: Corporation) -> None:
        pass

    def check_train_from_corporation(self, game: Game, buyer: Corporation, seller: Corporation, train: Train,
                                     price: int, purse: int) -> None:
        """`purse`: what the buyer may spend (its treasury, or more where a title lets its president help)."""
        if price < 1 or price > purse:
            raise IllegalAction(f"price {price} must be between 1 and {purse}", "train_price")
        self.check_train_price_multiple(game, price)

    def train_price_multiple(self, game: Game) -> int:
        """Trains change hands between corporations only at multiples of this (the data's
        TRAIN_PRICE_MULTIPLE: 1825 deals in whole £10s)."""
        return int(self.rule(game, "TRAIN_PRICE_MULTIPLE", 1))

    def check_train_price_multiple(self, game: Game, price: int) -> None:
        step = self.train_price_multiple(game)
        if price % step:
            raise IllegalAction(f"a train changes hands between corporations only at a multiple of {step}, "
                                f"not {price}", "train_price_multiple")

    def receivership_blocks_other_trains(self, game: Game, corp: Corporation) -> bool:
        return False

    def min_train_price_from_corporation(self, game: Game) -> int:
        return 1

    def may_buy_from(self, game: Game, buyer: Corporation, seller: Corporation) -> bool:
        return True

    def special_buy_options(self, game: Game, round_: Any, corp: Corporation) -> list[dict[str, Any]]:
        return []

    def auto_action(self, game: Game) -> dict[str, Any] | None:
        """The next action nobody decides (the engine takes it in live play), or None."""
        return None

    def after_buy_train(self, game: Game, round_: OperatingRound, corp: Corporation, train: Train) -> None:
        pass

    def phase_changed(self, game: Game) -> None:
        pass

    def enforce_train_limit(self, game: Game, corp: Corporation) -> None:
        pass

    # -- digest -----------------------------------------------------------------------------------------------
    def digest_corporations(self, game: Game) -> list[Corporation]:
        return list(game.corporations.values())

    def digest_player(self, game: Game, player: Player, entry: dict[str, Any]) -> dict[str, Any]:
        """Title additions to a player's digest entry (1840: loans and their end penalty)."""
        return entry

    def digest_corporation(self, game: Game, corp: Corporation, entry: dict[str, Any]) -> dict[str, Any]:
        """Title corrections to a corporation's digest entry (1840: who controls a line)."""
        return entry

    def digest_minors(self, game: Game) -> dict[str, Any]:
        return {}

    def digest_bank_cash(self, game: Game) -> int | None:
        return game.bank_cash

    def bank_left(self, game: Game) -> int | None:
        """What the bank holds as the players count it, for the page (None: the ledger `bank_cash` is it).
        A title whose bank breaks on another measure than its ledger says so here."""
        return None

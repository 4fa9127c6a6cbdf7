"""1825 (Units 1-3, regionals, kits) as a composition of the shared core.

Reads like the rules digest: privates handed out at set-up, corporations opened in bands by par price,
one certificate per turn, full capitalisation for majors and incremental for minors, price moves only by
results, receivership with train leasing, double-heading 2-trains, bank and stock-market game end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...board import Board, BoardRules
from ...board.routes import DefaultRouteRules
from ...board.tiles import load_catalogue
from ...core.market import Cell
from ...core.operating import OperatingRound
from ...core.rounds import Round
from ...core.runs import RunRoutes
from ...core.stock import PURCHASES, StockRound
from ...core.track import HomeToken
from ...errors import IllegalAction, MalformedAction
from ...model import Company, Corporation, Player, Train
from ...titledata import options_for_players
from ..base import TitleRules
from .compose import compose
from .credit import check_spend, lease_repayable
from .operating import Dividend1825, OperatingRound1825, TrackAndToken1825
from .reach import reaches
from .routes import RouteRules1825
from .sales import BuySellParShares1825
from .state import State1825, in_receivership, silent_receivership, state
from .steps.trains import BuyTrain1825, DiscardTrain1825

if TYPE_CHECKING:
    from ...core.shares import Bundle
    from ...game import Game
    from ...titledata import TitleData

# what a game with no options plays, by player count
DEFAULT_UNITS: dict[int, tuple[str, ...]] = {2: ("unit_3",), 3: ("unit_2",), 4: ("unit_1",), 5: ("unit_1",),
                                             6: ("unit_12",), 7: ("unit_12",), 8: ("unit_123",),
                                             9: ("unit_123", "r1", "r2", "r3")}
UNIT_OPTIONS = ("unit_1", "unit_2", "unit_3", "unit_12", "unit_23", "unit_123")
UNIT_COMBINATIONS = (({"unit_1", "unit_2", "unit_3"}, "unit_123"), ({"unit_1", "unit_2"}, "unit_12"),
                     ({"unit_2", "unit_3"}, "unit_23"))
LEASE_COST = 10
ADJACENT = {
    "pointy": {(-1, 1), (-2, 0), (-1, -1), (1, -1), (2, 0), (1, 1)},
    "flat": {(0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1), (1, 1)},
}
RECEIVERSHIP_CREDIT = 200
# DB1's green city tiles for a double town, on the hex that is North Staffordshire's home: only NS lays them
# there, whether or not NS is in the game (docs/rules-1825.md, "Stoke's DB1 city tiles are North Staffordshire's")
RESERVED_LAYS: dict[tuple[str, str], str] = {("Q13", "887"): "NS", ("Q13", "888"): "NS"}


class Rules1825(TitleRules):
    title = "1825"
    state_class = State1825
    # Units are merged as chosen and the merged combination's player range is checked (compose.check_options):
    # Units 1, 2 and 3 chosen by four players are Units 1+2+3, not Units 1+2 with Unit 3 (a 2-player Unit)
    # dropped (docs/rules-1825.md, Set-up: "Options and player counts").
    drops_options_by_players = False

    # -- set-up -------------------------------------------------------------------------------------------
    def normalise_options(self, options: list[str], players: int) -> list[str]:
        opts = list(dict.fromkeys(options))
        for units, combined in UNIT_COMBINATIONS:
            if units <= set(opts):
                opts = [o for o in opts if o not in units] + [combined]
                break
        if not opts:
            # a game created with no options at all plays the map that suits its player count (nine players
            # need the regional kits: rules-1825.md, Set-up)
            return list(DEFAULT_UNITS.get(players, ("unit_123",)))
        if not any(o.startswith("unit_") and o != "unit_4" for o in opts):
            units = ", ".join(options_for_players("1825", list(UNIT_OPTIONS), players))
            raise MalformedAction(f"1825: choose at least one Unit for {players} players ({units}); kits and "
                                  f"other options add to a Unit", "options")
        return opts

    # option sets no dumped configuration equals are built from composition.json (see g1825/compose.py)
    compose_data = staticmethod(compose)

    def load_board(self, data: TitleData) -> Board:
        # composed configurations have no map file of their own: build the board from the data in hand
        return Board.from_data(load_catalogue(data.tiles), data.map, data.setup, self.board_rules(data.directory))

    def route_rules(self) -> DefaultRouteRules:
        return RouteRules1825()

    def board_rules(self, directory: Path) -> BoardRules:
        """1825's board limits (docs/rules-1825.md): a hex block ends with the home token; 119 needs brown,
        166 gray; tile 200 only on its listed hexes, and from phase 3 a run through a tokened 200 counts
        it as an extra stop (not for 4+4E trains)."""
        out = super().board_rules(directory)
        extras_path = Path(directory) / "extras.json"
        extras = json.loads(extras_path.read_text()) if extras_path.exists() else {}
        rules = json.loads((Path(directory) / "rules.json").read_text()).get("rules", {})
        listed = (rules.get("TILE200_HEXES") or {}).get("value", [])
        out.blocks_end_on_first_token = True
        out.tile_requires_color = {"119": "brown", "166": "gray"}
        out.tile_only_on_hexes = {"200": list(extras.get("tile_200_hexes") or listed)}
        out.through_bonus_tiles = ("200",)
        out.through_bonus_min_phase = 3
        out.through_bonus_excluded_trains = ("4+4E",)
        return out

    def initial_bank_cash(self, game: Game) -> int:
        # the reference keeps a large internal float; the bank that breaks is `bank_size`
        return int(self.rule(game, "BANK_CASH", 50000))

    def bank_size(self, game: Game) -> int:
        return int(game.defn.data.setup["bank"]["cash"])

    def bank_left(self, game: Game) -> int:
        """The bank as players see it: the configuration's bank less the players' cash; it breaks below zero
        (rules-1825.md, "Game end"). The ledger `bank_cash` pays corporations too and never runs dry."""
        return self.bank_size(game) - sum(p.cash for p in game.players)

    def corporation_kind(self, raw: dict[str, Any]) -> str:
        return "major" if raw["shares"][0] == 20 else "minor"

    def setup(self, game: Game) -> None:
        specific = game.defn.data.setup.get("title_specific") or {}
        own = state(game)
        own.formed = []
        own.minor_band = int(specific.get("minor_band") or 0)
        own.max_band = int(specific.get("max_band") or 0)
        privates = sorted(game.companies.values(), key=lambda c: c.value)
        for index, player in enumerate(game.players):
            if index < len(privates):
                company = privates[index]
                game.pay(player, None, company.value)
                company.owner = player.id
                player.companies.append(company.sym)
            else:
                lnwr = game.corporations["LNWR"]
                share = lnwr.shares[0] if not lnwr.ipoed else next(
                    s for s in lnwr.shares if s.owner == "LNWR" and not s.president)
                if not lnwr.ipoed:
                    cell = self.par_prices(game, lnwr, player)[0]
                    lnwr.par_price = cell.price
                    lnwr.share_cell = (cell.row, cell.column)
                    lnwr.ipoed = True
                price = lnwr.par_price * share.percent // 10  # type: ignore[operator]
                game.pay(player, None, price)
                lnwr.give(share, player.id)
                self.after_buy_shares(game, lnwr)
        for corp in game.corporations.values():
            # a corporation's `blocks_hexes` marks its home area but stops nobody (docs/rules-1825.md)
            game.board.remove_blocker(corp.sym)
        required = self.rule(game, "REQUIRED_TRAIN", {})
        for corp in game.corporations.values():
            name = required.get(corp.sym) if corp.kind == "minor" else None
            if not name:
                continue
            # each minor sets aside a train of its own: two minors needing a 4T (TV, M&GN) set aside two
            # (docs/rules-1825.md, "A minor's own train is never for sale")
            train = next((t for t in game.depot.upcoming() if t.name == name and not t.reserved), None)
            if train is None:
                continue
            train.reserved = True
            corp.required_train = train.id

    def stock_round(self, game: Game) -> Round:
        return StockRound([BuySellParShares1825()])

    def operating_round(self, game: Game, round_num: int) -> Round:
        return OperatingRound1825([HomeToken(), TrackAndToken1825(), RunRoutes(), Dividend1825(), DiscardTrain1825(), BuyTrain1825()],
                                  round_num)

    # -- bands: which corporations may be started -----------------------------------------------------------
    def band(self, game: Game, corp: Corporation) -> int:
        return corp.band if corp.kind == "major" and corp.band else state(game).minor_band

    def current_band(self, game: Game) -> int:
        if any(c.owner is None and not c.closed and not c.abilities for c in game.companies.values()):
            return 0
        sold_out = [self.band(game, c) for c in game.corporations.values()
                    if c.kind == "major" and c.band and c.treasury_percent == 0]
        return min(max(sold_out) + 1, state(game).max_band) if sold_out else 1

    def can_start(self, game: Game, corp: Corporation) -> bool:
        # The digest opens corporations band by band, but the recorded games (which win for 1825) show the
        # reference accepting a start in any band; `current_band` stays for display. See docs/conflicts-1825.md #1.
        return True

    def par_prices(self, game: Game, corp: Corporation, player: Player) -> list[Cell]:
        if corp.kind == "major":
            # the director's certificate (20%) must be affordable
            return [c for c in game.market.par_cells()
                    if c.price == corp.fixed_par and c.price * corp.shares[0].percent // 10 <= player.cash]
        train = self.required_train(game, corp)
        if train is None:
            return []
        return [c for row in game.market.grid for c in row
                if c is not None and c.price * 10 > train.price and "endgame" not in c.types
                and c.price * 4 <= player.cash]

    def required_train(self, game: Game, corp: Corporation) -> Train | None:
        return game.depot.by_id(corp.required_train) if corp.required_train else None

    # -- stock round --------------------------------------------------------------------------------------
    no_sell_after_buy_same_corp = True
    president_sales_to_market = True

    def turn_counts_as_action(self, stock: StockRound) -> bool:
        # only purchases keep the round going (and set the priority deal)
        return stock.bought()

    def sets_priority(self, action: dict[str, Any]) -> bool:
        return action["type"] in PURCHASES

    def companies_for_sale(self, game: Game) -> list[Company]:
        unbought = [c for c in game.companies.values() if c.owner is None and not c.closed]
        if unbought:
            return [min(unbought, key=lambda c: c.value)]
        return [c for c in game.companies.values() if c.owner == "bank" and not c.closed]

    def company_purchase_open(self, game: Game, stock: StockRound, player: Player, step: Any) -> bool:
        # The option stays open while any private is unsold, whatever the player's cash (so such a player
        # keeps his turn and must pass); which private and at what price is checked when he buys.
        # A private the player sold to the bank this round does not count (docs/rules-1825.md, "No buying back
        # a private sold this round").
        sold = getattr(step, "sold_company", None)
        return (not stock.bought() and player.cash > 0 and game.num_certs(player) < self.cert_limit(game)
                and any(c.owner in (None, "bank") and not c.closed and not (sold and sold(player, c.sym))
                        for c in game.companies.values()))

    def can_sell_companies(self, game: Game, player: Player) -> bool:
        return game.turn > 1 and bool(player.companies) and not self._bought_this_turn(game)

    def _bought_this_turn(self, game: Game) -> bool:
        round_ = game.round
        return isinstance(round_, StockRound) and round_.bought()

    def company_sale_price(self, game: Game, company: Company) -> int:
        return company.value - int(self.rule(game, "COMPANY_SALE_FEE", 30))

    def after_sell_company(self, game: Game, company: Company) -> None:
        company.owner = "bank"

    def after_buy_shares(self, game: Game, corp: Corporation) -> None:
        self.check_float(game, corp)
        self.check_formation(game, corp)

    def check_formation(self, game: Game, corp: Corporation) -> None:
        formed = state(game).formed
        if corp.sym in formed:
            return
        if corp.kind == "major":
            if corp.floated:
                formed.append(corp.sym)
            return
        train = self.required_train(game, corp)
        if train is None or not corp.floated or corp.cash < train.price:
            return
        formed.append(corp.sym)
        # the first set-aside train of the kind goes to the minor that forms first (two minors may need a 4T)
        train = next(t for t in game.depot.trains
                     if t.name == train.name and t.reserved and t.owner is None and not t.rusted)
        corp.required_train = train.id
        # stays reserved: the reference takes minors' trains out of the depot for good (never the first of
        # its kind, never for sale)
        train.owner = corp.sym
        corp.trains.append(train)
        game.pay(corp, None, train.price)

    # -- who acts for a corporation ---------------------------------------------------------------------------
    def receivership(self, game: Game, corp: Corporation) -> bool:
        return in_receivership(corp)

    def acting_player_for(self, game: Game, corp: Corporation) -> int | None:
        if corp.president is not None:
            return corp.president
        if not corp.floated:
            return None
        directors = {c.president for c in game.corporations.values() if c.president is not None}
        for pid in game.player_order:
            if pid not in directors:
                return pid
        return game.player_order[0]

    def silent_receivership(self, game: Game, corp: Corporation) -> bool:
        return silent_receivership(game, corp)

    # -- operating round ----------------------------------------------------------------------------------
    def operating_order(self, game: Game) -> list[str]:
        formed = state(game).formed
        corps = [game.corporations[s] for s in formed if not game.corporations[s].closed]
        corps.sort(key=lambda c: (c.kind != "major", -(c.par_price or 0), formed.index(c.sym)))
        return [c.sym for c in corps]

    def place_home_token(self, game: Game, corp: Corporation, at_round_start: bool) -> None:
        if corp.tokens_placed or corp.home is None:
            return
        if corp.kind == "minor" and not self.can_place_home_token(game, corp):
            return
        super().place_home_token(game, corp, at_round_start)

    def can_place_home_token(self, game: Game, corp: Corporation) -> bool:
        if corp.kind != "minor":
            return True
        tile = game.board.hex(corp.home).tile
        return bool(tile.paths) and bool(tile.cities)

    def start_operating(self, game: Game, corp: Corporation) -> None:
        if corp.kind == "minor" and not corp.tokens_placed:
            self.place_home_token(game, corp, at_round_start=False)

    def may_build(self, game: Game, corp: Corporation) -> bool:
        return not self.silent_receivership(game, corp)

    def extra_track_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        # the lease stays among the step's actions (as the reference's); its options are only the leases a run
        # repays (special_buy_options)
        if self.receivership(game, corp) and round_.leased_train is None and self.leaseable_trains(game):
            return ["special_buy"]
        return []

    def buying_power(self, game: Game, corp: Corporation) -> int:
        return corp.cash + (RECEIVERSHIP_CREDIT if self.receivership(game, corp) else 0)

    def is_upgrade(self, game: Game, hex_id: str, result: Any = None) -> bool:
        tile = game.board.hex(hex_id).tile
        return tile.color != "white" and not (tile.color == "yellow" and tile.preprinted)

    def check_second_lay(self, game: Game, round_: OperatingRound, hex_id: str) -> None:
        super().check_second_lay(game, round_, hex_id)
        new = game.board.hex(hex_id)
        for laid in round_.laid_hexes:
            old = game.board.hex(laid)
            if (new.x - old.x, new.y - old.y) in ADJACENT[game.board.rules.layout]:
                raise IllegalAction("the second yellow tile may not be adjacent to the first", "adjacent_lays")

    def check_track_restrictions(self, game: Game, round_: OperatingRound, corp: Corporation, hex_id: str,
                                 result: Any, rotation: int) -> None:
        """An upgraded station tile must lie within reach of one of the corporation's trains; a minor
        building its own home hex before its home station is down is exempt (rules-1825.md). A tile kept for
        one corporation on a hex (`RESERVED_LAYS`) is laid there by that corporation only."""
        board = game.board
        keeper = RESERVED_LAYS.get((hex_id, result.new_tile))
        if keeper is not None and corp.sym != keeper:
            raise IllegalAction(f"only {keeper} may lay tile {result.new_tile} on {hex_id}", "reserved_tile")
        new = board.catalogue[result.new_tile]
        if self.receivership(game, corp):  # docs/rules-1825.md, "Credit in receivership is repaid by ..."
            check_spend(game, round_, corp, result.cost, "the terrain", (hex_id, new, rotation))
        if corp.kind == "minor" and not corp.tokens_placed and hex_id == corp.home:
            return
        h = board.hex(hex_id)
        if h.tile.preprinted or not any(n.is_stop for n in new.nodes):  # a junction (tile 60) is no station
            return
        trains = self.route_trains(game, round_, corp)
        if not trains:
            raise IllegalAction("cannot upgrade a city or town without a train", "upgrade_needs_train")
        # a train leased this turn is the one that measures the reach, whatever the corporation owns
        # (docs/rules-1825.md, "Upgrading a station needs a train that reaches it": "With a leased train")
        reach_nodes, reach_cities = self.train_reach([round_.leased_train] if round_.leased_train else trains)
        if reach_nodes >= 99:
            return
        with board.trial_lay(hex_id, new, rotation):
            ok = bool(reach_nodes) and reaches(board, corp.sym, hex_id, reach_nodes) or \
                bool(reach_cities) and reaches(board, corp.sym, hex_id, reach_cities, cities_only=True)
            board.forget_reach()
        if ok:
            return
        raise IllegalAction(f"no train of {corp.sym} can reach the upgraded tile on {hex_id}", "upgrade_reach")

    @staticmethod
    def train_reach(trains: list[Train]) -> tuple[int, int]:
        """(stops, cities) the longest single train can count; the U3 counts only cities; an express (4+4E)
        reaches anything. Two 2-trains that may double-head for revenue still reach only 2 stops here
        (rules-1825.md, "Upgrading a station needs a train that reaches it")."""
        def stops(train: Train) -> int:
            if train.name == "U3":
                return 0
            return train.distance if isinstance(train.distance, int) else 99

        biggest = max(stops(t) for t in trains)
        cities = 3 if any(t.name == "U3" for t in trains) else 0
        return biggest, cities

    def pay_for_track(self, game: Game, round_: OperatingRound, corp: Corporation, cost: int) -> None:
        self._pay_or_borrow(game, round_, corp, cost, "the terrain")

    def pay_for_token(self, game: Game, round_: OperatingRound, corp: Corporation, price: int) -> None:
        self._pay_or_borrow(game, round_, corp, price, "the station")

    def _pay_or_borrow(self, game: Game, round_: OperatingRound, corp: Corporation, cost: int, what: str) -> None:
        if cost <= corp.cash:
            game.pay(corp, None, cost)
            return
        if not self.receivership(game, corp) or cost > corp.cash + RECEIVERSHIP_CREDIT:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, {what} costs {cost}", "cash")
        if what != "the terrain":  # track was checked with its tile laid (check_track_restrictions)
            check_spend(game, round_, corp, cost, what)
        round_.receivership_loan += cost - corp.cash
        game.pay(corp, None, corp.cash)

    def after_lay_tile(self, game: Game, round_: OperatingRound, corp: Corporation, hex_id: str) -> None:
        # a home reserved on a hex without a city keeps a slot of the city the lay brings (docs/rules-1825.md,
        # "A minor building its own home hex", *Its slot is kept*)
        game.board.settle_tile_reservation(hex_id)
        if corp.kind == "minor" and not corp.tokens_placed and hex_id == corp.home:
            self.place_home_token(game, corp, at_round_start=False)
        for ability in list(corp.abilities):
            if ability.get("type") == "blocks_hexes" and hex_id in ability.get("hexes", []):
                corp.abilities.remove(ability)
                game.board.remove_blocker(corp.sym)

    def special_buy_phrase(self, action: dict[str, Any]) -> str | None:
        """1825's only special purchase is the receivership lease of a train (its description is the train)."""
        return f"leases a {action.get('description')} train for {action.get('cost', LEASE_COST)}"

    def special_buy(self, game: Game, round_: OperatingRound, corp: Corporation, action: dict[str, Any]) -> None:
        """Receivership: lease a train from the bank for this operating turn instead of buying one."""
        if not self.receivership(game, corp):
            raise IllegalAction(f"only a corporation in receivership leases trains; {corp.sym} is not", "lease")
        if round_.leased_train is not None:
            raise IllegalAction(f"{corp.sym} already leased a train this turn", "lease")
        if action.get("cost") not in (None, LEASE_COST):
            raise IllegalAction(f"a lease costs {LEASE_COST}", "lease_cost")
        trains = self.leaseable_trains(game)
        train = next((t for t in trains if t.name == action.get("description")), None)
        if train is None:
            raise IllegalAction(f"no {action.get('description')!r} train can be leased now", "lease_train")
        if not lease_repayable(game, round_, corp, train):
            raise IllegalAction(f"{corp.sym} is in receivership with {corp.cash}: a lease of a {train.name} on credit "
                                "is more than its best run this turn can repay", "credit")
        round_.leased_train = train
        if corp.cash < LEASE_COST:
            round_.receivership_loan += LEASE_COST - corp.cash
            game.pay(corp, None, corp.cash)
        else:
            game.pay(corp, None, LEASE_COST)

    def special_buy_options(self, game: Game, round_: Any, corp: Corporation) -> list[dict[str, Any]]:
        return [{"description": t.name, "cost": LEASE_COST} for t in self._leases(game, round_, corp)]

    def _leases(self, game: Game, round_: Any, corp: Corporation) -> list[Train]:
        """The trains the corporation may lease now: those whose run repays what it spent on credit."""
        return [t for t in self.leaseable_trains(game) if lease_repayable(game, round_, corp, t)]

    def leaseable_trains(self, game: Game) -> list[Train]:
        return self.depot_trains_for(game, None)  # type: ignore[arg-type]

    def route_trains(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[Train]:
        trains = [t for t in corp.trains if not t.rusted]
        if round_.leased_train is not None:
            trains.append(round_.leased_train)
        return trains

    def route_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        receivership = self.receivership(game, corp)
        if not corp.trains and not receivership:
            return []
        if self.silent_receivership(game, corp) or not self.route_available(game, corp):
            return []
        if receivership and round_.leased_train is None and self.leaseable_trains(game):
            return ["run_routes", "special_buy"]
        return ["run_routes"]

    def after_run_routes(self, game: Game, round_: OperatingRound, corp: Corporation) -> None:
        assert isinstance(round_, OperatingRound1825)
        leased = round_.leased_train
        round_.leased_run = leased is not None and any(r.get("train") == leased.id for r in round_.routes)
        if round_.revenue < round_.receivership_loan:
            raise IllegalAction(
                f"revenue {round_.revenue} does not cover {round_.receivership_loan} spent on credit", "loan"
            )

    def may_choose_dividend(self, game: Game, corp: Corporation) -> bool:
        return not self.receivership(game, corp)

    def distribute(self, game: Game, round_: OperatingRound, corp: Corporation, kind: str, amount: Any) -> None:
        revenue = round_.revenue
        if kind == "payout" and revenue > 0:
            per_share = revenue // 10
            self.pay_shareholders(game, corp, per_share)
        elif revenue > 0:
            # spending on credit in receivership is repaid first out of the withheld revenue
            game.pay(None, corp, revenue - round_.receivership_loan)
        paid = revenue if kind == "payout" else 0
        self.move_price(game, corp, paid)
        round_.routes = []
        if corp.share_cell is not None and "close" in game.market.cell(corp.share_cell).types:
            game.close_corporation(corp)

    def move_price(self, game: Game, corp: Corporation, paid: int) -> None:
        if corp.share_cell is None:
            return
        price = game.share_price(corp) or 0
        if paid <= 0:
            corp.share_cell = game.market.left(corp.share_cell)
            return
        if paid <= price // 2:
            return
        steps = 1 if paid < 2 * price else min(paid // price, 4)
        corp.share_cell = game.market.right(corp.share_cell, steps)

    def depot_trains_for(self, game: Game, corp: Corporation | None) -> list[Train]:
        upcoming = game.depot.upcoming()
        out: list[Train] = upcoming[:1]
        names = game.defn.phase_names
        for train in upcoming:
            if train.available_on and train.available_on in names[: game.phase_index + 1]:
                out.append(train)
        out.extend(game.depot.discarded)
        unique: list[Train] = []
        seen: set[str] = set()
        for train in out:
            if train.name not in seen:
                seen.add(train.name)
                unique.append(train)
        return unique

    # -- game end -------------------------------------------------------------------------------------------
    def check_game_end(self, game: Game) -> None:
        """A share price on the top cell ends the game at once, even after the bank broke (the bank only
        lets the current operating round finish); see rules-1825.md, "Game end"."""
        endgame = game.market.coords_of_type("endgame")
        for corp in game.corporations.values():
            if corp.share_cell in endgame:
                game.end_game("stock_market")
                return
        if game.end_trigger is None and self.bank_size(game) - sum(p.cash for p in game.players) < 0:
            game.end_trigger = ("bank", "current_or")

    def ends_after_round(self, game: Game, previous: Round) -> bool:
        return isinstance(previous, OperatingRound)

    def digest_corporations(self, game: Game) -> list[Corporation]:
        return [c for c in game.corporations.values() if not c.closed]

    def after_sell_shares(self, game: Game, corp: Corporation, bundle: Bundle) -> None:
        pass

"""The title's rules object: set-up, round order, phases, the end and scoring, and the hooks not yet
moved to a step (docs/architecture.md, "Where a rule of each kind lives")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...board import Board
from ...board.routes import DefaultRouteRules
from ...board.tiles import NODE_BASE
from ...core.market import Cell
from ...core.operating import OperatingRound
from ...core.rounds import Round
from ...core.stock import StockRound
from ...core.track import HomeToken
from ...errors import IllegalAction, MalformedAction
from ...model import POOL, Company, Corporation, Player, Train
from ..base import TitleRules
from . import bonuses, p3
from . import constants as K
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

    def check_launch_home(self, game: Game, corp: Corporation, price: int, action: dict[str, Any]) -> int:
        """Standard corporations have fixed homes; variable-start ones choose (see takeover.py)."""
        if corp.home is not None:
            return 0
        from .takeover import check_variable_home

        return check_variable_home(game, corp, price, action)

    def after_launch(self, game: Game, corp: Corporation, action: dict[str, Any], home_cost: int) -> None:
        if corp.home is None or home_cost:
            from .takeover import place_variable_home

            place_variable_home(game, corp, action, home_cost)

    def launch_options(self, game: Game, corp: Corporation, cell: Cell, entity: int) -> list[dict[str, Any]]:
        base = {"type": "par", "entity": entity, "corporation": corp.sym, "share_price": cell.id}
        if corp.home is not None:
            return [base]
        from .takeover import variable_home_options

        return [dict(base, **extra) for extra in variable_home_options(game, corp, cell.price)]

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

    # -- track (the steps' rules: steps/track.py) ------------------------------------------------------------
    def tile_placed(self, game: Game, hex_id: str) -> None:
        """Sherbrooke's shared token and B&P's Boston reservation appear with the tiles that make room."""
        h = game.board.hex(hex_id)
        if hex_id == K.SHERBROOKE and h.tile.color == "yellow" and h.tokens:
            city = game.board.city_id(hex_id, 0)
            slots = h.tokens[0]
            for sym in ("StL&A", "A&StL"):
                if sym in game.corporations and not game.corporations[sym].closed and sym not in slots:
                    free = next((i for i, s in enumerate(slots) if s is None), len(slots))
                    game.board.place_token(sym, city, free)
        if hex_id == K.BOSTON and h.tile.color == "green" and game.phase_index < 3:
            bp = game.corporations.get("B&P")
            if bp is not None and not bp.closed and not any("B&P" in s for s in h.tokens) \
                    and not any("B&P" in r for r in h.reservations):
                for ci, slots in enumerate(h.tokens):
                    free = next((i for i, s in enumerate(slots) if s is None and h.reservations[ci][i] is None), None)
                    if free is not None:
                        h.reservations[ci][free] = "B&P"
                        break

    def p3_lays_left(self, game: Game, corp: Corporation) -> bool:
        return p3.lays_left(game, corp)

    def lay_p3_tile(self, game: Game, round_: OperatingRound, corp: Corporation, action: dict[str, Any]) -> None:
        p3.lay(game, corp, action)

    def lay_options(self, game: Game, round_: OperatingRound, corp: Corporation,
                    lay: dict[str, Any] | None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if lay is not None:  # None too when the corporation may not build (`BuildStep.may_build`)
            for hex_id, name, rot in game.board.legal_lays(corp.sym, set(game.phase.tiles)):
                if hex_id in round_.laid_hexes:
                    continue
                h = game.board.hex(hex_id)
                upgrade = h.tile.color != "white"
                if upgrade and not lay.get("upgrade"):
                    continue
                copy = game.board.supply.free_copy(name)
                tile_id = f"{name}-{copy}"
                cost = K.TILE_COST + game.board.check_lay(corp.sym, hex_id, tile_id, rot, set(game.phase.tiles)).cost
                if hex_id == K.LOWELL and state(game).p2_free == (corp.sym, game.turn, round_.round_num):
                    cost = 0
                if cost <= corp.cash:
                    out.append({"type": "lay_tile", "entity": corp.sym, "hex": hex_id, "tile": tile_id,
                                "rotation": rot})
        out.extend(p3.options(game, corp))
        return out

    # -- stations --------------------------------------------------------------------------------------------
    def station_price(self, game: Game, corp: Corporation, city: str) -> int:
        if corp.sym == "BW" and game.board.city_hex(city) == K.WORCESTER:
            return K.WORCESTER_PRICE
        price = corp.next_token_price()
        return K.STATION_PRICE if price is None else price

    def token_options(self, game: Game, corp: Corporation) -> list[tuple[str, int]]:
        if corp.next_token_price() is None:
            return []
        return [(city, slot) for city, slot in game.board.reachable_token_cities(corp.sym)
                if self.station_price(game, corp, city) <= corp.cash]

    # -- privates ---------------------------------------------------------------------------------------------
    def buyable_privates(self, game: Game, corp: Corporation) -> list[Company]:
        """Seed: in phases I and II a corporation buys a private from a player (any player, like a train from
        another corporation: the seller's consent is agreed between the players, not asked by the engine)."""
        if game.phase.name not in K.CORP_BUY_PHASES:
            return []
        return [c for c in game.companies.values() if not c.closed and isinstance(c.owner, int)
                and 1 + (K.P6_BANK_FEE if c.sym == K.P6 else 0) <= corp.cash]

    def refuse_private(self, game: Game, corp: Corporation, action: dict[str, Any]) -> IllegalAction | None:
        """`private_refusal` as the refusal a player is shown (the build step's and the purchase's own)."""
        reason = self.private_refusal(game, corp, action)
        return None if reason is None else IllegalAction(
            f"{corp.sym} cannot buy {action.get('company')}: {reason}", "buy_company")

    def private_refusal(self, game: Game, corp: Corporation, action: dict[str, Any]) -> str | None:
        """Why `corp` may not buy the private `action` names at its price, in the words of the rule."""
        sym = action.get("company")
        company = game.companies.get(sym) if isinstance(sym, str) else None
        if company is None:
            return None
        if game.phase.name not in K.CORP_BUY_PHASES:
            return "corporations buy privates only in phases I and II"
        if company.closed:
            return f"{company.sym} has been removed from the game"
        if not isinstance(company.owner, int):
            owner = "the bank" if company.owner is None else company.owner
            return f"{company.sym} belongs to {owner}: a corporation buys privates only from players"
        price = action.get("price")
        if isinstance(price, int) and not 1 <= price <= company.value:
            return f"{company.sym} sells for $1 to ${company.value}, not {price}"
        fee = K.P6_BANK_FEE if company.sym == K.P6 else 0
        if isinstance(price, int) and price + fee > corp.cash:
            extra = f" (+{fee} to the bank)" if fee else ""
            return f"{corp.sym} has {corp.cash}, {company.sym} costs {price}{extra}"
        return None

    def corporation_buys_private(self, game: Game, corp: Corporation, action: dict[str, Any]) -> None:
        company = game.company(action.get("company"))
        price = action.get("price")
        if not isinstance(price, int):
            raise MalformedAction("buy_company needs an integer price", "price")
        refusal = self.refuse_private(game, corp, action)  # the price is an int: the cash is checked there
        if refusal is not None:
            raise refusal
        if company not in self.buyable_privates(game, corp):
            raise IllegalAction(f"{corp.sym} cannot buy {company.sym} now", "buy_company")
        fee = K.P6_BANK_FEE if company.sym == K.P6 else 0
        seller = game.player(company.owner)
        game.pay(corp, seller, price)
        if fee:
            game.pay(corp, None, fee)
        seller.companies.remove(company.sym)
        company.owner = corp.sym
        corp.companies.append(company.sym)
        game.board.remove_blocker(company.sym)
        if company.sym == K.P2:
            state(game).p2_bought = True
            state(game).p2_free = (corp.sym, game.turn, getattr(game.round, "round_num", 0))
        self.sync_virtual_stations(game)

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

    # -- ferries (bonuses.py) ---------------------------------------------------------------------------------
    def buyable_ferries(self, game: Game, corp: Corporation) -> list[str]:
        return bonuses.buyable_ferries(game, corp)

    def buy_ferry(self, game: Game, corp: Corporation, action: dict[str, Any]) -> None:
        bonuses.buy_ferry(game, corp, action)

    # -- routes and revenue -------------------------------------------------------------------------------------
    def train_kinds(self, game: Game) -> dict[str, TrainKind]:
        kinds = dict(super().train_kinds(game))
        for train_id, face in state(game).faces.items():
            kinds[train_id] = kinds[face]
        return kinds

    def kind_of(self, game: Game, train: Train) -> TrainKind:
        return self.train_kinds(game)[state(game).faces.get(train.id, train.name)]

    @staticmethod
    def route_hexes(route: dict[str, Any]) -> list[str]:
        return bonuses.route_hexes(route)

    def check_route_restrictions(self, game: Game, corp: Corporation, routes: Any) -> None:
        if not isinstance(routes, list):
            return
        for route in routes:
            if isinstance(route, dict) and K.P6_HEX in self.route_hexes(route) and K.P6 not in corp.companies:
                raise IllegalAction("only the owner of the Delaware & Hudson may run to A12", "route_a12")

    def auto_routes(self, game: Game, corp: Corporation) -> list[dict[str, Any]]:
        trains = {t.id: self.kind_of(game, t) for t in corp.trains if not t.rusted}
        if not trains:
            return []
        routes = game.board.best_routes(corp.sym, trains, game.phase.tiles, game.phase.name, search_limit=3000,
                                        per_train=15, max_stops=9)
        out = []
        for route in routes:
            try:
                self.check_route_restrictions(game, corp, [route])
            except IllegalAction:
                continue
            out.append({"train": route["train"], "connections": route["connections"], "nodes": route["nodes"]})
        return out

    # -- dividends (the step's rules: `DividendStep`) ------------------------------------------------------------
    def move_price(self, game: Game, corp: Corporation, per_share: int) -> None:
        if corp.share_cell is None:
            return
        price = game.share_price(corp) or 0
        if per_share * 2 < price:
            corp.share_cell = game.market.left(corp.share_cell)
        elif per_share < price:
            return
        elif per_share >= 3 * price and price >= K.TRIPLE_MOVE_MIN_PRICE:
            corp.share_cell = game.market.right(corp.share_cell, 3)
        elif per_share >= 2 * price:
            corp.share_cell = game.market.right(corp.share_cell, 2)
        else:
            corp.share_cell = game.market.right(corp.share_cell)

    # -- trains --------------------------------------------------------------------------------------------------
    def faces(self, game: Game, card: str) -> list[tuple[str, int]]:
        """(face name, price) of a card; the first face is the card's own name."""
        for raw in game.defn.data.setup["trains"]:
            if raw["name"] == card:
                price = K.LAST_TRAIN_PRICE if card == "7+3" else raw["price"]
                return [(card, price)] + [(v["name"], v["price"]) for v in raw.get("variants") or []]
        return []

    def depot_faces(self, game: Game) -> list[tuple[Train, str, int]]:
        out = []
        for train in self.depot_trains_for(game, None):  # type: ignore[arg-type]
            for face, price in self.faces(game, train.name):
                out.append((train, face, price))
        return out

    def affordable_faces(self, game: Game, corp: Corporation) -> list[tuple[Train, str, int]]:
        return [f for f in self.depot_faces(game) if f[2] <= corp.cash]

    def check_depot_purchase(self, game: Game, corp: Corporation, train: Train, price: int, variant: Any) -> str:
        if train not in self.depot_trains_for(game, corp):
            raise IllegalAction(f"train {train.id} is not for sale by the bank now", "train_unavailable")
        faces = dict(self.faces(game, train.name))
        face = train.name if variant is None else variant
        if face not in faces:
            raise IllegalAction(f"card {train.name} has faces {', '.join(faces)}, not {variant!r}", "train_variant")
        if price != faces[face]:
            raise IllegalAction(f"the {face} costs {faces[face]}, not {price}", "train_price")
        return face

    def must_buy_train(self, game: Game, corp: Corporation) -> bool:
        return not any(not t.rusted and not t.obsolete for t in corp.trains)

    def uniform_train_limit(self, game: Game) -> bool:
        return not self.takeover(game)  # a takeover raises the acquirer's own limit

    def train_limit(self, game: Game, corp: Corporation) -> int:
        if self.takeover(game):
            return K.TAKEOVER_TRAIN_LIMIT[game.phase.name] + state(game).takeovers.get(corp.sym, 0)
        return game.phase.train_limit

    def remove_obsolete(self, game: Game, corp: Corporation) -> None:
        for train in [t for t in corp.trains if t.obsolete]:
            state(game).faces.pop(train.id, None)
            game.rust(train)

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

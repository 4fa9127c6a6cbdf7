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
from ...core.operating import OperatingRound
from ...core.rounds import Round
from ...core.stock import check_float
from ...core.track import HomeToken
from ...errors import MalformedAction
from ...model import Corporation, Train
from ...titledata import options_for_players
from ..base import TitleRules
from .compose import compose
from .operating import OperatingRound1825
from .routes import RouteRules1825
from .state import State1825, in_receivership, silent_receivership, state
from .steps.runs import Dividend1825, RunRoutes1825
from .steps.stock import BuySellParShares1825, check_formation, par_prices
from .steps.track import TrackAndToken1825
from .steps.trains import BuyTrain1825, DiscardTrain1825
from .stock import StockRound1825

if TYPE_CHECKING:
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
                    cell = par_prices(game, lnwr, player)[0]
                    lnwr.par_price = cell.price
                    lnwr.share_cell = (cell.row, cell.column)
                    lnwr.ipoed = True
                price = lnwr.par_price * share.percent // 10  # type: ignore[operator]
                game.pay(player, None, price)
                lnwr.give(share, player.id)
                check_float(game, lnwr)  # as the stock step's purchase would (BuySellParShares1825)
                check_formation(game, lnwr)
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
        return StockRound1825([BuySellParShares1825()])

    def operating_round(self, game: Game, round_num: int) -> Round:
        return OperatingRound1825([HomeToken(), TrackAndToken1825(), RunRoutes1825(), Dividend1825(), DiscardTrain1825(), BuyTrain1825()],
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

    # -- operating round (its rules are the round's and the steps': operating.py, steps/) --------------------
    def special_buy_phrase(self, action: dict[str, Any]) -> str | None:
        """1825's only special purchase is the receivership lease of a train (its description is the train)."""
        return f"leases a {action.get('description')} train for {action.get('cost', LEASE_COST)}"


    def leaseable_trains(self, game: Game) -> list[Train]:
        return self.depot_trains_for(game, None)  # type: ignore[arg-type]

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


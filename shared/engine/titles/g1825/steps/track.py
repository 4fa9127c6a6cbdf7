"""Track and stations: lays in receivership on credit its run repays, a second yellow tile not beside the
first, an upgraded station within a train's reach, tiles kept for one corporation, a minor's home placed
with the first tile on its home hex, and the lease open beside the lays (docs/rules-1825.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.operating import OperatingRound
from ....core.track import TrackAndToken
from ....errors import IllegalAction
from ....model import Corporation, Train
from ..credit import check_spend, token_options
from ..operating import OperatingRound1825
from ..reach import reaches
from ..state import in_receivership
from .runs import LeaseTrain, leaseable_trains, silent_receivership

if TYPE_CHECKING:
    from ....game import Game

ADJACENT = {
    "pointy": {(-1, 1), (-2, 0), (-1, -1), (1, -1), (2, 0), (1, 1)},
    "flat": {(0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1), (1, 1)},
}
RECEIVERSHIP_CREDIT = 200
# DB1's green city tiles for a double town, on the hex that is North Staffordshire's home: only NS lays them
# there, whether or not NS is in the game (docs/rules-1825.md, "Stoke's DB1 city tiles are North Staffordshire's")
RESERVED_LAYS: dict[tuple[str, str], str] = {("Q13", "887"): "NS", ("Q13", "888"): "NS"}


class TrackAndToken1825(LeaseTrain, TrackAndToken):
    """The shared track-and-station step; a corporation in receivership spends on credit (up to £200 a
    payment) what its run this turn repays, and is not offered a station bought on credit that its run
    cannot repay (docs/rules-1825.md, "Credit in receivership is repaid by this turn's run")."""

    def may_build(self, game: Game, corp: Corporation) -> bool:
        return not silent_receivership(game, corp)

    def extra_track_actions(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[str]:
        # the lease stays among the step's actions (as the reference's); its options are only the leases a run
        # repays (`special_buy_options`)
        assert isinstance(round_, OperatingRound1825)
        if in_receivership(corp) and round_.leased_train is None and leaseable_trains(game):
            return ["special_buy"]
        return []

    def buying_power(self, game: Game, corp: Corporation) -> int:
        return corp.cash + (RECEIVERSHIP_CREDIT if in_receivership(corp) else 0)

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
        assert isinstance(round_, OperatingRound1825)
        board = game.board
        keeper = RESERVED_LAYS.get((hex_id, result.new_tile))
        if keeper is not None and corp.sym != keeper:
            raise IllegalAction(f"only {keeper} may lay tile {result.new_tile} on {hex_id}", "reserved_tile")
        new = board.catalogue[result.new_tile]
        if in_receivership(corp):  # docs/rules-1825.md, "Credit in receivership is repaid by ..."
            check_spend(game, round_, corp, result.cost, "the terrain", (hex_id, new, rotation))
        if corp.kind == "minor" and not corp.tokens_placed and hex_id == corp.home:
            return
        h = board.hex(hex_id)
        if h.tile.preprinted or not any(n.is_stop for n in new.nodes):  # a junction (tile 60) is no station
            return
        trains = round_.route_trains(game, corp)
        if not trains:
            raise IllegalAction("cannot upgrade a city or town without a train", "upgrade_needs_train")
        # a train leased this turn is the one that measures the reach, whatever the corporation owns
        # (docs/rules-1825.md, "Upgrading a station needs a train that reaches it": "With a leased train")
        reach_nodes, reach_cities = self.train_reach([round_.leased_train] if round_.leased_train else trains)
        if reach_nodes >= 99:
            return
        known = board.position_memo()  # what the board before the lay tells every lay tried on it
        with board.trial_lay(hex_id, new, rotation):
            ok = bool(reach_nodes) and reaches(board, corp.sym, hex_id, reach_nodes, known=known) or \
                bool(reach_cities) and reaches(board, corp.sym, hex_id, reach_cities, cities_only=True, known=known)
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
        self.pay_or_borrow(game, round_, corp, cost, "the terrain")

    def pay_for_token(self, game: Game, round_: OperatingRound, corp: Corporation, price: int) -> None:
        self.pay_or_borrow(game, round_, corp, price, "the station")

    @staticmethod
    def pay_or_borrow(game: Game, round_: OperatingRound, corp: Corporation, cost: int, what: str) -> None:
        """Pay from the treasury; in receivership what it lacks is spent on credit the run repays."""
        assert isinstance(round_, OperatingRound1825)
        if cost <= corp.cash:
            game.pay(corp, None, cost)
            return
        if not in_receivership(corp) or cost > corp.cash + RECEIVERSHIP_CREDIT:
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
            round_.place_home_token(game, corp, at_round_start=False)
        for ability in list(corp.abilities):
            if ability.get("type") == "blocks_hexes" and hex_id in ability.get("hexes", []):
                corp.abilities.remove(ability)
                game.board.remove_blocker(corp.sym)

    def offer_place_token(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        return token_options(game, round_, game.corporations[entity], super().offer_place_token(game, round_, entity))

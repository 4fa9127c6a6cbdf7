"""An operating turn up to its run: private income, operating order, home stations, tile lays and stations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.operating import OperatingRound
from ...errors import IllegalAction
from ...model import Corporation

if TYPE_CHECKING:
    from ...game import Game


class TrackRules:
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

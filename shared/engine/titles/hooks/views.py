"""How the title names its entities for people, and what its state digest holds beyond the shared fields."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...model import Corporation, Player

if TYPE_CHECKING:
    from ...protocol import Game


class ViewRules:
    def short_name(self, game: Game, corp: Corporation) -> str:
        """A corporation as messages name it (18xx.games' `name`): its symbol; a title whose corporations
        combine (1828 Systems) names the combination after its first member."""
        return corp.sym

    def entity_colors(self, game: Game) -> dict[str, dict[str, str | None]]:
        """Colours of corporations a title adds beyond its board data (1833NE's Takeover game), for views."""
        return {}

    def special_buy_phrase(self, action: dict[str, Any]) -> str | None:
        """The log's words for this title's `special_buy` (a lease, a marker), or None for the generic ones."""
        return None

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

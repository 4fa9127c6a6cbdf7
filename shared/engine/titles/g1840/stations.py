"""1840's station rules beside the shared token checks: home stations on reserved two-city hexes, stations
lifted by the first track on a hex of several cities, and the cities a reserved hex keeps free (rules
digest, *Home station*)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import IllegalAction

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Corporation


def home_spots(game: Game, corp: Corporation) -> list[tuple[str, int]]:
    """(city, slot) pairs the line's home station may take now."""
    return station_spots(game, corp, str(corp.home))


def station_spots(game: Game, corp: Corporation, hex_id: str) -> list[tuple[str, int]]:
    """(city, slot) pairs on `hex_id` where `corp` could put a station, connection aside."""
    board = game.board
    h = board.hex(hex_id)
    out = []
    for ci, slots in enumerate(h.tokens):
        city = board.city_id(h.id, ci)
        for si in range(len(slots)):
            try:
                board.check_token(corp.sym, city, si, must_connect=False)
            except IllegalAction:
                continue
            out.append((city, si))
    return out


def check_hex_reservation(game: Game, corp: Corporation, hex_id: str) -> None:
    """A hex reserved as a whole (D18 for lines 1 and 2, E17 for line 3) keeps a free city for every line
    still in the game that reserved it and has no station there yet (rules-1840 *Home station*)."""
    h = game.board.hex(hex_id)
    present = {owner for slots in h.tokens for owner in slots}
    waiting = [sym for sym in h.tile_reservations if sym != corp.sym and sym not in present
               and sym in game.corporations and not game.corporations[sym].closed]
    free = sum(1 for slots in h.tokens for owner in slots if owner is None)
    if waiting and free <= len(waiting):
        raise IllegalAction(f"{hex_id} keeps its free cities for line(s) {', '.join(waiting)}", "reserved")


def home_is_a_choice(game: Game, corp: Corporation) -> bool:
    """A line whose start stop is a two-city hex reserved for it as a whole (D18, E17: the board data's
    tile-level reservations) chooses the city once the hex has track; on the bare hex the station goes on
    the first free city by itself."""
    home = corp.home
    if not isinstance(home, str):
        return False
    h = game.board.hex(home)
    return corp.sym in h.tile_reservations and bool(h.tile.rpaths[h.rotation])


def lifted_stations(game: Game, hex_id: str) -> list[str]:
    """Whose stations a lay on `hex_id` lifts: all of them, in slot order, when the hex has several cities
    and no track yet."""
    h = game.board.hex(hex_id)
    if h.tile.rpaths[h.rotation] or len(h.tile.cities) < 2:
        return []
    return [owner for slots in h.tokens for owner in slots if owner is not None]


def lifted_entry(pending: str) -> tuple[str, str] | None:
    """(owner, hex) of a pending placement of another company's lifted station."""
    if not pending.startswith("lifted:"):
        return None
    _, owner, hex_id = pending.split(":")
    return owner, hex_id


def place_line_home(game: Game, corp: Corporation) -> None:
    """A line's first station goes on its home stop when it first operates (free)."""
    home = corp.home
    if not isinstance(home, str):
        return
    h = game.board.hex(home)
    for ci, slots in enumerate(h.tokens):
        reserved = h.reservations[ci] if ci < len(h.reservations) else []
        for si, owner in enumerate(slots):
            if owner is None and (si >= len(reserved) or reserved[si] in (None, corp.sym)):
                game.board.place_token(corp.sym, game.board.city_id(home, ci), si)
                corp.tokens_placed += 1
                return

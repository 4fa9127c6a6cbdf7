"""Systems: two corporations merged into one, with one share price, treasury and set of stations, but two
train fleets ("shells", one per former corporation). How a merger forms one is the Merger step's
(`steps/merger.py`, with the share exchange in `exchange.py`); this module creates the System and answers
what it is once it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...model import Corporation
from .coal import sync as coal_sync
from .state import state

if TYPE_CHECKING:
    from ...game import Game

SYSTEM_FLOAT_PERCENT = 60


def sold_percent(game: Game, system: Corporation) -> int:
    """How much of a System is out of its treasury; the share its president gave to the treasury counts as
    out (stock_market index 333: 50% in the treasury before the gift, unfloated; gen1828_3p_136186 index
    184: 50% with the gift, floated)."""
    unbuyable = state(game).unbuyable
    given = sum(s.percent for s in system.shares if s.owner == system.sym and s.id in unbuyable)
    return 100 - system.treasury_percent + given


def update_float(game: Game, system: Corporation) -> bool:
    """A System floats once 60% is out of its treasury; returns whether it floated just now."""
    if not system.floated and sold_percent(game, system) >= SYSTEM_FLOAT_PERCENT:
        system.floated = True
        return True
    return False


# -- creating a System -------------------------------------------------------------------------------------
def create_system(game: Game, first: Corporation, second: Corporation) -> str:
    """The System takes over both corporations' cash, stations, privates and trains (in two shells)."""
    sym = f"{first.sym}-{second.sym}"
    raw = next(c for c in game.defn.data.setup["corporations"] if c["sym"] == first.sym)
    system = game._make_corporation(dict(raw, sym=sym, abilities=[]))
    system.capitalization = "none"
    system.float_percent = SYSTEM_FLOAT_PERCENT
    homes = [h for c in (first, second) for h in (c.home if isinstance(c.home, list) else [c.home])]
    system.home = homes
    used = first.tokens_placed + second.tokens_placed
    unused = sorted(first.token_prices[first.tokens_placed:] + second.token_prices[second.tokens_placed:])
    system.token_prices = [0] * used + unused
    system.tokens_placed = used
    shells: dict[str, list[str]] = {}
    for corp in (first, second):
        game.pay(corp, system, corp.cash)
        for sym_ in corp.companies:
            game.companies[sym_].owner = sym
            system.companies.append(sym_)
        corp.companies = []
        shells[corp.sym] = []
        for train in list(corp.trains):
            corp.trains.remove(train)
            train.owner = sym
            system.trains.append(train)
            shells[corp.sym].append(train.id)
        corp.tokens_placed = 0
        corp.token_prices = []
        _retoken(game, corp.sym, sym)
        loose = state(game).loose_homes
        for hex_id, owner in list(loose.items()):
            if owner == corp.sym:
                loose[hex_id] = sym
    if system.trains:  # the System has a train: both partners' founding privates close
        game.rules.close_at_first_train(game, [first.sym, second.sym])  # type: ignore[attr-defined]
    _block_doubled_cities(game, system)
    coal = state(game).coal
    if first.sym in coal or second.sym in coal:
        had = [c for c in (first.sym, second.sym) if c in coal]
        for c in had:
            coal.remove(c)
        coal.append(sym)
        if len(had) > 1:
            state(game).coal_on_field += 1
        coal_sync(game)
    state(game).systems[sym] = [first.sym, second.sym]
    state(game).shells[sym] = shells
    cell = system_cell(game, first, second)
    system.share_cell = cell
    system.par_price = game.market.cell(cell).price
    system.ipoed = True
    game.corporations[sym] = system
    game.rules.set_cell(game, system, cell)  # type: ignore[attr-defined]
    return sym


def _retoken(game: Game, old: str, new: str) -> None:
    # a merger tried on a copy (the offers) renames on the whole map: only the lists naming `old` are rewritten
    for h in game.board.hexes.values():
        for slots in h.tokens:
            if old in slots:
                for i, entity in enumerate(slots):
                    if entity == old:
                        slots[i] = new
        for slots in h.reservations:
            if old in slots:
                for i, entity in enumerate(slots):
                    if entity == old:
                        slots[i] = new
        if old in h.tile_reservations:
            h.tile_reservations[:] = [new if entity == old else entity for entity in h.tile_reservations]
    game.board.forget_reach()


def _block_doubled_cities(game: Game, system: Corporation) -> None:
    """Two System stations in one city: one gives way to a blocking token."""
    for h in game.board.hexes.values():
        for slots in h.tokens:
            where = [i for i, e in enumerate(slots) if e == system.sym]
            for i in where[1:]:
                slots[i] = "B"
                system.tokens_placed -= 1
    game.board.forget_reach()


def system_cell(game: Game, a: Corporation, b: Corporation) -> tuple[int, int]:
    """The higher price plus half the lower, placed in the leftmost of the two columns (or along the top
    row when even its top cell is cheaper)."""
    assert a.share_cell is not None and b.share_cell is not None
    prices = sorted([game.share_price(a) or 0, game.share_price(b) or 0])
    column = min(a.share_cell[1], b.share_cell[1])
    value = prices[1] + prices[0] // 2
    grid = game.market.grid
    top = grid[0]
    if top[column] is not None and top[column].price < value:
        i = len(top) - 1
        while top[i] is None or top[i].price > value:
            i -= 1
        return (0, i)
    i = 0
    while grid[i][column] is not None and grid[i][column].price > value:
        i += 1
    return (i, column)


# -- operating a System ------------------------------------------------------------------------------------
def is_system(game: Game, corp: Corporation) -> bool:
    return corp.sym in state(game).systems


def shells(game: Game, corp: Corporation) -> dict[str, list[Any]]:
    """The System's trains by shell (former corporation), in purchase order."""
    owned = {t.id: t for t in corp.trains if not t.rusted}
    return {name: [owned[i] for i in ids if i in owned]
            for name, ids in state(game).shells[corp.sym].items()}


def add_to_shell(game: Game, corp: Corporation, shell: str, train_id: str) -> None:
    """Put the train in `shell`, and only there: a train that left the System and came back, or moved
    between shells, is never counted twice."""
    table = state(game).shells[corp.sym]
    for ids in table.values():
        while train_id in ids:
            ids.remove(train_id)
    table[shell].append(train_id)


def shells_with_room(game: Game, corp: Corporation) -> list[str]:
    limit = game.train_limit(corp)
    return [name for name, trains in shells(game, corp).items() if len(trains) < limit]


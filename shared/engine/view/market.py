"""The stock market as a client draws it: the grid of cells (price, kinds) and which corporation is where.

Markers are stacked in the order the corporations reached their cell is not tracked by the engine, so they
are listed in the game's corporation order; that is the order 18xx players expect when nothing else is known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.market import StockMarket

if TYPE_CHECKING:
    from ..game import Game


def market_grid(market: StockMarket, type_colors: dict[str, str] | None = None) -> list[list[dict[str, Any] | None]]:
    """The cells without markers: fixed for a title's configuration, so a caller may build it once."""
    colors = type_colors or {}
    rows: list[list[dict[str, Any] | None]] = []
    for row in market.grid:
        out: list[dict[str, Any] | None] = []
        for cell in row:
            if cell is None:
                out.append(None)
                continue
            kinds = sorted(cell.types)
            color = next((colors[k] for k in kinds if k in colors), None)
            out.append({"id": cell.id, "price": cell.price, "row": cell.row, "column": cell.column,
                        "types": kinds, "color": color, "corporations": [],
                        "par": any(k == "par" or k.startswith("par_") for k in kinds)})
        rows.append(out)
    return rows


def with_markers(grid: list[list[dict[str, Any] | None]], corporations: dict[str, Any]) -> dict[str, Any]:
    """The market with each corporation's marker on its cell (`share_coords` of a state digest). `grid` is
    not changed: only the rows and cells that get a marker are copied."""
    rows = list(grid)
    copied: set[int] = set()
    positions: dict[str, list[int]] = {}
    for sym, corp in (corporations or {}).items():
        coords = corp.get("share_coords") if isinstance(corp, dict) else None
        if not coords or corp.get("closed"):
            continue
        r, c = int(coords[0]), int(coords[1])
        if not (0 <= r < len(rows) and 0 <= c < len(rows[r]) and rows[r][c] is not None):
            continue
        if r not in copied:
            rows[r] = [None if cell is None else {**cell, "corporations": list(cell["corporations"])}
                       for cell in rows[r]]
            copied.add(r)
        rows[r][c]["corporations"].append(sym)  # type: ignore[index]
        positions[sym] = [r, c]
    par_prices = sorted({cell["price"] for row in grid for cell in row if cell is not None and cell["par"]},
                        reverse=True)
    return {"rows": rows, "positions": positions, "par_prices": par_prices}


def market_from_digest(market: StockMarket, corporations: dict[str, Any],
                       type_colors: dict[str, str] | None = None) -> dict[str, Any]:
    """The market with markers placed from a state digest's corporations (`share_coords`): the state
    endpoint reads the stored digest and never needs the live engine for this."""
    return {"shape": market.shape, **with_markers(market_grid(market, type_colors), corporations)}


def market_view(game: Game) -> dict[str, Any]:
    """The market of a live game."""
    corporations = {sym: {"share_coords": list(c.share_cell) if c.share_cell else None, "closed": c.closed}
                    for sym, c in game.corporations.items()}
    colors = game.defn.data.setup.get("market", {}).get("type_colors") or {}
    return market_from_digest(game.market, corporations, colors)

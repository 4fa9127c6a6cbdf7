"""The stock market as a client draws it: the grid of cells (price, kinds) and which corporation is where.

Markers are stacked in the order the corporations reached their cell is not tracked by the engine, so they
are listed in the game's corporation order; that is the order 18xx players expect when nothing else is known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.market import StockMarket

if TYPE_CHECKING:
    from ..game import Game


def _grid(market: StockMarket, type_colors: dict[str, str]) -> list[list[dict[str, Any] | None]]:
    rows: list[list[dict[str, Any] | None]] = []
    for row in market.grid:
        out: list[dict[str, Any] | None] = []
        for cell in row:
            if cell is None:
                out.append(None)
                continue
            kinds = sorted(cell.types)
            color = next((type_colors[k] for k in kinds if k in type_colors), None)
            out.append({"id": cell.id, "price": cell.price, "row": cell.row, "column": cell.column,
                        "types": kinds, "color": color, "corporations": [],
                        "par": any(k == "par" or k.startswith("par_") for k in kinds)})
        rows.append(out)
    return rows


def market_from_digest(market: StockMarket, corporations: dict[str, Any],
                       type_colors: dict[str, str] | None = None) -> dict[str, Any]:
    """The market with markers placed from a state digest's corporations (`share_coords`): the state
    endpoint reads the stored digest and never needs the live engine for this."""
    rows = _grid(market, type_colors or {})
    positions: dict[str, list[int]] = {}
    for sym, corp in (corporations or {}).items():
        coords = corp.get("share_coords") if isinstance(corp, dict) else None
        if not coords or corp.get("closed"):
            continue
        r, c = int(coords[0]), int(coords[1])
        if 0 <= r < len(rows) and 0 <= c < len(rows[r]) and rows[r][c] is not None:
            rows[r][c]["corporations"].append(sym)  # type: ignore[index]
            positions[sym] = [r, c]
    par_prices = sorted({cell.price for row in market.grid for cell in row if cell is not None
                         and any(t == "par" or t.startswith("par_") for t in cell.types)}, reverse=True)
    return {"shape": market.shape, "rows": rows, "positions": positions, "par_prices": par_prices}


def market_view(game: Game) -> dict[str, Any]:
    """The market of a live game."""
    corporations = {sym: {"share_coords": list(c.share_cell) if c.share_cell else None, "closed": c.closed}
                    for sym, c in game.corporations.items()}
    colors = game.defn.data.setup.get("market", {}).get("type_colors") or {}
    return market_from_digest(game.market, corporations, colors)

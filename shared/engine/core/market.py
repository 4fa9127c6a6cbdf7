"""Stock markets, 1-D and 2-D: cells with prices and types, and the moves titles ask for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import MalformedAction


@dataclass(frozen=True)
class Cell:
    price: int
    row: int
    column: int
    types: frozenset[str]

    @property
    def id(self) -> str:
        return f"{self.price},{self.row},{self.column}"


class StockMarket:
    """Immutable grid; corporations keep their own (row, column) so the state stays plain data."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.shape: str = spec["shape"]
        self.grid: list[list[Cell | None]] = [
            [
                None if raw is None else Cell(raw["price"], r, c, frozenset(raw.get("types", [])))
                for c, raw in enumerate(row)
            ]
            for r, row in enumerate(spec["rows"])
        ]
        self.by_id = {cell.id: cell for row in self.grid for cell in row if cell is not None}

    def coords_of_type(self, kind: str) -> frozenset[tuple[int, int]]:
        """The (row, column) of every cell of a type (the grid never changes: found once, asked after
        every action by the game-end checks)."""
        known: dict[str, frozenset[tuple[int, int]]] = self.__dict__.setdefault("_coords_of_type", {})
        found = known.get(kind)
        if found is None:
            found = known[kind] = frozenset((c.row, c.column) for row in self.grid for c in row
                                            if c is not None and kind in c.types)
        return found

    def cell(self, coords: tuple[int, int]) -> Cell:
        cell = self.grid[coords[0]][coords[1]]
        assert cell is not None
        return cell

    def parse_cell(self, cell_id: Any) -> Cell:
        if not isinstance(cell_id, str) or cell_id not in self.by_id:
            raise MalformedAction(f"unknown stock-market cell {cell_id!r}", "market_cell")
        return self.by_id[cell_id]

    def _exists(self, row: int, column: int) -> bool:
        return 0 <= row < len(self.grid) and 0 <= column < len(self.grid[row]) and self.grid[row][column] is not None

    def right(self, coords: tuple[int, int], times: int = 1) -> tuple[int, int]:
        row, column = coords
        for _ in range(times):
            if self._exists(row, column + 1):
                column += 1
            elif self.shape == "2D" and self._exists(row - 1, column):
                row -= 1
        return row, column

    def left(self, coords: tuple[int, int], times: int = 1) -> tuple[int, int]:
        row, column = coords
        for _ in range(times):
            if self._exists(row, column - 1):
                column -= 1
            elif self.shape == "2D" and self._exists(row + 1, column):
                row += 1
        return row, column

    def up(self, coords: tuple[int, int], times: int = 1) -> tuple[int, int]:
        if self.shape == "1D":
            return self.right(coords, times)
        row, column = coords
        for _ in range(times):
            if self._exists(row - 1, column):
                row -= 1
        return row, column

    def down(self, coords: tuple[int, int], times: int = 1) -> tuple[int, int]:
        if self.shape == "1D":
            return self.left(coords, times)
        row, column = coords
        for _ in range(times):
            if self._exists(row + 1, column):
                row += 1
        return row, column

    def par_cells(self) -> list[Cell]:
        return [c for row in self.grid for c in row if c is not None and "par" in c.types]

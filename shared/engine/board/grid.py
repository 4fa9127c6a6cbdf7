"""The map's state as the board's walks read it: a hex in play (`HexState`) and what one entity reaches
(`Reach`). Below the board and its walks (`graph`, `routes`, `stations`), which all name them, so none of
those imports `board.py`."""

from __future__ import annotations

from dataclasses import dataclass, field

from .tiles import TileDef

NodeRef = tuple[str, int]  # (hex id, node code)
PathRef = tuple[str, int]  # (hex id, path index in the current rotation table)


@dataclass
class Reach:
    """What one entity can reach. `edges[hex]` = edges of that hex its track touches (lay legality)."""

    edges: dict[str, set[int]] = field(default_factory=dict)
    nodes: set[NodeRef] = field(default_factory=set)
    paths: set[PathRef] = field(default_factory=set)
    token_nodes: set[NodeRef] = field(default_factory=set)
    # what trial lays read off the same board (`graph.lay_facts`), worked out when one first asks; kept with
    # the reach, which is dropped whenever a tile or token it could depend on changes
    lays: LayFacts | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class LayFacts:
    """What decides most trial lays of one entity without a walk on the trial board (`graph.lay_reached`)."""

    clean: dict[str, int]  # hex -> sides a clean line enters it by, never in it before (`graph.clean_entries`)
    plain: frozenset[tuple[str, int, int]]  # every arrival of the walk with nothing barred (`graph._walk`)
    start_hexes: frozenset[str]  # hexes whose cities may start a walk (stations, homes)
    virtual_hexes: frozenset[str]  # hexes of stops run from as if stations (1833NE)


@dataclass
class HexState:
    id: str
    x: int
    y: int
    neighbors: dict[int, str]
    preprinted: TileDef
    tile: TileDef
    rotation: int = 0
    copy: int = 0
    tokens: list[list[str | None]] = field(default_factory=list)
    reservations: list[list[str | None]] = field(default_factory=list)
    tile_reservations: list[str] = field(default_factory=list)
    blockers: list[str] = field(default_factory=list)
    location: str | None = None
    # every hex beside this one, across impassable sides and into impassable-coloured hexes too (None: the
    # same as `neighbors`); a tile laid on an impassable-coloured hex opens some of them (`Board.lay`)
    all_neighbors: dict[int, str] | None = None

    def clone(self) -> HexState:
        return self.with_state(self.tile, self.rotation, self.copy, [list(s) for s in self.tokens],
                               [list(s) for s in self.reservations], list(self.tile_reservations),
                               list(self.blockers))

    def with_state(self, tile: TileDef, rotation: int, copy: int, tokens: list[list[str | None]],
                   reservations: list[list[str | None]], tile_reservations: list[str],
                   blockers: list[str]) -> HexState:
        """This hex's fixed facts with the given changing ones (a plain constructor call: clones of the
        whole board happen at every checkpoint and every trial copy, so they must be cheap)."""
        return HexState(self.id, self.x, self.y, self.neighbors, self.preprinted, tile, rotation, copy, tokens,
                        reservations, tile_reservations, blockers, self.location, self.all_neighbors)

"""The plain objects of an 18xx game: players, corporations, certificates, privates, trains.

Owners are stored as plain values (a player id, a corporation symbol, POOL, BANK) rather than object
references so that a state pickles small and clones fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

POOL = "pool"  # the open market (bank pool)
Owner = int | str | None


@dataclass
class TitleState:
    """A title's own part of the game state (pending abilities, markers, flags of its rounds).

    Each title subclasses it as a dataclass in its own package and names it in `TitleRules.state_class`;
    the game holds one instance as `game.title_state` and pickles it with everything else, so a title's
    facts are typed fields the reader can find, not string keys in a shared dict. The base holds nothing.
    """


@dataclass
class Share:
    """One certificate: `<corp>_<index>`; index 0 is the president's certificate."""

    corporation: str
    index: int
    percent: int
    owner: Owner
    president: bool = False
    stamp: int = 0  # when it reached its owner: owners hand over shares in the order they got them

    @property
    def id(self) -> str:
        return f"{self.corporation}_{self.index}"


@dataclass
class Player:
    id: int
    name: str
    cash: int = 0
    companies: list[str] = field(default_factory=list)
    bankrupt: bool = False
    programs: list[dict[str, Any]] = field(default_factory=list)
    passed: bool = False


@dataclass
class Company:
    """A private company: fixed income, a face value, sometimes abilities."""

    sym: str
    name: str
    value: int
    revenue: int
    min_price: int
    max_price: int
    abilities: list[dict[str, Any]] = field(default_factory=list)
    owner: Owner = None
    closed: bool = False


@dataclass
class Train:
    id: str  # "<name>-<copy>"
    name: str
    distance: Any
    price: int
    rusts_on: str | None = None
    obsolete_on: str | None = None
    available_on: str | None = None
    multiplier: int = 1
    owner: Owner = None  # corporation symbol, or None while in the depot
    rusted: bool = False
    obsolete: bool = False
    reserved: bool = False
    operated: bool = False
    events: list[str] = field(default_factory=list)


@dataclass
class Corporation:
    sym: str
    name: str
    kind: str  # "major" / "minor" as the title classifies it
    home: Any
    home_city_index: int | None
    token_prices: list[int]
    float_percent: int
    shares: list[Share]
    capitalization: str = "full"
    max_ownership_percent: int = 100
    fixed_par: int | None = None
    band: int | None = None
    required_train: str | None = None
    abilities: list[dict[str, Any]] = field(default_factory=list)
    cash: int = 0
    par_price: int | None = None
    share_cell: tuple[int, int] | None = None
    ipoed: bool = False
    floated: bool = False
    closed: bool = False
    operated: bool = False
    trains: list[Train] = field(default_factory=list)
    companies: list[str] = field(default_factory=list)
    tokens_placed: int = 0  # how many of its tokens are on the map (home included)
    transfers: int = 0

    def give(self, share: Share, owner: Owner) -> None:
        self.transfers += 1
        share.owner = owner
        share.stamp = self.transfers

    def percent_owned_by(self, owner: Owner) -> int:
        return sum(s.percent for s in self.shares if s.owner == owner)

    @property
    def treasury_percent(self) -> int:
        return self.percent_owned_by(self.sym)

    @property
    def president_share(self) -> Share:
        return self.shares[0]

    @property
    def president(self) -> Owner:
        """The player holding the director's certificate. A company whose certificates are all ordinary
        (1840's Stadtbahnen: no director) has none, whoever holds its first certificate."""
        first = self.shares[0]
        return first.owner if first.president and isinstance(first.owner, int) else None

    def next_token_price(self) -> int | None:
        if self.tokens_placed >= len(self.token_prices):
            return None
        return self.token_prices[self.tokens_placed]

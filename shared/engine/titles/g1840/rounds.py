"""The rounds of 1840's fixed round bar, one module each (this index keeps the old import path, which
stored snapshots name).

- `auction.py`: the private auction and the seat choice (rules digest *Setup*)
- `stock.py`: the stock round (its step: `steps/stock.py`)
- `company.py`: the company round (dividends, Stadtbahn runs, tram purchases)
- `acquisition.py`: the line auction that ends a company round
- `line.py`: the line rounds (tile, Stadtbahn tile, station, run), with `track.py` (orange frames,
  Stadtbahn chains, centre lays) and `stations.py` (home stations, lifted stations, reserved hexes)
- `trams.py`: a major's tram turn, shared by the company and acquisition rounds

All but the stock round are flow rounds (`flow.py`; docs/architecture.md, *Flow rounds*).
"""

from __future__ import annotations

from .acquisition import AcquisitionRound
from .auction import AuctionRound, ChoicesRound
from .company import CompanyRound
from .flow import FlowRound
from .line import LineRound
from .steps.stock import BuySellParShares1840
from .stock import StockRound1840

__all__ = ["AcquisitionRound", "AuctionRound", "BuySellParShares1840", "ChoicesRound", "CompanyRound", "FlowRound",
           "LineRound", "StockRound1840"]

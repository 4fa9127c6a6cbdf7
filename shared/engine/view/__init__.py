"""What a client needs to draw a game: the map (`map_view`) and the stock market (`market_view`).

Pure functions of the engine state (no I/O): the gateway serves them as JSON and renders its page from them.
"""

from .board import map_view
from .market import market_from_digest, market_view

__all__ = ["map_view", "market_from_digest", "market_view"]

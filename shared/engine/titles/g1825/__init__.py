"""1825: the Units (1, 2, 3), the regionals and the kits, composed from the board data; the rules that
differ from the shared core (receivership credit, the director's sale in the train step, reach through
cities another corporation fills) live in this package's modules."""

from .rules import Rules1825

__all__ = ["Rules1825"]

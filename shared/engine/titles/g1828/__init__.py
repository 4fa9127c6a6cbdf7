"""1828.Games: a waterfall auction with founding privates, full capitalisation at 60%, par prices opened
phase by phase, grey market cells that lift the 60% limit, coal markers for the Virginia coalfields,
the Cobourg & Peterborough minor, and Systems formed by merging two corporations.

The title composes the shared core: it adds an auction round, a stock-round step with 1828's buying
rules and a handful of operating-round hooks. Each rule sits in a small named method.
"""

from .rules import Rules1828

__all__ = ["Rules1828"]

"""1833NE: Railroading in New England, Standard and Takeover game, as a composition of the shared core.

Reads like the rules digest (/work/shared/rules/1833NE.md): 1846-style incremental capitalisation,
a linear market moved by dividends and presidents' sales, double-sided train cards that become obsolete,
privates bought by corporations, bonuses and ferries, the emergency train purchase, and (optionally)
takeovers. Gaps the digest leaves open are filled in `constants.py` and listed in docs/1833NE.md.
"""

from .rules import Rules1833NE

__all__ = ["Rules1833NE"]

"""1840: Vienna Tramways as a composition of the shared core plus its own rounds.

Two tiers: players own Tram Companies (majors); majors own up to three Lines (minors) won in auctions.
Lines lay track, place stations and run trams into a revenue box; in the company round each major
collects its lines' boxes and pays a chosen multiple of 10. The four Stadtbahn companies run on their
own narrow track automatically and always pay out. The game follows a fixed round bar and ends after
company round 6. The rounds have a module each (`rounds.py` lists them); `rules.py` holds the set-up and
the rule hooks and composes the rounds; `state.py` holds the title's facts (`State1840`).
"""

from __future__ import annotations

from .rules import Rules1840

__all__ = ["Rules1840"]

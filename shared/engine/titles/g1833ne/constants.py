"""1833NE numbers that are not in the board data (or that the rules digest corrects).

Every value here is either quoted from the rules digest (/work/shared/rules/1833NE.md) or a gap we filled;
docs/1833NE.md lists which is which. Keeping them in one module makes a later correction a one-line change.
"""

from __future__ import annotations

from typing import Any

# -- money and certificates ---------------------------------------------------------------------------
LAUNCH_MULTIPLIER = 2  # the president's 20% certificate pays the treasury twice the start price
MIN_START, MAX_START = 40, 150
MAX_HOLDING = 60  # percent, no exceptions
TILE_COST = 20  # every lay or upgrade, terrain on top (digest: "at least $20, plus ... costs")
STATION_PRICE = 80  # the one station beyond home
WORCESTER_PRICE = 40  # B&W's station in Worcester
EMERGENCY_ISSUE_FLOOR = 20  # no emergency issue that would drop the price below this
LAST_TRAIN_PRICE = 1000  # the 7+3 (the data says 950; the digest wins)
P6_BANK_FEE = 40  # a corporation buying P6 pays this to the bank on top of the price
TRIPLE_MOVE_MIN_PRICE = 165

# -- phases -----------------------------------------------------------------------------------------
PHASES = ("I", "II", "III", "IV", "V")
# card (first face name) -> phase in which it becomes obsolete / is removed
OBSOLETE_IN = {"2": "III", "3/5": "IV", "4/7": "V"}
REMOVED_IN = {"2": "IV", "3/5": "V"}
# Takeover game train limits by phase (standard limits come from the data)
TAKEOVER_TRAIN_LIMIT = {"I": 3, "II": 3, "III": 2, "IV": 1, "V": 1}

# -- privates ---------------------------------------------------------------------------------------
P1, P2, P3, P4, P5, P6 = "P1", "P2", "P3", "P4", "P5", "P6"
PRIVATES_REMOVED_IN_III = (P1, P2)  # plus every private still held by a player
PRIVATES_FLIPPED_IN_III = (P3, P4, P5, P6)  # no more income, ability kept
PRIVATES_REMOVED_IN_IV = (P3, P4, P5)
CORP_BUY_PHASES = ("I", "II")
P3_TILES = {"C4": ("3", "4", "58"), "C6": ("7", "8", "9")}
P4_HEX, P6_HEX = "A6", "A12"
MONTREAL, BOSTON, PORTLAND, WORCESTER, SHERBROOKE, LOWELL = "B3", "G22", "I14", "E22", "F5", "G20"

# -- route bonuses (gap: only Boston-Montreal is quoted in the digest) --------------------------------
# (place A, place B) -> bonus by phase; a place is a hex or a set of hexes (off-board destinations)
NEW_YORK, ALBANY, TROY = "A28", "A20", "B17"
BONUSES: list[dict[str, Any]] = [
    {"name": "Boston-Montreal", "a": [BOSTON], "b": [MONTREAL],
     "value": {"I": 150, "II": 150, "III": 200, "IV": 200, "V": 100}},
    {"name": "Montreal-Portland", "a": [MONTREAL], "b": [PORTLAND],
     "value": {"I": 100, "II": 100, "III": 150, "IV": 150, "V": 80}},
    {"name": "Boston-Portland", "a": [BOSTON], "b": [PORTLAND],
     "value": {"I": 50, "II": 50, "III": 80, "IV": 80, "V": 60}},
    {"name": "Boston-New York", "a": [BOSTON], "b": [NEW_YORK],
     "value": {"I": 0, "II": 0, "III": 60, "IV": 100, "V": 150}},
    {"name": "Boston-Albany/Troy", "a": [BOSTON], "b": [ALBANY, TROY],
     "value": {"I": 60, "II": 60, "III": 80, "IV": 60, "V": 40}},
]
P4_DOUBLES_IN = ("I", "II", "III")

# -- ferries (gap: the digest gives five ferries at $40, a moving "New" bonus, removal in phase IV) -------
FERRY_PRICE = 40
FERRY_PHASES = ("I", "II", "III")
# ferry id -> (the town/city hex its route must reach, value added to such a route)
FERRIES: dict[str, tuple[str, int]] = {
    "F1": ("C26", 20),  # New Haven - Long Island
    "F2": ("E26", 20),  # Norwich - New London
    "F3": ("H25", 20),  # New Bedford - the islands
    "F4": ("I26", 30),  # Hyannis - Nantucket
    "F5": ("I14", 30),  # Portland - Nova Scotia
}
NEW_FERRY_BONUS = 20

# -- Takeover game ------------------------------------------------------------------------------------
# the five variable-start corporations (gap: neither the digest nor the Dutch seed names them; placeholders)
VARIABLE_CORPORATIONS = [
    ("NYNH", "New York, New Haven & Hartford"),
    ("B&M", "Boston & Maine"),
    ("MEC", "Maine Central"),
    ("CONN", "Connecticut River"),
    ("P&W", "Providence & Worcester"),
]
VARIABLE_HOME_CHEAP = 80  # grey hex, or a hex without track
VARIABLE_HOME_DEAR = 120  # otherwise, and start price at least $60
VARIABLE_DEAR_MIN_START = 60
TAKEOVER_MIN_6_9_CARDS = 3  # takeovers remove a 6/9 card while more than this many are left

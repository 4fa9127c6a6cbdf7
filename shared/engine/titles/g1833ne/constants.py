"""1833NE numbers the Dutch seed gives that the board data lacks or gets wrong (the seed governs 1833NE).

Only seed values live here. What the seed does not give (bonus table, ferries, the "New"/"Last" bonus, the
Takeover corporations) is data: shared/engine/data/games/1833NE/tables.json, read by `tables.py`.
"""

from __future__ import annotations

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
P3_MONTREAL_HEX = "C4"  # of P3's two lays (hexes and tiles: board data), this one must join Montreal
P4_HEX, P6_HEX = "A6", "A12"
MONTREAL, BOSTON, PORTLAND, WORCESTER, SHERBROOKE, LOWELL = "B3", "G22", "I14", "E22", "F5", "G20"

# -- route bonuses: the table is data (tables.json); P4 doubles them in these phases ----------------------
P4_DOUBLES_IN = ("I", "II", "III")

# -- Takeover game ------------------------------------------------------------------------------------
VARIABLE_HOME_CHEAP = 80  # grey hex, or a hex without track
VARIABLE_HOME_DEAR = 120  # otherwise, and start price at least $60
VARIABLE_DEAR_MIN_START = 60

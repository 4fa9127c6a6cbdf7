"""Does `legal-actions` offer every move players actually made? The measuring half of
`test_legal_coverage.py`, also runnable by hand: `python tests/engine/legal_coverage.py [TITLE ...]` prints the
table for every game (no sampling).

A recorded move is *covered* when some offered entry, asked for the player who controls the moving entity
just before the move, has the same type and entity and agrees on every field the move states: equal where
the entry states the field; a range (`min`, `step`, `max` beside a `price` or `amount`) holds the value; a
tile by its name (the copy number is the engine's to pick); shares by corporation and count. Routes are the
engine's suggestion, not a list of every run: a run is covered by any run entry of its entity.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from shared.conformance import discover  # noqa: E402
from shared.engine import GameSession  # noqa: E402
from shared.engine.records import RANGE_HINTS  # noqa: E402
from shared.engine.session import final_active_flags  # noqa: E402

CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance"
NOT_MOVES = frozenset({"undo", "redo", "message"})
# fields of a recorded move that are not the player's choice: bookkeeping, or what the engine works out
NOT_CHOSEN = frozenset({"id", "type", "entity", "entity_type", "created_at", "user", "auto_actions", "routes",
                        "original_id"})
RANGED = ("price", "amount", "until_condition")
# the move types every turn has: sampled (every `every`-th of them); every other move is checked
COMMON = frozenset({"pass", "buy_shares", "sell_shares", "buy_train", "lay_tile", "run_routes", "dividend"})
EVERY = 16


def share_key(shares: Any) -> Any:
    """Shares by corporation and count: which certificate of a kind is the engine's to pick."""
    if not isinstance(shares, list):
        return shares
    return sorted(Counter(str(s).rpartition("_")[0] for s in shares).items())


def tile_key(tile: Any) -> Any:
    return str(tile).rpartition("-")[0] if isinstance(tile, str) and "-" in tile else tile


def assignment_key(assignments: Any) -> Any:
    """Trams assigned to lines: a set of (tram, holder) pairs, in whatever order they are listed."""
    if not isinstance(assignments, list):
        return assignments
    return sorted((str(a.get("train")), str(a.get("corporation"))) for a in assignments if isinstance(a, dict))


def choice_key(choice: Any) -> Any:
    """An answer by its name: records of older servers name it bare ("IC"), today's labels add the amount
    ("IC ($78)"); the engine takes either."""
    return choice.split(" (")[0] if isinstance(choice, str) else choice


NORMAL: dict[str, Callable[[Any], Any]] = {"shares": share_key, "tile": tile_key, "assignments": assignment_key,
                                           "choice": choice_key}


def in_range(entry: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    low, high, step = entry.get("min"), entry.get("max"), entry.get("step") or 1
    if low is None:
        return False
    if value < low or (high is not None and value > high):
        return False
    return (value - low) % step == 0 or value == high


def covers(entry: dict[str, Any], move: dict[str, Any]) -> bool:
    if entry.get("type") != move.get("type") or entry.get("entity") != move.get("entity"):
        return False
    ranged = next((k for k in RANGED if k in entry), None) if "min" in entry else None
    for key, value in move.items():
        if key in NOT_CHOSEN or key in RANGE_HINTS:
            continue
        if key == "tokener" and value == move.get("entity") and key not in entry:
            continue  # the tokener is the entity unless a private lends its station
        if key == "variant" and key not in entry and value == tile_key(move.get("train")):
            continue  # a train of one variant: its variant is its name
        if key == ranged and in_range(entry, value):
            continue
        if key not in entry:
            return False
        normal = NORMAL.get(key, lambda v: v)
        if normal(entry[key]) != normal(value):
            return False
    return True


def describe(move: dict[str, Any], undone: bool = False) -> str:
    """The kind of a missing move, as the expected-gap table names it: its type, who moves (a private acting
    for its owner is a kind of its own), whether the player took it back later (a merger that fails, say)."""
    kind = str(move.get("type"))
    kind = f"{kind} by company" if move.get("entity_type") == "company" else kind
    return f"{kind}, undone later" if undone else kind


@dataclass
class Coverage:
    moves: int = 0
    covered: int = 0
    missing: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    #: moves not offered but named among the dead ends (`Game.dead_ends_of`: taken, but only an undo after)
    dead_ends: Counter[str] = field(default_factory=Counter)


def offered_to(session: GameSession, move: dict[str, Any]) -> list[dict[str, Any]]:
    """What legal-actions answers the player who controls the move's entity (no `?entity=`)."""
    game = session.game
    player = game.controller(move.get("entity"))
    if player is None:
        return game.legal_actions(move.get("entity"))
    return game.legal_actions_of(player)


def rare(action: dict[str, Any]) -> bool:
    """A move of a common type that is not an everyday one, always checked: a sale that names a president's
    certificate (its share number 0), which hands a presidency over."""
    return action["type"] == "sell_shares" and any(str(s).endswith("_0") for s in action.get("shares") or [])


def dead_ends_for(session: GameSession, move: dict[str, Any]) -> list[dict[str, Any]]:
    """The dead ends legal-actions names beside the offers for the player who controls the move's entity."""
    player = session.game.controller(move.get("entity"))
    return [] if player is None else session.game.dead_ends_of(player)


def measure(name: str, every: int = EVERY, kinds: Callable[[dict[str, Any], bool], str] = describe) -> Coverage:
    """Replay one game; before every recorded move (undo, redo, chat aside; of the COMMON types only every
    `every`-th, counted per type) ask what is offered. A move undone later that the engine would refuse
    live is no legal move and is not counted."""
    record = json.loads((CONFORMANCE / f"{name}.json").read_text(encoding="utf-8"))
    settings = record.get("settings") or {}
    session = GameSession.new(record["title"], record["players"], settings.get("seed") or 0,
                              settings.get("optional_rules") or [], record.get("id", 0))
    survivors = final_active_flags(record["actions"])
    out = Coverage()
    seen: Counter[str] = Counter()
    for index, action in enumerate(record["actions"]):
        if action["type"] not in NOT_MOVES and not session.finished:
            seen[action["type"]] += 1
            sampled = action["type"] not in COMMON or rare(action) or (seen[action["type"]] - 1) % every == 0  # the 1st, (every+1)th, ...: all with every=1
            if sampled and (survivors[index] or session.game.accepts(_bare(action))):
                out.moves += 1
                offers = offered_to(session, action)
                if any(covers(o, action) for o in offers):
                    out.covered += 1
                elif any(covers(d, action) for d in dead_ends_for(session, action)):
                    out.dead_ends[kinds(action, not survivors[index])] += 1
                else:
                    kind = kinds(action, not survivors[index])
                    out.missing[kind] += 1
                    out.examples.setdefault(kind, f"{name} index {index}")
        session.submit(action, trusted=not survivors[index], keep_id=True, recorded=True)
    return out


def _bare(action: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k not in ("id", "auto_actions")}


def games(titles: list[str] | None = None) -> list[str]:
    names = [str(p.relative_to(CONFORMANCE))[: -len(".json")] for p in discover(CONFORMANCE)]
    if titles:
        names = [n for n in names if any(f"/{t}/" in f"/{n}" or t in n for t in titles)]
    return names


# of the generated games of a title, every k-th in name order is in the default sample; the recorded public
# games (standing orders in all three titles) always are. LEGAL_COVERAGE=all: every game
SAMPLE_EVERY = {"1825": 12, "1828": 3, "1840": 3}


def sample(names: list[str]) -> list[str]:
    out = []
    position: Counter[str] = Counter()
    for name in names:
        if not name.startswith("generated/"):
            out.append(name)
            continue
        title = title_of(name)
        position[title] += 1
        if (position[title] - 1) % SAMPLE_EVERY.get(title, 1) == 0:
            out.append(name)
    return out


def title_of(name: str) -> str:
    return name.split("/")[-2]


def table(results: dict[str, Coverage]) -> str:
    by_title: dict[str, Coverage] = {}
    for name, cov in results.items():
        total = by_title.setdefault(title_of(name), Coverage())
        total.moves += cov.moves
        total.covered += cov.covered
        total.missing.update(cov.missing)
        total.dead_ends.update(cov.dead_ends)
        for kind, where in cov.examples.items():
            total.examples.setdefault(kind, where)
    lines = ["| title | moves | offered | % | named as dead ends | missing (kind: count, first at) |",
             "|---|---|---|---|---|---|"]
    for title, cov in sorted(by_title.items()):
        pct = 100.0 * cov.covered / cov.moves if cov.moves else 100.0
        missing = "; ".join(f"{k}: {n} ({cov.examples[k]})" for k, n in cov.missing.most_common())
        dead = "; ".join(f"{k}: {n}" for k, n in cov.dead_ends.most_common()) or "—"
        lines.append(f"| {title} | {cov.moves} | {cov.covered} | {pct:.1f} | {dead} | {missing} |")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - the full table, by hand
    every = EVERY
    args = [a for a in sys.argv[1:]]
    if args and args[0].startswith("--every="):
        every = int(args.pop(0).split("=", 1)[1])
    found = {}
    for game_name in games(args or None):
        found[game_name] = measure(game_name, every)
        cov = found[game_name]
        print(game_name, cov.moves, cov.covered, dict(cov.dead_ends), dict(cov.missing), flush=True)
    print(table(found))

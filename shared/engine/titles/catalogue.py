"""The title catalogue: what can be played and how, in one place for every caller.

One entry per title (the name its board data gives, `meta.json`'s `title`), with the other names it is known
by (`aliases`: 1828 for 1828.Games), its player range, its options with the player counts each is played at,
and its groups of mutually exclusive options. The service lists it (`GET /titles`) and checks a new game
against it (`check_setup`) instead of reading the board data itself; the refusals are structured (rule,
reason, valid values) so no caller parses their text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import MalformedAction
from ..titledata import TITLE_DIRS, meta_of
from . import playable_titles


@dataclass(frozen=True)
class OptionInfo:
    """One optional rule: `players` lists the player counts it is played at (None: every count)."""

    name: str
    short_name: str
    description: str
    players: tuple[int, ...] | None

    def allows(self, players: int) -> bool:
        return self.players is None or players in self.players

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "short_name": self.short_name, "description": self.description,
                "players": list(self.players) if self.players is not None else None}


@dataclass(frozen=True)
class TitleInfo:
    """One title as a client chooses it."""

    title: str
    aliases: tuple[str, ...]
    full_title: str
    min_players: int
    max_players: int
    options: tuple[OptionInfo, ...]
    exclusive_groups: tuple[tuple[str, ...], ...]
    dev_stage: str | None

    @property
    def option_names(self) -> list[str]:
        return [o.name for o in self.options]

    def option(self, name: str) -> OptionInfo | None:
        return next((o for o in self.options if o.name == name), None)

    def as_dict(self) -> dict[str, Any]:
        return {"title": self.title, "aliases": list(self.aliases), "full_title": self.full_title,
                "players": {"min": self.min_players, "max": self.max_players},
                "options": [o.as_dict() for o in self.options],
                "exclusive_groups": [list(g) for g in self.exclusive_groups], "dev_stage": self.dev_stage}


@cache
def catalogue() -> dict[str, TitleInfo]:
    """Title -> its entry, one per title, for every title whose rules and board data are both present."""
    names = [t for t in playable_titles() if t in TITLE_DIRS]
    out: dict[str, TitleInfo] = {}
    for name in names:
        meta = meta_of(name)
        title = meta["title"]
        if title in out:
            continue
        low, high = meta["player_range"]
        out[title] = TitleInfo(
            title=title,
            aliases=tuple(n for n in names if n != title and TITLE_DIRS[n] == TITLE_DIRS[name]),
            full_title=meta.get("full_title", title),
            min_players=low,
            max_players=high,
            options=tuple(OptionInfo(o["sym"], o.get("short_name", o["sym"]), o.get("description", ""),
                                     tuple(o["players"]) if o.get("players") else None)
                          for o in meta.get("optional_rules") or []),
            exclusive_groups=tuple(tuple(g) for g in meta.get("mutually_exclusive_options") or []),
            dev_stage=meta.get("dev_stage"),
        )
    return out


def entry_of(name: str) -> TitleInfo | None:
    """The entry of the title called `name`, by its own name or one of its aliases."""
    known = catalogue()
    return known.get(name) or next((e for e in known.values() if name in e.aliases), None)


class SetupRefused(MalformedAction):
    """A game that cannot be set up as asked: `rule` is one of unknown_title, unknown_option,
    exclusive_options, player_count, option_player_count; `valid` what would be accepted."""


def check_setup(title: str, options: list[str], players: int | None, *, option_players: bool = True) -> TitleInfo:
    """Refuse what the catalogue alone can tell is wrong, naming the valid values: an unknown title, an
    unknown option, a player count out of range, two options of one exclusive group, an option chosen for a
    player count it is not played at. The last is refused, never substituted: the engine would otherwise
    drop the option and play the title without it (1825's Unit 2 at five players would play Unit 1). An
    imported record keeps the reference's reading (`option_players=False`): there an option of another
    player count is dropped, as the game was played. Combinations only the rules can judge (1825's kits need
    certain Units) are left to the title's rules."""
    known = catalogue()
    entry = entry_of(title)
    if entry is None:
        raise SetupRefused(f"unknown title {title!r}; valid titles: {', '.join(known)}", "unknown_title",
                           valid=list(known), reason=f"unknown title {title!r}")
    valid = entry.option_names
    unknown = [o for o in options if o not in valid]
    if unknown:
        listed = ", ".join(valid) or "(this title has no options)"
        raise SetupRefused(f"{title}: unknown option(s) {', '.join(map(repr, unknown))}; valid options: {listed}",
                           "unknown_option", valid=valid,
                           reason=f"{title}: unknown option(s) {', '.join(map(repr, unknown))}")
    for group in entry.exclusive_groups:
        chosen = [o for o in options if o in group]
        if len(chosen) > 1:
            raise SetupRefused(f"{title}: options {', '.join(chosen)} exclude each other (choose at most one of "
                               f"{', '.join(group)})", "exclusive_options", valid=valid,
                               reason=f"{title}: options {', '.join(chosen)} exclude each other")
    low, high = entry.min_players, entry.max_players
    if players is not None and not low <= players <= high:
        raise SetupRefused(f"{title} is played by {low}-{high} players, not {players}", "player_count",
                           valid={"min": low, "max": high})
    if players is None or not option_players:
        return entry
    for name in options:
        option = entry.option(name)
        if option is not None and not option.allows(players):
            counts = list(option.players or ())
            raise SetupRefused(f"{title}: option {option.name} ({option.short_name}) is played by "
                               f"{', '.join(map(str, counts))} players, not {players}", "option_player_count",
                               valid={option.name: counts},
                               reason=f"{title}: option {option.name} is not played by {players} players")
    return entry


__all__ = ["OptionInfo", "SetupRefused", "TitleInfo", "catalogue", "check_setup", "entry_of"]

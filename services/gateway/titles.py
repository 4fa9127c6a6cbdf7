"""`GET /titles`: what can be played and how, from the engine's title catalogue (`titledata.meta_of`, the board data's `meta.json`): every
title, its options with descriptions and player counts, its player range and its groups of mutually
exclusive options. The same catalogue words every 422 about a title or an option, listing the valid values
instead of the engine's internal configuration list."""

from __future__ import annotations

from functools import cache
from typing import Any

from flask import Blueprint
from flask.typing import ResponseReturnValue

from services.gateway.errors import ApiError
from shared.engine import EngineError
from shared.engine.provisional import provisional_notice, provisional_values
from shared.engine.titledata import TITLE_DIRS, meta_of
from shared.engine.titles import playable_titles

bp = Blueprint("titles", __name__)
SETUP_RULES = frozenset({"title", "options", "player_count"})


@cache
def catalogue() -> dict[str, dict[str, Any]]:
    """Title name (as records name it, the board data's `title`) -> its description, one entry per title;
    the other names a title is known by (1828 for 1828.Games) are its `aliases` (see `entry_of`)."""
    out: dict[str, dict[str, Any]] = {}
    names = [t for t in playable_titles() if t in TITLE_DIRS]
    for title in names:
        meta = meta_of(title)
        if meta["title"] in out:
            continue
        low, high = meta["player_range"]
        out[meta["title"]] = {
            "title": meta["title"],
            "aliases": [n for n in names if n != meta["title"] and TITLE_DIRS[n] == TITLE_DIRS[title]],
            "full_title": meta.get("full_title", title),
            "players": {"min": low, "max": high},
            "options": [{"name": o["sym"], "short_name": o.get("short_name", o["sym"]),
                         "description": o.get("description", ""), "players": o.get("players")}
                        for o in meta.get("optional_rules", [])],
            "exclusive_groups": meta.get("mutually_exclusive_options") or [],
            "dev_stage": meta.get("dev_stage"),
        }
        base = provisional_values(title)
        extra = {o["sym"]: [v for v in provisional_values(title, [o["sym"]]) if v not in base]
                 for o in meta.get("optional_rules", [])}
        if base or any(extra.values()):
            out[meta["title"]]["provisional"] = {"notice": (meta.get("provisional") or {}).get("notice"), "values": base,
                                         "with_options": {k: v for k, v in extra.items() if v}}
    return out


def entry_of(title: str) -> dict[str, Any] | None:
    """The catalogue entry of `title` under its own name or one of its aliases."""
    known = catalogue()
    return known.get(title) or next((e for e in known.values() if title in e["aliases"]), None)


@cache
def provisional_of(title: str, options: tuple[str, ...]) -> dict[str, Any] | None:
    """What a game of `title` with `options` plays with provisionally (1833NE's placeholder tables): the
    notice and the values, or None when everything it uses is confirmed."""
    try:
        values = provisional_values(title, options)
    except (EngineError, KeyError):
        return None
    return {"notice": provisional_notice(title, options), "values": values} if values else None


@bp.get("/titles")
def titles() -> ResponseReturnValue:
    return {"titles": list(catalogue().values())}


def check_setup(title: str, options: list[str], seats: int | None, *, option_players: bool = True) -> None:
    """Refuse what the catalogue alone can tell is wrong, naming the valid values: an unknown title, an
    unknown option, a player count out of range, two options of one exclusive group, an option chosen for
    a player count it is not played at (never substituted: the engine would drop it and play the title
    without it). Combinations the catalogue cannot judge (1825's kits need certain Units) are left to the
    engine (`setup_refused`). An imported record keeps the reference's reading (`option_players=False`):
    there an option of another player count is dropped, as the game was played."""
    known = catalogue()
    entry = entry_of(title)
    if entry is None:
        raise ApiError(422, "unknown_title", f"unknown title {title!r}; valid titles: {', '.join(known)}",
                       details={"title": [f"one of {', '.join(known)}"]}, valid=list(known))
    valid = [o["name"] for o in entry["options"]]
    unknown = [o for o in options if o not in valid]
    if unknown:
        listed = ", ".join(valid) or "(this title has no options)"
        raise ApiError(422, "unknown_option", f"{title}: unknown option(s) {', '.join(map(repr, unknown))}; "
                       f"valid options: {listed}", details={"options": [f"valid: {listed}"]}, valid=valid)
    for group in entry["exclusive_groups"]:
        chosen = [o for o in options if o in group]
        if len(chosen) > 1:
            raise ApiError(422, "exclusive_options", f"{title}: options {', '.join(chosen)} exclude each other "
                           f"(choose at most one of {', '.join(group)})", details={"options": [
                               f"at most one of {', '.join(group)}"]}, valid=valid)
    low, high = entry["players"]["min"], entry["players"]["max"]
    if seats is not None and not low <= seats <= high:
        raise ApiError(422, "player_count", f"{title} is played by {low}-{high} players, not {seats}",
                       details={"seats": [f"between {low} and {high}"]}, valid={"min": low, "max": high})
    if seats is None or not option_players:
        return
    for option in entry["options"]:
        counts = option["players"]
        if option["name"] in options and counts and seats not in counts:
            allowed = ", ".join(map(str, counts))
            raise ApiError(422, "option_player_count", f"{title}: option {option['name']} "
                           f"({option['short_name']}) is played by {allowed} players, not {seats}",
                           details={"options": [f"{option['name']}: {allowed} players"]},
                           valid={option["name"]: counts})


def setup_refused(title: str, err: EngineError) -> ApiError:
    """An engine refusal of a set-up (title, options, player count) worded for a client: the engine's reason
    plus the valid values from the catalogue (the engine lists data configurations, not options)."""
    entry = entry_of(title)
    if entry is None:
        return ApiError(422, "unknown_title", f"{err.message}; valid titles: {', '.join(catalogue())}",
                        rule=err.rule, valid=list(catalogue()))
    message = err.message  # the engine's `valid` lists data configurations; a client is told the options
    valid = [o["name"] for o in entry["options"]]
    return ApiError(422, "setup_refused", f"{message}; valid options: {', '.join(valid) or '(none)'}; "
                    f"players {entry['players']['min']}-{entry['players']['max']}; see GET /titles",
                    rule=err.rule, valid=valid)

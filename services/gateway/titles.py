"""`GET /titles`: what can be played and how, as the engine's title catalogue states it
(`shared.engine.titles.catalogue`): every title once (its other names as `aliases`), its options with
descriptions and player counts, its player range and its groups of mutually exclusive options. The same
catalogue refuses a bad set-up; its structured refusal (rule, reason, valid values) becomes the 422 body."""

from __future__ import annotations

from functools import cache
from typing import Any

from flask import Blueprint
from flask.typing import ResponseReturnValue

from services.apidoc import documented
from services.gateway.errors import ApiError
from services.gateway.schemas import TitlesOut
from shared.engine import EngineError
from shared.engine.provisional import provisional_notice, provisional_values
from shared.engine.titledata import meta_of
from shared.engine.titles.catalogue import SetupRefused, catalogue, entry_of
from shared.engine.titles.catalogue import check_setup as engine_check_setup

bp = Blueprint("titles", __name__)
SETUP_RULES = frozenset({"title", "options", "player_count"})


@cache
def listing() -> dict[str, dict[str, Any]]:
    """Title -> its catalogue entry as a client reads it, plus what it plays with provisionally."""
    out: dict[str, dict[str, Any]] = {}
    for title, entry in catalogue().items():
        out[title] = entry.as_dict()
        base = provisional_values(title)
        extra = {o: [v for v in provisional_values(title, [o]) if v not in base] for o in entry.option_names}
        if base or any(extra.values()):
            out[title]["provisional"] = {"notice": (meta_of(title).get("provisional") or {}).get("notice"),
                                         "values": base, "with_options": {k: v for k, v in extra.items() if v}}
    return out


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
@documented("Every title: options with descriptions, player range, exclusive options", ok={200: TitlesOut})
def titles() -> ResponseReturnValue:
    return {"titles": list(listing().values())}


# the request field each of the catalogue's refusals is about
SETUP_FIELDS = {"unknown_title": "title", "player_count": "seats"}


def check_setup(title: str, options: list[str], seats: int | None, *, option_players: bool = True) -> None:
    """The engine's catalogue check (`shared.engine.titles.catalogue.check_setup`) as a 422 whose body carries
    the refusal's fields: `error` (its rule), `reason`, `valid` and the request field in `details`."""
    try:
        engine_check_setup(title, options, seats, option_players=option_players)
    except SetupRefused as err:
        raise ApiError(422, err.rule, err.message, rule=err.rule, reason=err.reason, valid=err.valid,
                       details={SETUP_FIELDS.get(err.rule, "options"): [err.reason]}) from err


def setup_refused(title: str, err: EngineError) -> ApiError:
    """An engine refusal of a set-up (title, options, player count) worded for a client: the engine's reason
    plus the valid values from the catalogue (the engine lists data configurations, not options)."""
    entry = entry_of(title)
    if entry is None:
        return ApiError(422, "unknown_title", f"{err.message}; valid titles: {', '.join(catalogue())}",
                        rule=err.rule, reason=err.reason, valid=list(catalogue()))
    valid = entry.option_names  # the engine's `valid` lists data configurations; a client is told the options
    return ApiError(422, "setup_refused", f"{err.message}; valid options: {', '.join(valid) or '(none)'}; "
                    f"players {entry.min_players}-{entry.max_players}; see GET /titles",
                    rule=err.rule, reason=err.reason, valid=valid)

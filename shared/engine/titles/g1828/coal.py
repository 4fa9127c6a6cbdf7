"""Coal markers: a route through the Virginia coalfields (K11) needs one.

A corporation connected to the coalfields buys one of the markers lying there for $120 (`special_buy`,
"Coal Marker"), at any point of its operating turn. Laying the tunnel tile (K13) also earns a marker; a
corporation that already has one puts it on the coalfields instead. A System keeps at most one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import IllegalAction
from .state import state

if TYPE_CHECKING:
    from ...game import Game
    from ...model import Corporation

DESCRIPTION = "Coal Marker"


def settings(game: Game) -> dict[str, Any]:
    return game.defn.data.extras.get("coal") or {}


def cost(game: Game) -> int:
    return int(settings(game).get("marker_cost", 120))


def coalfields(game: Game) -> str:
    return str(settings(game).get("coalfields_hex", "K11"))


def tunnel(game: Game) -> str:
    return str(settings(game).get("tunnel_hex", "K13"))


def sync(game: Game) -> None:
    """The coalfields block every corporation without a coal marker, as a city full of other companies'
    tokens does: its track ends there, for a tile lay, a station or a run (rules-1828.md, "The Virginia
    Coalfields end the track"). Call whenever the holders change."""
    game.board.set_closed_cities({coalfields(game): frozenset(state(game).coal)})


def has_marker(game: Game, corp: Corporation) -> bool:
    return corp.sym in state(game).coal


def may_buy(game: Game, corp: Corporation) -> bool:
    return (corp.kind == "major" and state(game).coal_on_field > 0 and not has_marker(game, corp)
            and corp.cash >= cost(game) and coalfields(game) in game.board.reach(corp.sym).edges)


def buy(game: Game, corp: Corporation, action: dict[str, Any]) -> None:
    if action.get("description") not in (None, DESCRIPTION) or action.get("cost") not in (None, cost(game)):
        raise IllegalAction(f"the only special purchase is a {DESCRIPTION} for ${cost(game)}", "special_buy")
    if not may_buy(game, corp):
        raise IllegalAction(f"{corp.sym} cannot buy a coal marker now (one each, connected to "
                            f"{coalfields(game)}, ${cost(game)}, while markers remain)", "special_buy")
    game.pay(corp, None, cost(game))
    state(game).coal.append(corp.sym)
    state(game).coal_on_field -= 1
    sync(game)


def tunnel_laid(game: Game, corp: Corporation) -> None:
    if has_marker(game, corp):
        state(game).coal_on_field += 1
    else:
        state(game).coal.append(corp.sym)
        sync(game)


def check_routes(game: Game, corp: Corporation, routes: Any) -> None:
    if has_marker(game, corp) or not isinstance(routes, list):
        return
    for route in routes:
        chains = route.get("connections") if isinstance(route, dict) else None
        if any(isinstance(c, list) and coalfields(game) in c for c in chains or []):
            raise IllegalAction(f"{corp.sym} needs a coal marker to run to {coalfields(game)}", "coal_marker")

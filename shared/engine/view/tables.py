"""The page's tables of players and corporations, built on the engine's digest (`shared/engine/digest.py`,
what `GET /games/{id}/state` serves), so the page and the API say the same thing: who is president (an 1828
merger keeps the old presidents, an 1840 line is run by its controller), cash, holdings, trains. The few
facts the digest leaves out (names, values, limits, who has passed) come from the engine's own answers here,
so the gateway never reads the game's internals for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..game import Game

Row = dict[str, Any]


def state_digest(game: Game) -> dict[str, Any]:
    """The digest as the state serves it (the action fields aside, which the tables do not use)."""
    return game.digest({"id": 0, "type": "setup"})


def _value(game: Game, player: Any) -> int | None:
    try:
        return game.rules.player_value(game, player)
    except Exception:  # a title's valuation may need a finished game; the page still shows the rest
        return None


def _value_notes(game: Game, player: Any) -> list[str]:
    try:
        return list(game.rules.value_notes(game, player))
    except Exception:  # a title's note may need state a finished or odd game lacks; the value still shows
        return []


def cert_limit(game: Game) -> int | None:
    """The certificate limit the players count against, None where the title has none."""
    if not game.rules.has_cert_limit:
        return None
    try:
        return int(game.rules.cert_limit(game))
    except (KeyError, ValueError, TypeError):  # a table without this player count: show the count alone
        return None


def players_view(game: Game, digest: dict[str, Any]) -> list[Row]:
    """One row per player, in turn order; players out of it (bankrupt, or a title that drops them) last."""
    acting = set(game.acting_players()) if not game.finished else set()
    limit = cert_limit(game)
    presidents = {sym: c.get("president") for sym, c in digest["corporations"].items()}
    in_order = game.players_in_order()
    rows = []
    for p in in_order + [p for p in game.players if p not in in_order]:
        entry = digest["players"][str(p.id)]
        shares = [{"corporation": sym, "percent": pct, "president": presidents.get(sym) == p.id}
                  for sym, pct in entry["shares"].items()]
        rows.append({"id": p.id, "name": p.name, "cash": entry["cash"], "certificates": game.num_certs(p),
                     "cert_limit": limit, "shares": shares, "companies": list(entry["companies"]),
                     "value": _value(game, p), "value_notes": _value_notes(game, p),
                     "bankrupt": entry["bankrupt"], "acting": p.id in acting, "passed": p.passed})
    return rows


def corporations_view(game: Game, digest: dict[str, Any]) -> list[Row]:
    """One row per corporation the digest lists, in its order, with the digest's president."""
    acting = set(digest.get("acting") or [])
    rows = []
    for sym, entry in digest["corporations"].items():
        corp = game.corporations[sym]
        rows.append({
            "sym": sym, "name": corp.name, "kind": corp.kind, "cash": entry["cash"], "trains": list(entry["trains"]),
            "token_hexes": list(entry["tokens"]), "tokens_total": len(corp.token_prices),
            "president": entry["president"], "share_price": entry["share_price"], "par_price": entry["par_price"],
            "floated": entry["floated"], "ipoed": entry["ipoed"], "closed": entry["closed"],
            "treasury_percent": entry["treasury_percent"], "pool_percent": entry["market_percent"],
            "companies": list(entry["companies"]), "acting": sym in acting,
        })
    return rows

"""The engine-neutral state digest of the conformance traces (schema in tests/fixtures/conformance)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .model import POOL, Corporation

if TYPE_CHECKING:
    from .protocol import Game


def _held(corp: Corporation) -> dict[Any, int]:
    """Percent held per owner: one pass over the certificates instead of one per owner asked about."""
    held: dict[Any, int] = {}
    for share in corp.shares:
        held[share.owner] = held.get(share.owner, 0) + share.percent
    return held


def digest(game: Game, action: dict[str, Any]) -> dict[str, Any]:
    holdings = {corp.sym: _held(corp) for corp in game.corporations.values()}
    tokens = game.board.token_hexes_by_entity()
    players = {}
    for p in game.players:
        shares: dict[str, int] = {}
        for corp in game.corporations.values():
            pct = holdings[corp.sym].get(p.id, 0)
            if pct:
                shares[corp.sym] = pct
        players[str(p.id)] = {
            "cash": p.cash,
            "shares": shares,
            "companies": sorted(s for s in p.companies if not game.companies[s].closed),
            "bankrupt": p.bankrupt,
            "programs": [prog["type"] for prog in p.programs],
        }
        players[str(p.id)] = game.rules.digest_player(game, p, players[str(p.id)])
    corporations = {}
    for corp in game.rules.digest_corporations(game):
        held = holdings[corp.sym]
        cell = corp.share_cell
        corporations[corp.sym] = {
            "cash": corp.cash,
            "share_price": None if cell is None or corp.closed else game.market.cell(cell).price,
            "share_coords": None if cell is None or corp.closed else [cell[0], cell[1]],
            "par_price": corp.par_price,
            "ipoed": corp.ipoed,
            "floated": corp.floated,
            "president": corp.president,
            "trains": sorted(t.name for t in corp.trains if not t.rusted),
            "tokens": tokens.get(corp.sym, []),
            "treasury_percent": held.get(corp.sym, 0),
            "market_percent": held.get(POOL, 0),
            "companies": sorted(corp.companies),
            "closed": corp.closed,
        }
        corporations[corp.sym] = game.rules.digest_corporation(game, corp, corporations[corp.sym])
    upcoming = game.depot.upcoming()
    out: dict[str, Any] = {
        "action_id": action.get("id", 0),
        "type": action.get("type", "setup"),
        "round": game.round.kind,
        "round_num": game.round.round_num,
        "turn": game.turn,
        "phase": game.phase.name,
        "acting": game.acting(),
        "finished": game.finished,
        "bank_cash": game.rules.digest_bank_cash(game),
        "player_order": list(game.player_order),
        "players": players,
        "corporations": corporations,
        "minors": game.rules.digest_minors(game),
        "depot": {
            "upcoming": [t.name for t in upcoming[:6]],
            "upcoming_count": len(upcoming),
            "discarded": sorted(t.name for t in game.depot.discarded),
        },
        "tiles": game.board.digest_tiles(),
    }
    if game.finished:
        out["game_end_reason"] = game.game_end_reason
        out["result"] = game.result()
    return out

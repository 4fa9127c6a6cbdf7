"""The tables of the game page, from the live engine state: players, corporations, privates, trains.

Everything here is read-only and works on the session the caller holds (under the session cache's lock).
"""

from __future__ import annotations

from typing import Any

from services.gateway.web.earnings import chart_svg, earnings
from services.words.describe import end_words
from services.words.names import acting_name, name_of, round_label, share_sources
from shared.engine import GameSession
from shared.engine.core.stockround import StockRound
from shared.engine.game import Game
from shared.engine.view.board import entity_colors
from shared.engine.view.tables import corporations_view, players_view, state_digest


def order_words(program: dict[str, Any], game: Game | None = None) -> str:
    """A standing order in words, as its owner reads it on his page: what it does, how long it holds and
    when it hands the decision back (docs/standing-orders.md S4, S5, S9)."""
    kind = str(program.get("type"))
    if kind == "program_share_pass":
        words = "pass in every stock round" if program.get("indefinite") else "pass in this stock round"
        return words + (", even if something changes" if program.get("unconditional")
                        else "; it stops when another player does something you may want to answer")
    if kind == "program_buy_shares":
        sym = str(program.get("corporation"))
        corp = game.corporations.get(sym) if game is not None else None
        source = "the market" if program.get("from_market") else (
            "the " + game.rules.ipo_name(game, corp) if game is not None and corp is not None else "the IPO")
        until = program.get("until_condition")
        end = f"until {sym} floats" if until == "float" else f"until you hold {until} share{'s' if until != 1 else ''}"
        named = sym if corp is None or not corp.name or corp.name == sym else f"{sym} ({corp.name})"
        words = f"buy shares of {named} from {source}, one a turn, {end}"
        return words + (", then pass in this stock round" if program.get("auto_pass_after") else "")
    return kind.replace("_", " ")


def _money(game: Game, amount: int | None) -> str:
    if amount is None:
        return "—"
    pattern = str(game.defn.data.meta.get("currency_format") or "%d")
    try:
        return pattern % amount
    except (TypeError, ValueError):
        return str(amount)


def players_table(game: Game, digest: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The players, from the engine's digest and its view (shared/engine/view/tables.py), with money in words."""
    rows = players_view(game, digest if digest is not None else state_digest(game))
    return [{**row, "cash_text": _money(game, row["cash"]), "value_text": _money(game, row["value"])}
            for row in rows]


def corporations_table(game: Game, runs: dict[str, list[dict[str, Any]]] | None = None,
                       digest: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The corporations, from the engine's digest and its view: the page names the president the state names."""
    colors = entity_colors(game)
    runs = runs or {}
    rows = []
    for row in corporations_view(game, digest if digest is not None else state_digest(game)):
        sym, president, price = row["sym"], row["president"], row["share_price"]
        rows.append({
            **row,
            "color": (colors.get(sym) or {}).get("color") or "#888888",
            "text_color": (colors.get(sym) or {}).get("text_color"),
            "cash_text": _money(game, row["cash"]), "tokens_on_map": len(row["token_hexes"]),
            "president": name_of(game, president) if president is not None else None,
            "share_price_text": _money(game, price) if price is not None else "—",
            "runs": runs.get(sym, []), "runs_svg": chart_svg(runs.get(sym, [])),
        })
    return rows


def companies_table(game: Game) -> list[dict[str, Any]]:
    return [{"sym": c.sym, "name": c.name, "value": c.value, "revenue": c.revenue,
             "owner": name_of(game, c.owner) if c.owner is not None else "bank", "closed": c.closed}
            for c in game.companies.values()]


def bank_text(game: Game) -> str:
    """What the bank holds, from the set-up data: 1828's and 1840's bank is unlimited (their digests leave it
    out, which left the page without a bank at all)."""
    if game.defn.data.setup["bank"]["cash"] == "unlimited":
        return "unlimited"
    left = game.rules.bank_left(game)
    if left is None:
        left = game.bank_cash
    if left < 0 or getattr(game, "bank_broken", False):
        return f"broken ({_money(game, max(left, 0))} left)" if left >= 0 else "broken"
    return _money(game, left)


def priority_deal(game: Game) -> int | None:
    """Who holds the priority deal (starts the next stock round). During a stock round it moves as players
    act, so the title's own reordering is asked on a copy of the game rather than restated here."""
    if game.finished or not game.player_order:
        return None
    if isinstance(game.round, StockRound):
        trial = game.trial()
        try:
            trial.rules.reorder_players(trial, trial.round)
        except Exception:  # a title that orders players another way: the current order still says who leads
            return game.player_order[0]
        return trial.player_order[0]
    return game.player_order[0]


def ranking(game: Game, result: dict[Any, Any] | None) -> list[dict[str, Any]]:
    """The final standing: players by value, highest first; equal values share a place."""
    if not result:
        return []
    rows = sorted(((name_of(game, int(pid)) if str(pid).lstrip("-").isdigit() else str(pid), int(value))
                   for pid, value in result.items()), key=lambda r: -r[1])
    out: list[dict[str, Any]] = []
    for i, (name, value) in enumerate(rows):
        place = out[-1]["place"] if out and out[-1]["raw"] == value else i + 1
        out.append({"place": place, "name": name, "value": _money(game, value), "raw": value})
    return out


def trains_left(game: Game) -> dict[str, Any]:
    """The bank's trains in the order they come out, kinds counted ("5 ×4 (£550)"), and the discarded ones the
    bank sells again: the players plan on how many of the current kind are left before the next rusts."""
    groups: list[list[Any]] = []
    for t in game.depot.upcoming():
        if groups and groups[-1][0] == t.name and groups[-1][2] == t.price:
            groups[-1][1] += 1
        else:
            groups.append([t.name, 1, t.price])
    kinds = [f"{name} ×{n} ({_money(game, price)})" for name, n, price in groups]
    pool = [f"{t.name} ({_money(game, t.price)})" for t in game.depot.discarded if t.owner is None]
    return {"count": sum(g[1] for g in groups), "kinds": kinds, "pool": pool}


def player_order(game: Game) -> list[str]:
    """The players in turn order (the order of the next stock round's turns, from the priority deal)."""
    if game.finished:
        return []
    return [p.name for p in game.players_in_order()]


def overview(session: GameSession) -> dict[str, Any]:
    game = session.game
    digest = state_digest(game)  # the page's players and corporations are the state's (GET /games/{id}/state)
    upcoming = game.depot.upcoming()
    acting = [] if game.finished else game.acting()
    return {
        "round": game.round.kind, "round_num": game.round.round_num, "turn": game.turn,
        "round_label": round_label(game),
        "phase": game.phase.name, "phase_colors": list(game.phase.tiles), "train_limit": game.phase.train_limit,
        "finished": game.finished, "game_end_reason": game.game_end_reason,
        "acting": [acting_name(game, e) for e in acting], "acting_entities": acting,
        "acting_players": [] if game.finished else game.acting_players(),
        "bank_cash": game.rules.digest_bank_cash(game), "bank": bank_text(game),
        "priority": name_of(game, holder) if (holder := priority_deal(game)) is not None else None,
        "upcoming_trains": [f"{t.name} ({_money(game, t.price)})" for t in upcoming[:6]],
        "trains_left": trains_left(game), "order": player_order(game),
        "players": players_table(game, digest), "corporations": corporations_table(game, earnings(session), digest),
        "companies": companies_table(game),
        "result": session.result,
        "end_words": end_words(game.game_end_reason) if game.finished else None,
        "ranking": ranking(game, session.result) if game.finished else [],
        "colors": entity_colors(game),
        "currency": str(game.defn.data.meta.get("currency_format") or "%d"),
        "page_data": {"share_sources": share_sources(game),
                      "train_owners": {t.id: c.sym for c in game.corporations.values() for t in c.trains},
                      "names": {str(p.id): p.name for p in game.players},
                      "corporation_names": {c.sym: c.name for c in game.corporations.values()},
                      "acting_players": [] if game.finished else game.acting_players()},
    }

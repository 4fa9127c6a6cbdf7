"""The turn text of one seat: its legal moves, numbered, in words, and the board state that matters.

The numbers are those a reply may quote ("3"): the seat's legal actions exactly as `GET /legal-actions`
lists them for that seat (the engine's order, bids with their range), so a number means the same move
wherever the list is computed at the same version. Words come from the game page's phrases
(`services.words.describe`): one phrase table for the page, the log and the email.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from services.play.legal import seat_actions, standing_in
from services.play.timekeeping import Table
from services.words.describe import bid_range, describe, describe_choice
from services.words.names import acting_name, name_of, round_label, share_sources
from shared.engine import GameSession
from shared.engine.game import Game

MAX_LISTED = 200  # more than any position has produced (1840's tile lays peak near 110)


@dataclass(frozen=True)
class TurnText:
    game_id: int
    player_id: int
    version: int
    moves: list[dict[str, Any]]
    text: str
    reply_to: str | None = None  # set when the seat has moves and replies are on
    headline: str = ""  # the mail's first line (and subject), read from the same state as `text`


def seat_moves(session: GameSession, player_id: int, absent: int | None = None) -> list[dict[str, Any]]:
    """What this seat may do now: exactly what the REST `legal-actions` answers its seat token (with the
    moves of the `absent` seat it stands in for, `services.play.legal.standing_in`)."""
    return seat_actions(session, player_id, orders=False, absent=absent)


def absent_for(session: GameSession, player_id: int, clock_events: Callable[[], list[dict[str, Any]]]) -> int | None:
    """The absent seat the table chose this player to move for, or None; the table log (`clock_events`) is
    read only when the player is not acting himself."""
    if player_id in session.acting_players() or session.finished:
        return None
    return standing_in(session, Table.replay(clock_events()).stand_in, player_id)


def _money(game: Game, amount: Any) -> str:
    pattern = str(game.defn.data.meta.get("currency_format") or "%d")
    try:
        return pattern % int(amount)
    except (TypeError, ValueError):
        return str(amount)


def share_cost(game: Game, action: dict[str, Any]) -> int | None:
    """What a `buy_shares` costs, asked of the round's own buying step (the title's `share_cost`: par price
    from the IPO, market price from the pool, and each title's exceptions), or None when the round has no
    such step. Read from outside, as `shared.engine.ranges` states bid ranges."""
    shares = action.get("shares") or []
    if not shares:
        return None
    sym = str(shares[0]).rsplit("_", 1)[0]
    corp = game.corporations.get(sym)
    share = next((x for x in corp.shares if x.id == shares[0]), None) if corp is not None else None
    for step in getattr(game.round, "steps", []):
        cost = getattr(step, "share_cost", None)
        if callable(cost) and share is not None:
            try:
                return int(cost(game, corp, share)) * len(shares)
            except Exception:  # a state the step does not price (e.g. a closed corporation): say nothing
                return None
    return None


def move_text(game: Game, action: dict[str, Any], sources: dict[str, str]) -> str:
    """The page's phrase for the move, with what an email reader cannot click to find out: where a share
    comes from, a bid's range, and which corporation acts when it is not the player."""
    text = describe_choice(action)
    kind = action.get("type")
    if kind == "buy_shares" and action.get("shares"):
        source = sources.get(str(action["shares"][0]))
        if source:
            text += f" from {source}"
        cost = share_cost(game, action)
        if cost is not None:
            text += f" for {_money(game, cost)}"
    elif kind == "bid" and action.get("min") is not None:
        text += f" ({bid_range(action, lambda amount: _money(game, amount))})"  # as the offer states it
    elif kind == "lay_tile":
        text = f"lay tile {str(action.get('tile', '')).split('-')[0]} on {action.get('hex')} rotation {action.get('rotation')}"
    elif kind == "place_token" and action.get("city"):
        try:
            text = f"place a token in {game.board.city_hex(str(action['city']))} (city {action['city']})"
        except Exception:  # a city id the board does not know: the page's phrase stays
            pass
    entity = action.get("entity")
    if action.get("entity_type") != "player" and entity is not None:
        text = f"{entity}: {text}"
    return text[:1].upper() + text[1:]


def numbered(game: Game, moves: Sequence[dict[str, Any]]) -> list[str]:
    sources = share_sources(game)
    lines = [f"{i:>3}  {move_text(game, a, sources)}" for i, a in enumerate(moves[:MAX_LISTED], 1)]
    if len(moves) > MAX_LISTED:
        lines.append(f"     ... and {len(moves) - MAX_LISTED} more: answer in words (see the move language)")
    return lines


def state_lines(session: GameSession, player_id: int) -> list[str]:
    """Round, who acts, the player's cash and holdings, and for each acting corporation its treasury,
    trains and tokens: what a player needs to choose without opening the page."""
    game = session.game
    lines = [f"{round_label(game)}, phase {game.phase.name}."]
    acting = [] if game.finished else game.acting()
    if acting:
        lines.append("Acting: " + ", ".join(acting_name(game, e) for e in acting) + ".")
    me = next((p for p in game.players if p.id == player_id), None)
    if me is not None:
        held = []
        for corp in game.corporations.values():
            pct = corp.percent_owned_by(me.id)
            if pct:
                held.append(f"{pct}% {corp.sym}" + (" (president)" if corp.president == me.id else ""))
        companies = [c for c in me.companies if not game.companies[c].closed]
        lines.append(f"You ({me.name}): cash {_money(game, me.cash)}; "
                     + (", ".join(held) if held else "no shares")
                     + (f"; companies {', '.join(companies)}" if companies else "") + ".")
    for entity in acting:
        corp = game.corporations.get(entity) if isinstance(entity, str) else None
        if corp is None:
            continue
        trains = [t.name for t in corp.trains if not t.rusted]
        price = game.share_price(corp) if corp.share_cell is not None and not corp.closed else None
        lines.append(f"{corp.sym}: treasury {_money(game, corp.cash)}, trains {', '.join(trains) or 'none'}"
                     + (f", share price {_money(game, price)}" if price is not None else "") + ".")
    upcoming = game.depot.upcoming()
    if upcoming:
        lines.append("Next trains: " + ", ".join(f"{t.name} ({_money(game, t.price)})" for t in upcoming[:4]) + ".")
    return lines


def last_moves(session: GameSession, count: int = 5) -> list[str]:
    game = session.game
    recent = [a for a in session.actions if a.get("type") != "message"][-count:]
    notes = getattr(game, "history_notes", {})
    return [describe(a, lambda e: name_of(game, e), game.rules, notes.get(a.get("id"))) for a in recent]


def turn_text(session: GameSession, game_id: int, player_id: int, link: str, reply_to: str | None,
              absent: int | None = None) -> TurnText:
    """The whole block: state, last moves, numbered moves, how to answer, the page link. `absent`: the seat
    the table chose this player to move for (its moves are listed with his own, and say so)."""
    moves = seat_moves(session, player_id, absent)
    out = state_lines(session, player_id)
    recent = last_moves(session)
    if recent:
        out += ["", "Last moves:"] + [f"  {line}" for line in recent]
    if moves:
        heading = "Your moves:" if absent is None else \
            f"Your moves (the table chose you to move for {name_of(session.game, absent)} this turn):"
        out += ["", heading] + numbered(session.game, moves)
        if reply_to:
            out += ["", "Answer this email with the number of a move (or words: \"pass\", \"buy LNWR\", ...;",
                    "one move per line, played in order). Replies go to", f"  {reply_to}"]
    elif session.finished:
        out += ["", "The game has finished."]
    else:
        out += ["", "Nothing for you to do right now."]
    out += ["", f"Page: {link}"]
    return TurnText(game_id, player_id, session.version, moves, "\n".join(out), reply_to if moves else None,
                    headline(session, game_id, player_id, bool(moves)))


def headline(session: GameSession, game_id: int, player_id: int, on_move: bool) -> str:
    """Where the game stands for this player, in one line: the subject of his mail says what its body says."""
    game = session.game
    label = f"game {game_id} ({session.title})"
    if session.finished:
        return f"{label[:1].upper()}{label[1:]} has finished."
    if on_move:
        return f"{name_of(game, player_id)}: it is your turn in {label} \u2014 {round_label(game)}, phase {game.phase.name}."
    acting = [acting_name(game, e) for e in game.acting()]
    return f"Nothing for you to do in {label}" + (f": waiting for {', '.join(acting)}." if acting else ".")

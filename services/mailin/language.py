"""The move language of email replies: a small, forgiving reading of one line into one legal action.

A line is the number of a move in the email ("3"), or words: "pass", "buy LNWR", "buy LNWR ipo",
"buy 10% LNWR from the market", "sell 2 GWR", "par GWR 90", "bid 120 on C&A", "lay 57 T16 2",
"token T16", "run", "payout", "withhold", "buy train 3 from depot", "buy train 4 from NER for 300",
"choose 1", "merge 7", "undo", "redo", "stop orders". Case and extra spaces do not matter.

Words never make a move up: every line resolves to one of the seat's legal actions at that moment (the
bid amount and a train's price are the only values a reply fills in, and the engine checks those), except
undo, redo and "stop orders", which are the table's and the seat's own and are refused by the engine when
they do not apply. A number refers to the list in the email, so it is taken only while the game is still at
the email's version.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from services.words.names import share_sources
from shared.engine.game import Game

_SOURCE_WORDS = {"ipo": "the IPO", "treasury": "the IPO", "market": "the market", "pool": "the market"}
_FOR = re.compile(r"\s+(?:for|at)\s+\$?£?(\d+)$")


@dataclass(frozen=True)
class Resolved:
    action: dict[str, Any] | None = None
    error: str | None = None


def lines_of(text: str) -> list[str]:
    """The commands of a reply body: one per line (or separated by ';'), quoted lines and blanks dropped."""
    out: list[str] = []
    for raw in text.replace("\r", "").split("\n"):
        if raw.lstrip().startswith(">"):
            continue
        for part in raw.split(";"):
            words = " ".join(part.replace("\u00a0", " ").split()).strip(" .!")
            if words:
                out.append(words)
    return out


def _norm(text: Any) -> str:
    return " ".join(str(text).lower().split())


def _corp_of(action: dict[str, Any]) -> str:
    shares = action.get("shares") or []
    return str(shares[0]).rsplit("_", 1)[0] if shares else str(action.get("corporation", ""))


def _target(action: dict[str, Any]) -> str:
    return str(action.get("company") or action.get("corporation") or action.get("minor") or "")


def _one(found: Sequence[dict[str, Any]], what: str) -> Resolved:
    if not found:
        return Resolved(error=f"no move you may make now matches \u201c{what}\u201d")
    return Resolved(dict(found[0]))


def _price(rest: str) -> tuple[str, int | None]:
    m = _FOR.search(rest)
    return (rest[: m.start()], int(m.group(1))) if m else (rest, None)


def _buy(game: Game, moves: Sequence[dict[str, Any]], rest: str, line: str) -> Resolved:
    if rest.startswith("train"):
        return _buy_train(game, moves, rest[5:].strip(), line)
    rest, price = _price(rest)
    source = None
    words = rest.split()
    if words and words[-1] in _SOURCE_WORDS:
        source = _SOURCE_WORDS[words[-1]]
        words = words[:-1]
        if words[-2:] == ["from", "the"] or words[-1:] == ["from"]:
            words = words[: -2 if words[-1] == "the" else -1]
    percent = None
    if words and re.fullmatch(r"\d+%", words[0]):
        percent, words = int(words[0][:-1]), words[1:]
    name = " ".join(words)
    companies = [a for a in moves if a.get("type") == "buy_company" and _norm(a.get("company")) == name]
    if companies:
        return Resolved({**companies[0], **({"price": price} if price is not None else {})})
    sources = share_sources(game)
    found = [a for a in moves if a.get("type") == "buy_shares" and _norm(_corp_of(a)) == name
             and (percent is None or a.get("percent") == percent)
             and (source is None or sources.get(str((a.get("shares") or [""])[0])) == source)]
    return _one(found, line)


def _owner_of_train(game: Game, train_id: str) -> str:
    for corp in game.corporations.values():
        if any(t.id == train_id for t in corp.trains):
            return corp.sym.lower()
    return "depot"


def _buy_train(game: Game, moves: Sequence[dict[str, Any]], rest: str, line: str) -> Resolved:
    rest, price = _price(rest)
    name, _, source = rest.partition(" from ")
    source = source.strip().removeprefix("the ")
    found = []
    for a in moves:
        if a.get("type") != "buy_train":
            continue
        train = str(a.get("train", ""))
        names = {_norm(train), _norm(train.rsplit("-", 1)[0]), _norm(a.get("variant", ""))}
        if name.strip() in names and (not source or _owner_of_train(game, train) == source):
            found.append(a)
    resolved = _one(found, line)
    if resolved.action is not None and price is not None:
        resolved.action["price"] = price
    return resolved


def _sell(game: Game, moves: Sequence[dict[str, Any]], rest: str, line: str) -> Resolved:
    words = rest.split()
    count = None
    if words and re.fullmatch(r"\d+%?", words[0]):
        count, words = words[0], words[1:]
    name = " ".join(words)
    sales = [a for a in moves if a.get("type") == "sell_shares" and _norm(_corp_of(a)) == name]
    if count is None:
        return _one(sorted(sales, key=lambda a: int(a.get("percent") or 0)), line)
    if count.endswith("%"):
        return _one([a for a in sales if a.get("percent") == int(count[:-1])], line)
    n = int(count)
    by_count = [a for a in sales if len(a.get("shares") or []) == n]
    return _one(by_count or [a for a in sales if a.get("percent") == 10 * n], line)


def _par(moves: Sequence[dict[str, Any]], rest: str, line: str) -> Resolved:
    rest, _ = _price(rest)
    name, _, price = rest.rpartition(" ")
    return _one([a for a in moves if a.get("type") == "par" and _norm(a.get("corporation")) == name
                 and str(a.get("share_price", "")).split(",")[0] == price], line)


def _bid(moves: Sequence[dict[str, Any]], rest: str, line: str) -> Resolved:
    m = re.fullmatch(r"(\d+)\s+(?:on|for)\s+(.+)", rest) or re.fullmatch(r"(.+?)\s+(\d+)", rest)
    if m is None:
        return Resolved(error=f"say \u201cbid AMOUNT on NAME\u201d (got \u201c{line}\u201d)")
    amount, name = (m.group(1), m.group(2)) if m.group(1).isdigit() else (m.group(2), m.group(1))
    found = [a for a in moves if a.get("type") == "bid" and _norm(_target(a)) == _norm(name)]
    resolved = _one(found, line)
    if resolved.action is not None:
        for key in ("min", "max", "step", "multiple_of"):
            resolved.action.pop(key, None)
        resolved.action["price"] = int(amount)
    return resolved


def _lay(moves: Sequence[dict[str, Any]], rest: str, line: str) -> Resolved:
    words = rest.removeprefix("tile ").replace(" on ", " ").replace(" rotation ", " ").split()
    if len(words) not in (2, 3):
        return Resolved(error=f"say \u201clay TILE HEX ROTATION\u201d, e.g. \u201clay 57 T16 2\u201d (got \u201c{line}\u201d)")
    tile, hex_id = words[0], words[1]
    found = [a for a in moves if a.get("type") == "lay_tile" and _norm(a.get("hex")) == hex_id
             and _norm(str(a.get("tile", "")).rsplit("-", 1)[0]) == tile
             and (len(words) == 2 or str(a.get("rotation")) == words[2])]
    if len(words) == 2 and len({a.get("rotation") for a in found}) > 1:
        rotations = ", ".join(str(a.get("rotation")) for a in found)
        return Resolved(error=f"tile {tile} fits {hex_id.upper()} in rotations {rotations}: add one")
    return _one(found, line)


def _token(game: Game, moves: Sequence[dict[str, Any]], rest: str, line: str) -> Resolved:
    where = rest.removeprefix("in ").strip()

    def hex_of(city: str) -> str:
        try:
            return game.board.city_hex(city).lower()
        except Exception:  # a city the board cannot place: match its id alone
            return ""

    return _one([a for a in moves if a.get("type") == "place_token"
                 and where in (_norm(a.get("city")), hex_of(str(a.get("city"))))], line)


def _dividend(moves: Sequence[dict[str, Any]], kind: str, line: str) -> Resolved:
    return _one([a for a in moves if a.get("type") == "dividend" and a.get("kind") == kind], line)


def _typed(kind: str, test: Callable[[dict[str, Any]], bool] = lambda a: True) -> Callable[..., Resolved]:
    def resolve(game: Game, moves: Sequence[dict[str, Any]], rest: str, line: str) -> Resolved:
        return _one([a for a in moves if a.get("type") == kind and test(a)], line)
    return resolve


def resolve(line: str, moves: Sequence[dict[str, Any]], game: Game, player_id: int,
            numbers: Sequence[dict[str, Any]] | None) -> Resolved:
    """One line → one action. `numbers` is the list the email numbered, or None once it no longer
    applies (the game has moved on since the email)."""
    text = _norm(line)
    if text.isdigit():
        if numbers is None:
            return Resolved(error=f"\u201c{line}\u201d: numbers refer to the list in the email, which no longer "
                                  "applies; use words")
        n = int(text)
        if not 1 <= n <= len(numbers):
            return Resolved(error=f"there is no move {n} (the email listed {len(numbers)})")
        return Resolved(dict(numbers[n - 1]))
    me = {"entity": player_id, "entity_type": "player"}
    if text in ("undo", "redo"):
        return Resolved({"type": text, **me})
    if text in ("stop orders", "stop order", "stop standing orders"):
        return Resolved({"type": "program_disable", **me, "reason": "user"})
    verb, _, rest = text.partition(" ")
    rest = rest.strip()
    if verb == "pass" and not rest:
        return _one([a for a in moves if a.get("type") == "pass"], line)
    if verb in ("payout", "pay", "withhold", "half") and rest in ("", "out", "dividend"):
        return _dividend(moves, "payout" if verb.startswith("pay") else verb, line)
    if verb == "run" and rest in ("", "routes", "suggested"):
        return _one([a for a in moves if a.get("type") == "run_routes"], line)
    handlers: dict[str, Callable[..., Resolved]] = {
        "buy": lambda g, m, r, li: _buy(g, m, r, li),
        "sell": lambda g, m, r, li: _sell(g, m, r, li),
        "par": lambda g, m, r, li: _par(m, r, li),
        "start": lambda g, m, r, li: _par(m, r, li),
        "bid": lambda g, m, r, li: _bid(m, r, li),
        "lay": lambda g, m, r, li: _lay(m, r, li),
        "token": _token,
        "place": lambda g, m, r, li: _token(g, m, r.removeprefix("token").strip(), li),
        "choose": _typed("choose", lambda a: _norm(a.get("choice")) == rest),
        "merge": _typed("merge", lambda a: _norm(a.get("corporation")) == rest.removeprefix("with ")),
        "scrap": _typed("scrap_train", lambda a: _norm(a.get("train")) == rest.removeprefix("train ")),
    }
    if verb in handlers and rest:
        return handlers[verb](game, moves, rest, line)
    from .render import move_text  # the words of the email itself are understood too

    sources = share_sources(game)
    words = [_norm(move_text(game, a, sources)) for a in moves]
    said = [a for a, w in zip(moves, words, strict=True) if w == text]
    if not said:  # the start of a move's words, when only one move starts so ("buys 10% of lnwr from the ipo")
        said = [a for a, w in zip(moves, words, strict=True) if w.startswith(text)]
        said = said if len(said) == 1 else []
    if said:
        return Resolved(dict(said[0]))
    return Resolved(error=f"\u201c{line}\u201d is not a move I understand")

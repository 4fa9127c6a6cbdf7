"""Payload shapes: the Standard Webhooks JSON envelope, Discord and Slack incoming-webhook bodies, and the
one-line text that email and chat share. Rendered once when scheduled, so every retry sends identical bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from . import events
from .events import Notification

FORMATS = ("standard", "discord", "slack")
DISCORD_LIMIT = 2000


def game_link(base_url: str, game_id: str | None) -> str:
    return f"{base_url}/games/{game_id}" if game_id else base_url


def _name(names: Mapping[str, str], pid: str) -> str:
    return names.get(pid, pid)


def _game(n: Notification) -> str:
    label = f"game {n.game_id}" if n.game_id else "your games"
    return f"{label} ({n.title})" if n.title else label


ANSWERS = {"vote": "vote extend, substitute (naming a player) or open the seat", "undo": "accept or decline",
           "redo": "accept or decline", "seat_claim": "accept or decline", "end_game": "accept or decline",
           "purchase": "accept or decline"}


def ask_sentence(d: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """What the table asks (a `table.asks` notification's data), as the page and the mails say it."""
    by = d.get("by")
    who = _name(names, str(by)) if by is not None else "someone"
    ask = d.get("ask")
    if ask == "vote":
        return f"The table votes on {who}'s turn, whose time ran out"
    if ask in ("undo", "redo"):
        target = d.get("target")
        what = "the last move" if target is None else "every move" if target == 0 else f"back to move {target}"
        return f"{who} asks to {ask} {what if ask == 'undo' else 'the undone moves'}"
    if ask == "seat_claim":
        return f"{d.get('name') or 'A new player'} asks to take over {who}'s seat"
    if ask == "end_game":
        return f"{who} proposes to end the game now"
    if ask == "purchase":
        move = d.get("move") or {}
        what = move.get("company") or (f"train {move['train']}" if move.get("train") else "a holding of yours")
        return f"{who} proposes that {move.get('entity', 'his corporation')} buys {what} for {move.get('price', '?')}"
    return "The table asks you"


def text_line(n: Notification, names: Mapping[str, str]) -> str:
    """A short human sentence: the whole of a chat message, one line of an email."""
    d = n.data
    if n.event_type == events.TURN:
        where = ", ".join(str(x) for x in (d.get("round"), d.get("phase") and f"phase {d['phase']}") if x)
        who = ", ".join(_name(names, p) for p in n.recipients)
        return f"{who}: it is your turn in {_game(n)}" + (f" — {where}." if where else ".")
    if n.event_type == events.GAME_STARTED:
        return f"{_game(n).capitalize()} has started."
    if n.event_type == events.GAME_FINISHED:
        return f"{_game(n).capitalize()} has finished."
    if n.event_type == events.REFUSED:
        return f"Your queued action in {_game(n)} was refused: {d.get('reason') or 'no reason given'}."
    if n.event_type == events.MENTIONED:
        author = d.get("author")
        who = _name(names, author) if author else "Someone"
        text = str(d.get("text", ""))
        text = text if len(text) <= 300 else text[:297] + "..."
        return f"{who} mentioned you in {_game(n)}: \u201c{text}\u201d"
    if n.event_type == events.ASKS:
        return f"{ask_sentence(d, names)} in {_game(n)}: {ANSWERS.get(str(d.get('ask')), 'answer')} by {d.get('deadline')}."
    if n.event_type == events.REMINDER and d.get("deadline"):  # the game clock's, escalating
        urgency = ("", "Second reminder: ", "Last call: ")[min(int(d.get("step") or 0), 2)]
        return f"{urgency or 'Reminder: '}your time to move in {_game(n)} runs out at {d['deadline']}."
    if n.event_type == events.REMINDER:
        games = d.get("games") or []
        listed = ", ".join(f"game {g['game_id']}" + (f" ({g['title']})" if g.get("title") else "") for g in games)
        return f"Reminder: you have had the turn for a while in {listed or _game(n)}."
    return f"Update in {_game(n)}."


def standard_body(n: Notification, names: Mapping[str, str], link: str, recipients: Sequence[str]) -> dict[str, Any]:
    acting = [str(p) for p in n.data.get("acting", [])]
    data: dict[str, Any] = {
        "game": {"id": n.game_id, "title": n.title, "link": link},
        "round": n.data.get("round"),
        "phase": n.data.get("phase"),
        "acting_players": [{"id": p, "name": _name(names, p)} for p in acting],
        "recipients": [{"id": p, "name": _name(names, p)} for p in recipients],
        "text": text_line(n, names),
    }
    for key in ("reason", "author", "result", "games", "step", "deadline", "ask", "ask_id", "by", "name", "target",
                "voters", "move"):
        if key in n.data:
            data[key] = n.data[key]
    if n.event_type == events.MENTIONED:
        data["message"] = n.data.get("text")
    return {"type": n.event_type, "timestamp": n.occurred_at.isoformat().replace("+00:00", "Z"), "data": data}


def render(
    n: Notification, fmt: str, names: Mapping[str, str], link: str, recipients: Sequence[str]
) -> str:
    """The exact request body for an endpoint of format `fmt`."""
    line = text_line(n, names)
    if fmt == "discord":
        content = f"{line}\n{link}"
        if len(content) > DISCORD_LIMIT:
            content = content[: DISCORD_LIMIT - 1] + "\u2026"
        body: dict[str, Any] = {"content": content, "username": "Railpost", "allowed_mentions": {"parse": []}}
    elif fmt == "slack":
        safe = line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        body = {"text": f"{safe} <{link}|Open the game>"}
    else:
        body = standard_body(n, names, link, recipients)
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False, default=str)

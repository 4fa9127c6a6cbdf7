"""Answering the table by email (docs/time-controls.md): the words of an answer, the block a mail carries for
each question the table asks the player, and the answer itself, taken through the same path as REST and the
page (services/play/pending.py).

An undo or redo request and a newcomer's claim of a seat are answered `accept` or `decline`; a vote at a
deadline `vote extend`, `vote substitute <player>` (a name or player id of the table) or `vote open`. Only the
first line of the reply counts; anything else is answered with what the question accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from services.notifier.payloads import ask_sentence
from services.play.pending import Ask

from .language import lines_of

ACCEPT = ("accept", "yes", "agree", "ok")
DECLINE = ("decline", "no", "refuse")
OPEN = ("open", "open seat", "open_seat", "open the seat")


@dataclass(frozen=True)
class Answer:
    """`accept` for a consent; `choice` (and `substitute`) for a vote; `error` when the words do not fit."""

    accept: bool | None = None
    choice: str | None = None
    substitute: int | None = None
    error: str | None = None


def how_to(ask: Ask) -> str:
    if ask.kind == "vote":
        return "\u201cvote extend\u201d, \u201cvote substitute <player>\u201d or \u201cvote open\u201d"
    return "\u201caccept\u201d or \u201cdecline\u201d"


def read(body: str, ask: Ask, names: Mapping[int, str]) -> Answer:
    """The answer in a reply's first line (quoted lines and blanks skipped)."""
    lines = lines_of(body)
    if not lines:
        return Answer(error=f"I found no answer in your mail. Answer with {how_to(ask)}.")
    words = lines[0].lower().split()
    text = " ".join(words)
    if ask.kind != "vote":
        if text in ACCEPT:
            return Answer(accept=True)
        if text in DECLINE:
            return Answer(accept=False)
        return Answer(error=f"\u201c{lines[0]}\u201d is not an answer to this request. Answer with {how_to(ask)}.")
    if not words or words[0] != "vote":
        return Answer(error=f"\u201c{lines[0]}\u201d is not a vote. Answer with {how_to(ask)}.")
    rest = " ".join(words[1:])
    if rest == "extend":
        return Answer(choice="extend")
    if rest in OPEN:
        return Answer(choice="open_seat")
    if words[1:2] == ["substitute"]:
        who = " ".join(words[2:])
        if not who:
            return Answer(error="A substitute vote names the player who moves for the absent one: "
                                "\u201cvote substitute Ann\u201d.")
        by_name = {n.lower(): pid for pid, n in names.items() if pid in ask.voters}
        pid = by_name.get(who)
        if pid is None and who.isdigit() and int(who) in ask.voters:
            pid = int(who)
        if pid is None:
            choices = ", ".join(names.get(p, str(p)) for p in ask.voters)
            return Answer(error=f"\u201c{who}\u201d cannot move for {names.get(ask.by or 0, 'the absent player')}: "
                                f"name one of {choices}.")
        return Answer(choice="substitute", substitute=pid)
    return Answer(error=f"\u201c{lines[0]}\u201d is not a vote. Answer with {how_to(ask)}.")


def block(ask: Ask, names: Mapping[int, str], address: str, on_move: bool) -> str:
    """What a mail says about one question the table asks its reader."""
    data = {"ask": ask.kind, "by": ask.by, "target": ask.target, "name": ask.name, "move": ask.move}
    lines = [f"{ask_sentence(data, {str(k): v for k, v in names.items()})}; you are asked to answer by "
             f"{ask.closes.replace(microsecond=0).isoformat()}."]
    if ask.kind == "vote":
        others = ", ".join(names.get(p, str(p)) for p in ask.voters)
        lines.append(f"Vote \u201cextend\u201d (more time), \u201csubstitute <player>\u201d (that player, one of "
                     f"{others}, moves for them this turn) or \u201copen\u201d (their seat is offered to a new player).")
    lines.append(f"Answer {how_to(ask)} in a mail to" + (" (not the move address below)" if on_move else ""))
    lines.append(f"  {address}")
    return "\n".join(lines)


def status(ask: Ask, names: Mapping[int, str]) -> str:
    """A question the table asks others than the mail's reader: where it stands."""
    data = {"ask": ask.kind, "by": ask.by, "target": ask.target, "name": ask.name, "move": ask.move}
    waiting = ", ".join(names.get(p, str(p)) for p in ask.players)
    return (f"Pending: {ask_sentence(data, {str(k): v for k, v in names.items()})}; waiting for {waiting} "
            f"(until {ask.closes.replace(microsecond=0).isoformat()}).")

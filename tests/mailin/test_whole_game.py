"""A whole two-player 1840 game played by email only, from set-up to the end: each move is a number
chosen from the newest mail that carries a reply address (the notifier's turn mail or the receiver's
answer), sent over SMTP to the receiver; nothing else moves the game."""

from __future__ import annotations

import random
import re
import time

from .conftest import Site, version

# lean towards what moves a game on (as the 1840 soak does), read from the words of each move
WEIGHTS = {"starts": 6.0, "buys": 3.0, "sells": 0.4, "passes": 1.0, "bids": 2.0, "merges": 3.0, "lay": 2.5,
           "place": 1.5, "removes": 0.3, "runs": 10.0, "dividend": 5.0, "pays": 5.0, "withholds": 5.0,
           "scraps": 0.3, "assigns": 2.0, "chooses": 1.0}
LINE = re.compile(r"^\s{0,2}(\d+)  (?:[^:]+: )?(\S+)", re.M)


def _weight(word: str) -> float:
    return WEIGHTS.get(word.lower().rstrip(":"), 1.0)


def test_a_whole_1840_game_by_email(site: Site) -> None:
    gid = site.game("1840", ["Ann", "Bob"])
    rng = random.Random(11)
    moves = 0
    started = time.monotonic()
    while site.state(gid)["status"] == "active":
        site.notifier.step()
        with site.sink.lock:
            mail = next(m for m in reversed(site.sink.messages) if m["Reply-To"])
        body = mail.get_content()
        listed = body[body.index("Your moves:"):]
        choices = [(int(n), word) for n, word in LINE.findall(listed)]
        number = rng.choices([n for n, _ in choices], [_weight(w) for _, w in choices])[0]
        name = next(n for n, p in site.players.items() if p["email"] == str(mail["To"]))
        before = version(site, gid)
        site.reply(name, str(mail["Reply-To"]), f"{number}\n")
        assert version(site, gid) > before, site.sink.messages[-1].get_content()
        moves += 1
        assert moves < 1500 and time.monotonic() - started < 240, "the game did not end"
    site.notifier.step()
    assert site.state(gid)["status"] == "finished"
    for name in ("Ann", "Bob"):
        assert any("has finished" in m.get_content() for m in site.sink.to(site.players[name]["email"]))
    print(f"1840 by email: {moves} moves in {time.monotonic() - started:.1f} s")

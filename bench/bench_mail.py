"""What a player waits for, the mail: a turn mail's time from the move's commit to its hand-over to the SMTP
server (issue 47).

`make run`'s embedded default (`bench/embedded.py`: gateway, notifier and email-moves receiver as `make run`
starts them, so every turn mail carries the player's moves) sends through an aiosmtpd sink in this process,
which notes when each message is handed over (its DATA accepted). The people's 1825, 1828 and 1840 games
are imported at 35% and 65% of their length, every seat's player subscribed by email (immediate mode); the record's next
moves are posted through REST by their players, one at a time, and after each the bench waits until the
notifier has sent what it queued, so each mail is one move's.

Per mail, from the notifier's own rows: commit = the move's outbox row (`outbox.created_at`, written in the
move's transaction), queued = its mail line (`notifier_mail_queue.created_at`, the fan-out), picked = the
batch's start (`sent_at`, read before the mail is built), handed = the sink's receipt. The notifier waits
on purpose between queued and picked: each line is due `NOTIFIER_MAIL_BATCH_SECONDS` (60 s as deployed)
after it is queued, so a minute's turns become one mail, and due mails are flushed once a second
(`services.notifier.service.MAIL_FLUSH_SECONDS`); that is the wait, the rest is the work. Two phases:
  deployed — the 60 s window: one move per game, every mail's whole time;
  no window — NOTIFIER_MAIL_BATCH_SECONDS=0, the stack restarted on the same store: `MAILS` moves' mails.
"""

from __future__ import annotations

import email
import email.policy
import os
import re
import shutil
import statistics
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from aiosmtpd.controller import Controller

from bench.bench_service import scripted_actions
from bench.embedded import Site, free_port, import_at, load_record
from services.notifier import events
from services.notifier.service import MAIL_FLUSH_SECONDS
from services.notifier.settings import NotifierSettings
from services.notifier.tables import mail_queue, tracking

MAILS = int(os.environ.get("RAILPOST_BENCH_MAILS", "100"))
TIMEOUT = 120.0  # one move's mail, at most (the deployed window is 60 s)
TITLES = ("1825", "1828", "1840")
SHARES = (0.35, 0.65)  # where in each game its moves are played
MSGID = re.compile(r"railpost\.(\d+)@")


class Sink:
    """The SMTP server: each message's queue id (its Message-ID) and when its DATA was accepted."""

    def __init__(self) -> None:
        self.handed: dict[int, float] = {}
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd hook
        at = time.time()
        msg = email.message_from_bytes(bytes(envelope.original_content or envelope.content),
                                       policy=email.policy.default)
        found = MSGID.search(str(msg["Message-ID"]))
        if found:
            with self.lock:
                self.handed[int(found.group(1))] = at
        return "250 OK"


@dataclass
class Game:
    """An imported game and the recorded moves still to post, with the seat token of each player."""

    title: str
    game_id: int
    version: int
    script: list[tuple[int, dict[str, Any]]]
    tokens: dict[int, str]
    next: int = 0


@dataclass
class Mail:
    commit: float
    queued: float
    due: float
    picked: float
    handed: float

    @property
    def total(self) -> float:
        return self.handed - self.commit

    @property
    def wait(self) -> float:
        return self.picked - self.queued

    @property
    def work(self) -> float:
        return self.total - self.wait


@dataclass
class Phase:
    name: str
    mails: list[Mail] = field(default_factory=list)
    moves: int = 0


def _ts(value: datetime) -> float:
    return value.timestamp()


def clean_window(actions: list[dict[str, Any]], start: int, length: int, least: int = 30) -> tuple[int, int]:
    """The first stretch at or after `start` of at least `least` actions (up to `length`) without an undo
    or redo (which would need the other players' consent through REST): its start and length."""
    at = start
    while at < len(actions) - least:
        n = 0
        while at + n < len(actions) and n < length and actions[at + n].get("type") not in ("undo", "redo"):
            n += 1
        if n >= least:
            return at, n
        at += n + 1
    raise RuntimeError("no stretch without undo")


def script(record: dict[str, Any], at: int, length: int) -> list[tuple[int, dict[str, Any]]]:
    """(sender, action) for the record's `length` actions after `at` (`bench_service.scripted_actions`)."""
    return scripted_actions(record, at, length)


def prepare(site: Site, titles: tuple[str, ...], shares: tuple[float, ...], length: int) -> list[Game]:
    games = []
    for title, share in ((t, s) for t in titles for s in shares):
        record = load_record(title)
        at, n = clean_window(record["actions"], int(len(record["actions"]) * share), length)
        game_id, seats = import_at(site, record, at)
        tokens = {int(s["player_id"]): s["token"] for s in seats}
        for pid, token in tokens.items():
            r = site.api("PUT", "/notifier/subscriptions/default", token,
                         json={"channel": "email", "email": f"p{pid}@players.test"})
            r.raise_for_status()
        version = site.api("GET", f"/games/{game_id}/state").json()["version"]
        games.append(Game(title, game_id, version, script(record, at, n), tokens))
    return games


def post_next(site: Site, game: Game) -> None:
    sender, action = game.script[game.next]
    r = site.api("POST", f"/games/{game.game_id}/actions?wait=10", game.tokens[sender],
                 json={"action": action, "expected_version": game.version},
                 headers={"Idempotency-Key": uuid.uuid4().hex})
    if r.status_code != 200 or r.json().get("status") != "applied":
        raise RuntimeError(f"{game.title} game {game.game_id} v{game.version}: {r.status_code} {r.text[:300]}")
    game.next += 1
    game.version = site.api("GET", f"/games/{game.game_id}/state").json()["version"]


def _settled(engine: sa.Engine, queued_after: int, timeout: float, sent: bool = True) -> int:
    """Wait until the notifier has read every outbox row (and, with `sent`, sent every line queued after
    `queued_after`); returns the newest queue id."""
    deadline = time.monotonic() + timeout
    while True:
        with engine.connect() as conn:
            newest = conn.execute(sa.text("SELECT coalesce(max(position), 0) FROM outbox")).scalar_one()
            unnumbered = conn.execute(sa.text("SELECT count(*) FROM outbox WHERE position IS NULL")).scalar_one()
            read = conn.execute(sa.select(tracking.c.position)).scalar() or 0
            unsent = conn.execute(sa.select(sa.func.count()).select_from(mail_queue).where(
                mail_queue.c.sent_at.is_(None), mail_queue.c.id > queued_after)).scalar_one()
            last = conn.execute(sa.select(sa.func.coalesce(sa.func.max(mail_queue.c.id), 0))).scalar_one()
        if not unnumbered and read >= newest and not (sent and unsent):
            return int(last)
        if time.monotonic() > deadline:
            raise TimeoutError(f"the notifier did not settle within {timeout:.0f} s (read {read} of {newest}, "
                               f"{unsent} unsent)")
        time.sleep(0.05)


def collect(engine: sa.Engine, sink: Sink, after: int, upto: int) -> list[Mail]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(mail_queue.c.id, mail_queue.c.source, mail_queue.c.created_at, mail_queue.c.due_at,
                      mail_queue.c.sent_at)
            .where(mail_queue.c.id > after, mail_queue.c.id <= upto, mail_queue.c.event_type == events.TURN)
        ).all()
        commits = dict(conn.execute(sa.text("SELECT position, created_at FROM outbox")).all())
    out = []
    with sink.lock:
        handed = dict(sink.handed)
    for row in rows:
        if row.id in handed and row.source.startswith("o"):
            out.append(Mail(float(commits[int(row.source[1:])]), _ts(row.created_at), _ts(row.due_at),
                            _ts(row.sent_at), handed[row.id]))
    return out


def play(site: Site, engine: sa.Engine, sink: Sink, games: list[Game], phase: Phase, want: int) -> None:
    """Post moves (round robin over the games) until `want` mails were handed over; after each move wait for
    the notifier to settle, so no mail gathers two moves."""
    last = _settled(engine, 0, TIMEOUT)
    while len(phase.mails) < want:
        live = [g for g in games if g.next < len(g.script)]
        if not live:
            break
        for game in live:
            post_next(site, game)
            phase.moves += 1
            newest = _settled(engine, last, TIMEOUT)
            got = collect(engine, sink, last, newest)
            phase.mails += got
            last = newest
            if len(phase.mails) >= want:
                break


def play_deployed(site: Site, engine: sa.Engine, sink: Sink, games: list[Game], phase: Phase) -> None:
    """The 60 s window: in each game post moves until one queues a turn mail, then wait for them all."""
    last = _settled(engine, 0, TIMEOUT)
    for game in games:
        before = _turn_lines(engine, last)
        while game.next < len(game.script):
            post_next(site, game)
            phase.moves += 1
            _settled(engine, last, TIMEOUT, sent=False)
            if _turn_lines(engine, last) > before:
                break
    newest = _settled(engine, last, TIMEOUT)
    phase.mails += collect(engine, sink, last, newest)


def _turn_lines(engine: sa.Engine, after: int) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(mail_queue).where(
            mail_queue.c.id > after, mail_queue.c.event_type == events.TURN)).scalar_one())


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def describe(phase: Phase) -> str:
    m = phase.mails

    def stat(values: list[float]) -> str:
        return f"p50 {statistics.median(values) * 1000:.0f} / p95 {pct(values, 95) * 1000:.0f}"

    return (f"mail [{phase.name}] {len(m)} turn mails from {phase.moves} moves, ms from commit to the SMTP "
            f"server: {stat([x.total for x in m])}; of it the deliberate wait (queued -> picked) "
            f"{stat([x.wait for x in m])}, the work {stat([x.work for x in m])} (commit -> queued "
            f"{stat([x.queued - x.commit for x in m])}, picked -> handed {stat([x.handed - x.picked for x in m])})")


def run(workdir: Path, mails: int, deployed: bool = True, titles: tuple[str, ...] = TITLES,
        shares: tuple[float, ...] = SHARES) -> list[Phase]:
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    site = Site(workdir, env={"SMTP_HOST": "127.0.0.1", "SMTP_PORT": str(controller.port),
                              "SMTP_FROM": "Railpost <rp@bench.test>", "MAILIN_ADDRESS": "moves@bench.test"})
    phases = []
    engine = None
    try:
        if not deployed:
            site.env["NOTIFIER_MAIL_BATCH_SECONDS"] = "0"
        site.start()
        engine = sa.create_engine(site.database_url)
        games = prepare(site, titles, shares, max(30, mails))
        if deployed:
            phase = Phase(f"deployed: {NotifierSettings.mail_batch_seconds:.0f} s window, "
                          f"flush every {MAIL_FLUSH_SECONDS:.0f} s")
            play_deployed(site, engine, sink, games, phase)
            phases.append(phase)
            site.restart(NOTIFIER_MAIL_BATCH_SECONDS="0")
        phase = Phase(f"no window: NOTIFIER_MAIL_BATCH_SECONDS=0, flush every {MAIL_FLUSH_SECONDS:.0f} s")
        play(site, engine, sink, games, phase, mails)
        phases.append(phase)
        return phases
    finally:
        if engine is not None:
            engine.dispose()
        site.stop()
        controller.stop()


def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="railpost-mail-"))
    try:
        for phase in run(workdir, MAILS):
            print(describe(phase), f"| load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

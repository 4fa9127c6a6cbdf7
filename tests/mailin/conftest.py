"""A whole email-moves deployment in one test process, every piece real: the gateway app (embedded queue
on a migrated SQLite file), the notifier sending through a real SMTP sink (aiosmtpd), and the mailin
receiver on a loopback port that the tests talk to with smtplib."""

from __future__ import annotations

import email
import email.policy
import os
import smtplib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from services.config import Config
from services.gateway import create_app
from services.mailin.__main__ import build
from services.mailin.handler import MailHandler
from services.mailin.outgoing import TurnMailer
from services.mailin.server import MailinController
from services.mailin.settings import MailinSettings
from services.notifier.db import make_engine
from services.notifier.service import Notifier
from services.notifier.settings import NotifierSettings, SmtpSettings
from shared.eventstore import migrate

BASE = "http://railpost.test"
SECRET = "test-secret-of-the-mail-tests"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Sink:
    """The SMTP server the notifier and the receiver send through: it keeps every message."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd hook
        msg = email.message_from_bytes(bytes(envelope.original_content or envelope.content),
                                       policy=email.policy.default)
        with self.lock:
            self.messages.append(msg)  # type: ignore[arg-type]
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m in self.messages if str(m["To"]) == address]


@dataclass
class Site:
    client: Any  # the gateway's Flask test client
    notifier: Notifier
    sink: Sink
    handler: MailHandler
    mailin: MailinSettings
    port: int
    players: dict[str, dict[str, Any]] = field(default_factory=dict)
    seats: dict[int, dict[str, Any]] = field(default_factory=dict)  # game -> name -> seat token

    def player(self, name: str) -> dict[str, Any]:
        if name not in self.players:
            made = self.client.post("/players", json={"name": name}).json
            headers = {"Authorization": f"Bearer {made['token']}"}
            address = f"{name.lower()}@players.test"
            put = self.client.put("/notifier/subscriptions/default", headers=headers,
                                  json={"channel": "email", "email": address})
            assert put.status_code == 200, put.json
            self.players[name] = {**made, "email": address}
        return self.players[name]

    def game(self, title: str, names: list[str], options: list[str] | None = None) -> int:
        made = self.client.post("/games", json={"title": title, "seats": len(names), "seed": 7,
                                                "options": options or []})
        assert made.status_code == 201, made.json
        gid = int(made.json["id"])
        self.seats[gid] = {}
        for name in names:
            p = self.player(name)
            joined = self.client.post(f"/games/{gid}/join", json={"name": name, "player_id": p["id"]},
                                      headers={"Authorization": f"Bearer {p['token']}"})
            assert joined.status_code in (200, 201), joined.json
            self.seats[gid][name] = joined.json["token"]
        first = self.seats[gid][names[0]]
        assert self.client.post(f"/games/{gid}/start", headers={"Authorization": f"Bearer {first}"}).status_code == 200
        return gid

    def state(self, gid: int) -> dict[str, Any]:
        return self.client.get(f"/games/{gid}/state").json

    def name_of(self, player_id: int) -> str:
        return next(n for n, p in self.players.items() if p["id"] == player_id)

    def acting(self, gid: int) -> list[str]:
        return [self.name_of(p) for p in self.state(gid)["acting_players"]]

    def rest_move(self, gid: int, name: str, pick: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> None:
        headers = {"Authorization": f"Bearer {self.seats[gid][name]}"}
        legal = self.client.get(f"/games/{gid}/legal-actions", headers=headers).json
        posted = self.client.post(f"/games/{gid}/actions?wait=5", json={
            "action": pick(legal["actions"]), "expected_version": legal["version"]},
            headers={**headers, "Idempotency-Key": f"rest-{legal['version']}"})
        assert posted.status_code == 200, posted.json

    def mails_to(self, name: str, count: int, timeout: float = 10.0) -> list[EmailMessage]:
        """Step the notifier until `name` has received `count` mails."""
        address = self.players[name]["email"]
        deadline = time.monotonic() + timeout
        while True:
            self.notifier.step()
            got = self.sink.to(address)
            if len(got) >= count or time.monotonic() > deadline:
                return got
            time.sleep(0.05)

    def reply(self, name: str, to: str, body: str, *, subject: str = "Re: your turn", message_id: str | None = None,
              sender: str | None = None, headers: dict[str, str] | None = None, raw: bytes | None = None,
              mail_from: str | None = None) -> str:
        """A reply over SMTP to the receiver, as a mail client sends it; returns its Message-ID."""
        address = sender or self.players[name]["email"]
        msg = EmailMessage()
        msg["From"] = f"{name} <{address}>"
        msg["To"] = to
        msg["Subject"] = subject
        msg["Message-ID"] = message_id or make_msgid(domain="players.test")
        for key, value in (headers or {}).items():
            msg[key] = value
        msg.set_content(body)
        with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as smtp:
            smtp.sendmail(address if mail_from is None else mail_from, [to], raw or msg.as_bytes())
        return str(msg["Message-ID"])


def version(site: Site, gid: int) -> int:
    return int(site.state(gid)["version"])


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    url = f"sqlite:///{tmp_path / 'mail.sqlite3'}"
    migrate(url)
    config = Config(database_url=url, redis_url=None, admin_token="adm", public_url=BASE,
                    sweep_interval_seconds=0.5, signin_secret=SECRET)  # as deployed: the reply secret
    sink = Sink()
    sink_port = free_port()
    sink_controller = Controller(sink, hostname="127.0.0.1", port=sink_port)
    sink_controller.start()
    mailin = MailinSettings(secret=SECRET, address="moves@play.test", port=free_port(), max_bytes=64 * 1024,
                            rate_per_hour=1000, wait_seconds=10)
    notifier_settings = NotifierSettings(database_url=url, public_base_url=BASE, mail_batch_seconds=0,
                                         smtp=SmtpSettings(host="127.0.0.1", port=sink_port,
                                                           sender="Railpost <rp@play.test>"))
    engine = make_engine(url)
    notifier = Notifier(engine, notifier_settings,
                        blocks=TurnMailer.open(url, mailin, BASE))
    handler = build(config, notifier_settings, mailin)
    receiver = MailinController(handler, mailin)
    receiver.start()
    app = create_app(config)
    try:
        yield Site(app.test_client(), notifier, sink, handler, mailin, mailin.port)
    finally:
        receiver.stop()
        sink_controller.stop()
        handler.dispatcher.close()
        app.extensions["railpost"].dispatcher.close()
        engine.dispose()


# -- a real IMAP server: Debian's dovecot, on a loopback port, with one mailbox ----------------------------
DOVECOT_CONF = """base_dir = {root}/run
state_dir = {root}/run/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:~/Maildir
first_valid_uid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
"""


@dataclass(frozen=True)
class Imap:
    host: str
    port: int
    user: str
    password: str


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Imap]:
    """dovecot in the foreground with a configuration of its own (infra/ensure-services.sh installs
    Debian's dovecot-imapd). Mail is stored as the `mail` user: dovecot never serves mail as root."""
    import pwd
    import shutil
    import subprocess
    import tempfile

    binary = shutil.which("dovecot") or "/usr/sbin/dovecot"
    assert Path(binary).exists(), "dovecot is missing: run infra/ensure-services.sh (installs dovecot-imapd)"
    root = Path(tempfile.mkdtemp(prefix="railpost-dovecot-"))
    root.chmod(0o755)
    user = pwd.getpwnam("mail")
    (root / "home").mkdir()
    os.chown(root / "home", user.pw_uid, user.pw_gid)
    (root / "run" / "state").mkdir(parents=True)
    (root / "passwd").write_text("moves@play.test:{PLAIN}imap-pass\n")
    port = free_port()
    (root / "dovecot.conf").write_text(DOVECOT_CONF.format(root=root, port=port, uid=user.pw_uid,
                                                           gid=user.pw_gid))
    proc = subprocess.Popen([binary, "-F", "-c", str(root / "dovecot.conf")])
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, (root / "dovecot.log").read_text()
                time.sleep(0.1)
        yield Imap("127.0.0.1", port, "moves@play.test", "imap-pass")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        shutil.rmtree(root, ignore_errors=True)

"""The IMAP poller against a real dovecot: a reply appended to the mailbox is played and answered and
leaves the box; machine mail, bounces and a replayed Message-ID change nothing."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid

from imap_tools import MailBoxUnencrypted

from services.mailin.imap import ImapPoller, ImapSettings

from .conftest import Imap, Site, version


def _mail(site: Site, name: str, to: str, body: str, **headers: str) -> bytes:
    msg = EmailMessage()
    msg["Return-Path"] = headers.pop("Return_Path", f"<{site.players[name]['email']}>")
    msg["From"] = site.players[name]["email"]
    msg["To"] = to
    msg["Subject"] = "Re: your turn"
    msg["Message-ID"] = headers.pop("Message_ID", make_msgid(domain="players.test"))
    for key, value in headers.items():
        msg[key.replace("_", "-")] = value
    msg.set_content(body)
    return msg.as_bytes()


def test_imap_poller_plays_replies_from_a_mailbox(site: Site, dovecot: Imap) -> None:
    gid = site.game("1840", ["Ann", "Bob"])
    name = site.acting(gid)[0]
    reply_to = str(site.mails_to(name, 1)[-1]["Reply-To"])
    poller = ImapPoller(site.handler, ImapSettings(dovecot.host, dovecot.port, dovecot.user, dovecot.password,
                                                   ssl=False, interval=0.1), max_bytes=64 * 1024)
    v = version(site, gid)
    with MailBoxUnencrypted(dovecot.host, dovecot.port).login(dovecot.user, dovecot.password) as box:
        box.append(_mail(site, name, reply_to, "1", Auto_Submitted="auto-replied"))
        box.append(_mail(site, name, reply_to, "1", Return_Path="<>"))  # a bounce
        box.append(_mail(site, name, reply_to, "1" + "x" * 70_000))  # too big
    answers = len(site.sink.to(site.players[name]["email"]))
    assert poller.poll_once() == 3
    assert version(site, gid) == v and len(site.sink.to(site.players[name]["email"])) == answers

    reply = _mail(site, name, reply_to, "1\n\n> quoted turn mail")
    with MailBoxUnencrypted(dovecot.host, dovecot.port).login(dovecot.user, dovecot.password) as box:
        box.append(reply)
    assert poller.poll_once() == 1
    assert version(site, gid) == v + 1
    assert site.sink.to(site.players[name]["email"])[-1].get_content().startswith("Played \u201c1\u201d: ")
    with MailBoxUnencrypted(dovecot.host, dovecot.port).login(dovecot.user, dovecot.password) as box:
        assert list(box.fetch()) == []  # handled mail leaves the box
        box.append(reply)  # the same mail again
    assert poller.poll_once() == 1
    assert version(site, gid) == v + 1

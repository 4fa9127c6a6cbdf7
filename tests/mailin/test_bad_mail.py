"""Mail that must change nothing: no token, a forged token, another seat's token, a stale version, a
replayed Message-ID, auto-replies, bounces, a huge mail, unreadable bytes; and what is still played: an
HTML-only reply, several moves stopping at the first refusal."""

from __future__ import annotations

import smtplib

import pytest

from services.mailin import tokens
from services.mailin.handler import RateLimit

from .conftest import Site, version


@pytest.fixture
def table(site: Site) -> tuple[Site, int, str]:
    gid = site.game("1840", ["Ann", "Bob"])
    now = site.acting(gid)[0]
    mail = site.mails_to(now, 1)[-1]
    return site, gid, str(mail["Reply-To"])


def _unchanged(site: Site, gid: int, name: str, v: int, mails: int) -> None:
    assert version(site, gid) == v
    assert len(site.sink.to(site.players[name]["email"])) == mails  # not answered either


def test_mail_without_a_valid_token_changes_nothing(table: tuple[Site, int, str]) -> None:
    site, gid, reply_to = table
    name = site.acting(gid)[0]
    v, n = version(site, gid), len(site.sink.to(site.players[name]["email"]))
    site.reply(name, "moves@play.test", "1")  # no token
    forged = tokens.sign("another-secret", gid, site.players[name]["id"], v)
    site.reply(name, f"moves+{forged}@play.test", "1")
    site.reply(name, reply_to.replace("-", "-x", 1), "1")  # a token-shaped but broken tag
    other = "Bob" if name == "Ann" else "Ann"
    site.reply(other, reply_to, "1")  # the right token from another player's address
    site.reply(name, reply_to, "1", sender="mallory@evil.test")  # a stranger with a leaked address
    _unchanged(site, gid, name, v, n)
    with pytest.raises(smtplib.SMTPRecipientsRefused):  # we relay nothing
        site.reply(name, "someone@elsewhere.test", "1")


def test_machine_mail_is_never_read_as_moves(table: tuple[Site, int, str]) -> None:
    site, gid, reply_to = table
    name = site.acting(gid)[0]
    v, n = version(site, gid), len(site.sink.to(site.players[name]["email"]))
    site.reply(name, reply_to, "1", headers={"Auto-Submitted": "auto-replied"})
    site.reply(name, reply_to, "1", headers={"Precedence": "bulk"})
    site.reply(name, reply_to, "1", subject="Out of Office: back on Monday")
    site.reply(name, reply_to, "1", headers={"X-Autoreply": "yes"})
    site.reply(name, reply_to, "1", mail_from="")  # a bounce: null envelope sender
    report = (f"From: MAILER-DAEMON@players.test\r\nTo: {reply_to}\r\nMessage-ID: <dsn1@players.test>\r\n"
              "Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n"
              "--b\r\nContent-Type: text/plain\r\n\r\n1\r\n--b--\r\n").encode()
    site.reply(name, reply_to, "", raw=report, mail_from="")
    _unchanged(site, gid, name, v, n)


def test_replayed_stale_and_huge_mail_change_nothing(table: tuple[Site, int, str]) -> None:
    site, gid, reply_to = table
    name = site.acting(gid)[0]
    v = version(site, gid)
    mid = site.reply(name, reply_to, "1")
    assert version(site, gid) > v
    v, n = version(site, gid), len(site.sink.to(site.players[name]["email"]))
    site.reply(name, reply_to, "1", message_id=mid)  # the same mail again (a resend, a replay)
    _unchanged(site, gid, name, v, n)
    with pytest.raises(smtplib.SMTPException):  # over MAILIN_MAX_BYTES: refused during the SMTP dialogue
        site.reply(name, reply_to, "1\n" + "x" * 100_000)
    _unchanged(site, gid, name, v, n)
    acting = site.acting(gid)[0]
    site.reply(acting, tokens.reply_address(site.mailin, gid, site.players[acting]["id"], v - 1), "1")
    assert version(site, gid) == v  # stale: the email's list no longer applies
    answer = site.sink.to(site.players[acting]["email"])[-1].get_content()
    assert "moved on" in answer and "nothing was played" in answer and "Your moves:" in answer


def test_html_only_and_unreadable_mail(table: tuple[Site, int, str]) -> None:
    site, gid, reply_to = table
    name = site.acting(gid)[0]
    v = version(site, gid)
    me = site.players[name]["email"]
    garbage = (f"From: {me}\r\nTo: {reply_to}\r\nSubject: Re: turn\r\nMessage-ID: <bytes1@players.test>\r\n"
               "Content-Type: text/plain; charset=x-unknown-8bit\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
               ).encode() + b"\xff\xfe\x81 \xe9\xe8\r\n"
    site.reply(name, reply_to, "", raw=garbage)
    assert version(site, gid) == v
    assert "not a move I understand" in site.sink.to(me)[-1].get_content()
    html = (f"From: {me}\r\nTo: {reply_to}\r\nSubject: Re: turn\r\nMessage-ID: <html1@players.test>\r\n"
            "Content-Type: text/html; charset=windows-1252\r\n\r\n"
            "<html><body><div>1</div><div>Gr\xfc\xdfe</div><div class=\"gmail_quote\">On Tue, Railpost wrote:"
            "<blockquote>  2  Passes</blockquote></div></body></html>\r\n").encode("cp1252")
    fresh = tokens.reply_address(site.mailin, gid, site.players[name]["id"], v)
    site.reply(name, fresh, "", raw=html.replace(reply_to.encode(), fresh.encode()))
    assert version(site, gid) == v + 1
    assert site.sink.to(me)[-1].get_content().startswith("Played \u201c1\u201d: ")


def test_several_moves_stop_at_the_first_refusal(table: tuple[Site, int, str]) -> None:
    site, gid, reply_to = table
    name = site.acting(gid)[0]
    v = version(site, gid)
    site.reply(name, reply_to, "frobnicate\npass")
    assert version(site, gid) == v
    answer = site.sink.to(site.players[name]["email"])[-1].get_content()
    assert "Not played" in answer and "frobnicate" in answer and "Played" not in answer


def test_rate_limit_per_sender() -> None:
    now = [0.0]
    limit = RateLimit(2, timer=lambda: now[0])
    assert limit.allow("a@x") and limit.allow("a@x") and not limit.allow("a@x")
    assert limit.allow("b@x")
    now[0] = 3601.0
    assert limit.allow("a@x")


def test_authentication_results_only_of_our_mta() -> None:
    from services.mailin import message

    raw = (b"From: a@x.test\r\nTo: moves@play.test\r\nMessage-ID: <a1@x>\r\n"
           b"Authentication-Results: mx.evil.test; dkim=pass\r\n"
           b"Authentication-Results: mx.play.test; spf=fail smtp.mailfrom=x.test; dkim=pass header.d=x.test\r\n"
           b"\r\n1\r\n")
    got = message.read(raw, "a@x.test")
    assert message.authenticated(got, "mx.play.test")
    assert not message.authenticated(got, "mx.other.test")
    forged = message.read(raw.replace(b"mx.play.test; spf=fail smtp.mailfrom=x.test; dkim=pass",
                                      b"mx.play.test; dkim=fail"), "a@x.test")
    assert not message.authenticated(forged, "mx.play.test")


def test_several_moves_run_in_order(site: Site) -> None:
    gid = site.game("1825", ["Ann", "Bob", "Cyd"])
    name = site.acting(gid)[0]
    me = site.players[name]["email"]
    reply_to = str(site.mails_to(name, 1)[-1]["Reply-To"])
    v = version(site, gid)
    site.reply(name, reply_to, "par LNWR 100\nundo\nredo\nbuy LNWR\npass")
    answer = site.sink.to(me)[-1].get_content().replace("\r\n", "\n")
    # par, undo and redo are played; the turn has passed, so the buy is refused and the pass never tried
    assert version(site, gid) == v + 3, answer
    # each answer line names the move played in the history's words, beside what the player wrote
    assert (f"Played \u201cpar LNWR 100\u201d: {name} starts LNWR at 100.\n"
            f"Played \u201cundo\u201d: {name} undoes the last action.\n"
            f"Played \u201credo\u201d: {name} redoes the undone action.\nNot played:") in answer, answer
    assert "buy LNWR" in answer and "Played \u201cpass" not in answer


def test_lmtp_behind_postfix(table: tuple[Site, int, str]) -> None:
    """The same handler over LMTP (Postfix's `lmtp:` transport): the reply is played."""
    import dataclasses
    from email.message import EmailMessage

    from services.mailin.server import MailinController

    from .conftest import free_port

    site, gid, reply_to = table
    name = site.acting(gid)[0]
    settings = dataclasses.replace(site.mailin, lmtp=True, port=free_port())
    controller = MailinController(site.handler, settings)
    controller.start()
    try:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = site.players[name]["email"], reply_to, "Re: turn"
        msg["Message-ID"] = "<lmtp-1@players.test>"
        msg.set_content("1")
        v = version(site, gid)
        with smtplib.LMTP("127.0.0.1", settings.port) as lmtp:
            lmtp.sendmail(site.players[name]["email"], [reply_to], msg.as_bytes())
        assert version(site, gid) == v + 1
    finally:
        controller.stop()


def test_authentication_results_required_when_configured(table: tuple[Site, int, str]) -> None:
    import dataclasses

    site, gid, reply_to = table
    name = site.acting(gid)[0]
    site.handler.settings = dataclasses.replace(site.mailin, auth_serv_id="mx.play.test")
    v = version(site, gid)
    site.reply(name, reply_to, "1", headers={"Authentication-Results": "mx.evil.test; dkim=pass"})
    assert version(site, gid) == v  # another MTA's verdict is not ours
    site.reply(name, reply_to, "1", headers={"Authentication-Results": "mx.play.test; dkim=pass header.d=players.test"})
    assert version(site, gid) == v + 1


def test_a_batch_is_one_mail_per_game_each_with_its_reply_address(site: Site) -> None:
    first = site.game("1840", ["Ann", "Bob"])
    second = site.game("1840", ["Ann", "Bob"])
    mails = site.mails_to("Ann", 2)
    by_game = {str(m["References"]): m for m in mails}
    assert set(by_game) == {f"<railpost.game.{first}@play.test>", f"<railpost.game.{second}@play.test>"}
    for gid in (first, second):
        mail = by_game[f"<railpost.game.{gid}@play.test>"]
        if "Ann" in site.acting(gid):
            assert str(mail["Reply-To"]).startswith(f"moves+g{gid}p")


def test_a_failing_turn_block_costs_the_mail_its_moves_only(site: Site) -> None:
    class Broken:
        def block(self, game_id: str, player_id: str) -> None:
            raise RuntimeError("engine trouble")

    site.notifier.mailer.blocks = Broken()  # type: ignore[assignment]
    gid = site.game("1840", ["Ann", "Bob"])
    mail = site.mails_to("Ann", 1)[-1]
    assert f"/games/{gid}" in mail.get_content() and mail["Reply-To"] is None

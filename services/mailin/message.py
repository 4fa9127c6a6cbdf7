"""Reading an incoming mail: who sent it, to which addresses, whether a machine sent it, and the new text.

MIME (multipart, HTML-only, any charset) is the standard library's `email` package; quoted text and
signatures are removed by a kept reply-parsing library (`mail-parser-reply`), not by patterns of ours.
"""

from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

from mailparser_reply import EmailReplyParser

LANGUAGES = ["en", "de", "nl", "fr"]  # the reply headers ("On ... wrote:") of our players' mail clients
_AUTO_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
_AUTO_SUBJECTS = ("auto:", "automatic reply", "autoreply", "auto-reply", "out of office", "out of the office",
                  "abwesenheit", "afwezig", "undeliverable", "undelivered mail", "delivery status notification",
                  "mail delivery failed", "returned mail")
_DAEMONS = {"mailer-daemon", "postmaster", "noreply", "no-reply"}


@dataclass(frozen=True)
class Incoming:
    message_id: str
    sender: str  # From's address, lower case
    subject: str
    recipients: list[str]  # envelope recipients first, then the address headers that may carry a token
    automatic: str | None  # why this mail was sent by a machine (never a move), else None
    body: str  # what the author wrote: quoting and signature removed
    authentication: list[str] = field(default_factory=list)  # Authentication-Results headers


class _Text(HTMLParser):
    """HTML to text: block elements break lines, quoted blocks (blockquote, Gmail's quote) are left out."""

    BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "pre"}
    VOID = {"br", "img", "hr", "meta", "link", "input", "wbr", "col", "area", "base", "source"}  # no end tag

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skip = 0  # depth inside a quote or a script/style

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = " ".join(v or "" for k, v in attrs if k == "class")
        if self.skip or tag in ("blockquote", "script", "style") or "quote" in classes:
            self.skip += 0 if tag in self.VOID else 1
            return
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if self.skip:
            self.skip -= 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def _part_text(part: EmailMessage) -> str:
    try:
        return str(part.get_content())
    except (LookupError, UnicodeError, KeyError):  # an unknown or lying charset: read it as bytes
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload)


def body_text(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    text = _part_text(part)  # type: ignore[arg-type]
    if part.get_content_subtype() == "html":
        text = html_text(text)
    return EmailReplyParser(languages=LANGUAGES).parse_reply(text=text) or ""


def automatic(msg: EmailMessage, mail_from: str | None) -> str | None:
    """Bounces and auto-replies (RFC 3834, RFC 3464 and what common responders send instead). `mail_from`
    is the envelope sender (None when unknown: a mailbox message without Return-Path)."""
    auto = str(msg.get("Auto-Submitted", "")).strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    if str(msg.get("Precedence", "")).strip().lower() in _AUTO_PRECEDENCE:
        return "Precedence: " + str(msg.get("Precedence"))
    for header in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress", "List-Id"):
        if msg.get(header) is not None:
            return header
    if msg.get_content_type() == "multipart/report":
        return "delivery report"
    if mail_from is not None and mail_from.strip() in ("", "<>"):
        return "null sender (a bounce)"
    if parseaddr(str(msg.get("From", "")))[1].partition("@")[0].lower() in _DAEMONS:
        return "mailer daemon"
    subject = str(msg.get("Subject", "")).strip().lower()
    if subject.startswith(_AUTO_SUBJECTS):
        return "auto-reply subject"
    return None


def read(raw: bytes, mail_from: str | None = None, rcpt_tos: list[str] | None = None) -> Incoming:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    headers = [str(v) for h in ("Delivered-To", "X-Original-To", "To", "Cc") for v in msg.get_all(h, [])]
    reason = automatic(msg, mail_from)
    return Incoming(
        message_id=str(msg.get("Message-ID", "")).strip(),
        sender=parseaddr(str(msg.get("From", "")))[1].lower(),
        subject=str(msg.get("Subject", "")),
        recipients=list(rcpt_tos or []) + [a for _n, a in getaddresses(headers) if a],
        automatic=reason,
        body="" if reason else body_text(msg),
        authentication=[str(v) for v in msg.get_all("Authentication-Results", [])],
    )


def authenticated(incoming: Incoming, authserv_id: str) -> bool:
    """DKIM or SPF passed, as the named receiving MTA recorded it (RFC 8601); other MTAs' headers are not
    trusted (a sender can write any header)."""
    for header in incoming.authentication:
        serv, _, results = header.partition(";")
        if serv.strip().split()[0:1] == [authserv_id] and any(
                f"{kind}=pass" in results.lower() for kind in ("dkim", "spf")):
            return True
    return False

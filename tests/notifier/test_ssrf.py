"""The SSRF guard: address classes, scheme policy, DNS rebinding and redirects."""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest
import sqlalchemy as sa

from services.notifier.delivery import Claim, WebhookSender
from services.notifier.settings import UrlPolicy
from services.notifier.ssrf import UnsafeUrl, check_url
from services.notifier.tables import attempts
from services.timesource import SystemTime

from .conftest import seat_game, settings_for
from .helpers import subscribe

STRICT = UrlPolicy()
PUBLIC = "93.184.215.14"  # never contacted: the tests inject resolvers and socket openers


def fixed(*answers: str) -> Callable[[str, int], list[str]]:
    return lambda host, port: list(answers)


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.1.2.3", "172.16.0.9", "192.168.1.1", "169.254.169.254", "169.254.10.1", "0.0.0.0",
     "224.0.0.1", "100.64.0.1", "::1", "fd00:ec2::254", "fe80::1", "::", "ff02::1", "::ffff:127.0.0.1",
     "::ffff:10.0.0.1", "::127.0.0.1", "fc00::5"],
)
def test_internal_addresses_are_refused(address: str) -> None:
    with pytest.raises(UnsafeUrl):
        check_url("https://hooks.example.test/x", STRICT, fixed(address))


@pytest.mark.parametrize("address", ["169.254.169.254", "[fd00:ec2::254]", "[::ffff:169.254.169.254]", "10.0.0.1"])
def test_literal_addresses_are_refused_even_when_loopback_is_allowed(address: str) -> None:
    with pytest.raises(UnsafeUrl):
        check_url(f"http://{address}/latest/meta-data", UrlPolicy(allow_http=True, allow_loopback=True))


def test_any_bad_answer_taints_the_name() -> None:
    with pytest.raises(UnsafeUrl, match="private"):
        check_url("https://hooks.example.test/", STRICT, fixed(PUBLIC, "10.0.0.7"))


def test_https_only_by_default_and_no_credentials() -> None:
    with pytest.raises(UnsafeUrl, match="scheme"):
        check_url("http://hooks.example.test/", STRICT, fixed(PUBLIC))
    with pytest.raises(UnsafeUrl, match="scheme"):
        check_url("ftp://hooks.example.test/", STRICT, fixed(PUBLIC))
    with pytest.raises(UnsafeUrl, match="credentials"):
        check_url("https://u:p@hooks.example.test/", STRICT, fixed(PUBLIC))
    target = check_url("https://hooks.example.test/in?x=1", STRICT, fixed(PUBLIC))
    assert (target.address, target.port, target.path, target.host_header) == (PUBLIC, 443, "/in?x=1",
                                                                             "hooks.example.test")


def _claim(url: str) -> Claim:
    return Claim(1, "msg_test", 1, url, "{}", 0, ("whsec_" + "A" * 32,))


def test_rebinding_resolver_cannot_redirect_the_connection(tmp_path) -> None:
    """Resolve once, check, connect to that address: a second, different DNS answer is never used."""
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        return [PUBLIC] if len(calls) == 1 else ["127.0.0.1"]

    connected: list[tuple[str, int]] = []

    def opener(address: str, port: int, timeout: float) -> socket.socket:
        connected.append((address, port))
        raise ConnectionRefusedError("test opener: no network")

    settings = settings_for(f"sqlite:///{tmp_path}/unused.sqlite3", url_policy=STRICT)
    sender = WebhookSender(sa.create_engine("sqlite://"), settings, SystemTime(), rebinding, opener)
    result = sender.attempt(_claim("https://hooks.example.test/hook"))
    assert calls == ["hooks.example.test"]
    assert connected == [(PUBLIC, 443)]
    assert result.status is None and "ConnectionRefused" in (result.error or "")


def test_rebinding_to_internal_is_refused_before_connecting(tmp_path) -> None:
    connected: list[str] = []

    def opener(address: str, port: int, timeout: float) -> socket.socket:
        connected.append(address)
        raise AssertionError("must not connect")

    settings = settings_for(f"sqlite:///{tmp_path}/unused.sqlite3", url_policy=STRICT)
    sender = WebhookSender(sa.create_engine("sqlite://"), settings, SystemTime(), fixed("169.254.169.254"), opener)
    result = sender.attempt(_claim("https://hooks.example.test/hook"))
    assert connected == [] and (result.error or "").startswith("refused: ")


def test_pinned_address_is_used_with_the_names_host_header(recorder, engine, clock, receiver, make_notifier):
    """Live: the name resolves to 127.0.0.1 once, then to 127.0.0.2 where nothing listens."""
    calls: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["127.0.0.1"] if len(calls) == 1 else ["127.0.0.2"]

    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier(resolver=resolver)
    notifier.step()
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=f"http://127.0.0.1:{receiver.port}/h")
    with engine.begin() as conn:  # point the endpoint at a name only our resolver knows
        conn.execute(sa.text("UPDATE notifier_endpoints SET url = :u"),
                     {"u": f"http://hooks.example.test:{receiver.port}/h"})
    table.turn("Bob")
    notifier.step()
    assert len(receiver.requests) == 1
    assert receiver.requests[0].headers["host"] == f"hooks.example.test:{receiver.port}"


def test_redirects_are_not_followed(recorder, engine, clock, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    notifier = make_notifier()
    notifier.step()
    subscribe(engine, clock, table.pid("Bob"), channel="webhook", url=receiver.url("/start"))
    receiver.fail(302, headers={"Location": receiver.url("/elsewhere")})
    table.turn("Bob")
    notifier.step()
    assert [r.path for r in receiver.requests] == ["/start"]
    with engine.connect() as conn:
        row = conn.execute(sa.select(attempts.c.status_code, attempts.c.error)).one()
    assert row.status_code == 302 and row.error == "redirect not followed"


def test_subscribing_to_an_internal_url_is_refused(engine, clock) -> None:
    from services.notifier import manage

    with engine.begin() as conn, pytest.raises(UnsafeUrl):
        manage.set_subscription(conn, "1", None, manage.SubscriptionRequest("webhook", url="https://10.0.0.1/x"),
                                clock.now(), STRICT)

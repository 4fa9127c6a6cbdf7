"""SSRF guard for player-supplied webhook URLs.

A URL is resolved exactly once; every address it resolves to must be public, and the caller then connects
to the checked address itself (see `transport`), so a DNS answer that changes between check and connect
(rebinding) cannot steer us to an internal service.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from .settings import UrlPolicy

Resolver = Callable[[str, int], Sequence[str]]
IP = ipaddress.IPv4Address | ipaddress.IPv6Address

METADATA_ADDRESSES = frozenset({ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")})
_IPV4_COMPAT = ipaddress.ip_network("::/96")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class UnsafeUrl(ValueError):
    """The URL may not be called; the message says why (shown to the player who supplied it)."""


@dataclass(frozen=True)
class Target:
    """A checked destination: connect to `address`, but speak to `host` (Host header, SNI, certificate)."""

    scheme: str
    host: str
    port: int
    address: str
    path: str

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def address_problem(ip: IP, policy: UrlPolicy) -> str | None:
    """Why this address is refused, or None when it may be called."""
    if ip in METADATA_ADDRESSES:
        return "cloud metadata address"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return "IPv4-mapped IPv6 address"
        if ip in _IPV4_COMPAT and not ip.is_loopback and not ip.is_unspecified:
            return "IPv4-compatible IPv6 address"
        if ip in _NAT64 or ip.sixtofour is not None or ip.teredo is not None:
            return "IPv6 transition address"
    if ip.is_loopback:
        return None if policy.allow_loopback else "loopback address"
    if ip.is_unspecified:
        return "unspecified address"
    if ip.is_multicast:
        return "multicast address"
    if ip.is_link_local:
        return "link-local address"
    if ip.is_private:
        return "private address"
    if ip.is_reserved or not ip.is_global:
        return "non-public address"
    return None


def check_url(url: str, policy: UrlPolicy, resolver: Resolver = system_resolver) -> Target:
    """Validate `url` and pin it to one checked address. Raises UnsafeUrl."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise UnsafeUrl(f"malformed URL: {exc}") from None
    scheme = parts.scheme.lower()
    allowed = ("https", "http") if policy.allow_http else ("https",)
    if scheme not in allowed:
        raise UnsafeUrl(f"scheme {scheme or '(none)'} not allowed; use {' or '.join(allowed)}")
    if parts.username or parts.password:
        raise UnsafeUrl("credentials in the URL are not allowed")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise UnsafeUrl("URL has no host")
    port = port or (443 if scheme == "https" else 80)
    try:
        literal: IP | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        candidates = [str(literal)]
    else:
        try:
            candidates = list(resolver(host, port))
        except OSError as exc:
            raise UnsafeUrl(f"cannot resolve {host}: {exc}") from None
    if not candidates:
        raise UnsafeUrl(f"{host} does not resolve")
    for candidate in candidates:
        try:
            ip = ipaddress.ip_address(candidate.split("%", 1)[0])
        except ValueError:
            raise UnsafeUrl(f"{host} resolved to an invalid address") from None
        problem = address_problem(ip, policy)
        if problem:
            raise UnsafeUrl(f"{host} resolves to a {problem} ({ip})")
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Target(scheme, host, port, candidates[0], path)

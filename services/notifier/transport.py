"""One HTTP POST to a pinned, already checked address: no redirects, bounded time, bounded response.

We use `http.client` rather than a full client library because we must choose the socket's address
ourselves while keeping the URL's name for the Host header, SNI and certificate check.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .ssrf import Target

SocketOpener = Callable[[str, int, float], socket.socket]
MAX_RESPONSE_BYTES = 16 * 1024


def open_socket(address: str, port: int, timeout: float) -> socket.socket:
    return socket.create_connection((address, port), timeout=timeout)


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str]
    body: bytes
    elapsed: float


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, target: Target, connect_timeout: float, opener: SocketOpener) -> None:
        super().__init__(target.host, target.port, timeout=connect_timeout)
        self._target = target
        self._opener = opener

    def connect(self) -> None:
        self.sock = self._opener(self._target.address, self._target.port, self.timeout or 5.0)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, target: Target, connect_timeout: float, opener: SocketOpener) -> None:
        super().__init__(target.host, target.port, timeout=connect_timeout, context=ssl.create_default_context())
        self._target = target
        self._opener = opener

    def connect(self) -> None:
        raw = self._opener(self._target.address, self._target.port, self.timeout or 5.0)
        self.sock = self._context.wrap_socket(raw, server_hostname=self._target.host)


def post(
    target: Target,
    body: bytes,
    headers: Mapping[str, str],
    *,
    connect_timeout: float,
    read_timeout: float,
    opener: SocketOpener = open_socket,
) -> Response:
    """POST `body`; raises OSError/HTTPException on network failure. A 3xx is returned, never followed."""
    started = time.monotonic()
    cls = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    conn = cls(target, connect_timeout, opener)
    try:
        conn.connect()
        assert conn.sock is not None
        conn.sock.settimeout(read_timeout)
        conn.putrequest("POST", target.path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", target.host_header)
        for name, value in headers.items():
            conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        deadline = started + connect_timeout + read_timeout
        chunks: list[bytes] = []
        size = 0
        while size < MAX_RESPONSE_BYTES and time.monotonic() < deadline:
            chunk = resp.read1(MAX_RESPONSE_BYTES - size) if hasattr(resp, "read1") else resp.read(4096)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, b"".join(chunks),
                        time.monotonic() - started)
    finally:
        conn.close()

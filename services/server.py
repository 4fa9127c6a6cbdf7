"""The gateway's gunicorn worker (outside services.gateway: the arbiter imports it before forking, and must
not build the app): gthread, except that a kept-alive connection's next request is served by the
thread that answered the last one when it arrives within `LINGER_SECONDS`.

Why: gthread hands every request of a kept-alive connection across threads — the main loop unregisters the
socket and submits it to the thread pool (a Future, a condition variable), the pool thread answers, a
done-callback writes to a pipe, the main loop wakes again to register the socket with its poller for the next
request. A bare WSGI app under gthread costs 0.42 ms of CPU per request in a flood of 20 kept-alive clients
(0.25 ms this way); in the service bench the gateway's CPU per move came out 10–20% lower, within that
bench's noise on this shared machine (docs/performance.md, "Second round"), and nothing at 100/s. A
client playing a game sends its next request right after reading the answer (a driver, the page's long-poll
loop), so the answering thread waits for it a moment on the socket (`poll`, the GIL released) and serves it
directly; a connection that stays quiet goes back to the poller exactly as before.

Bounded so that lingering never starves the pool: no thread lingers while requests wait for one, at most a
quarter of the threads linger at a time, each for at most `LINGER_SECONDS`; TLS and HTTP/2 connections take the stock path. Everything else (keep-alive limits,
max_requests, graceful shutdown, timeouts) is gthread's own code.
"""

from __future__ import annotations

import json
import select
import threading
from typing import Any

from gunicorn import util
from gunicorn.workers.gthread import ThreadWorker

LINGER_SECONDS = 0.05


class LingeringThreadWorker(ThreadWorker):
    """gthread with the next request of a busy kept-alive connection served in the same thread."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._linger_guard = threading.Lock()
        self._lingering = 0
        self._linger_cap = max(1, self.cfg.threads // 4)

    def handle(self, conn: Any) -> Any:
        result = super().handle(conn)
        while result is True and self.alive and not conn.is_http2 and not self.cfg.is_ssl and self._next(conn):
            result = super().handle(conn)
        return result

    def _next(self, conn: Any) -> bool:
        """Whether the connection's next request is there (read ahead already, or arriving within the linger)."""
        if conn.parser.unreader.buf.getvalue():
            return True
        waiting = getattr(self.tpool, "_work_queue", None)
        if waiting is not None and not waiting.empty():
            return False  # other connections wait for a thread: this one goes back to the poller
        with self._linger_guard:
            if self._lingering >= self._linger_cap:
                return False
            self._lingering += 1
        try:
            poller = select.poll()
            poller.register(conn.sock.fileno(), select.POLLIN)
            return bool(poller.poll(LINGER_SECONDS * 1000))
        except (OSError, ValueError):
            return False
        finally:
            with self._linger_guard:
                self._lingering -= 1


def write_json_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's own answers (a request line or header past its limits, a malformed request, a bad method)
    in the API's one error shape, instead of its HTML page. gunicorn writes them before any app sees the
    request, through `gunicorn.util.write_error` (`Worker.handle_error`), which `install_json_errors` sets
    to this; the status, reason and wording stay gunicorn's."""
    code = reason.lower().replace(" ", "_") or "error"
    body = json.dumps({"error": code, "message": mesg or reason or "the server failed"}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1")
    util.write_nonblock(sock, head + body)


def install_json_errors() -> None:
    """Called from infra/gunicorn.conf.py, so every worker class the arbiter forks answers in JSON."""
    util.write_error = write_json_error

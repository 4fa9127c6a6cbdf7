"""The players' webhook endpoint in the scale test: on the notifier host's loopback, it answers 204 and
appends one JSON line per request (`webhook-id`, the player from the path, the body's type and game) to a file,
so the test can count how often each turn was told.

usage: python -m bench.scale_hooks PORT FILE"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_lock = threading.Lock()


def serve(port: int, out: Path) -> None:
    sink = out.open("a", encoding="utf-8")

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                data = json.loads(body)
            except ValueError:
                data = {}
            line = {"at": round(time.time(), 3), "id": self.headers.get("webhook-id"), "player": self.path.rsplit("/", 1)[-1],
                    "type": data.get("type"), "game": ((data.get("data") or {}).get("game") or {}).get("id")}
            with _lock:
                sink.write(json.dumps(line) + "\n")
                sink.flush()
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Hook).serve_forever()


if __name__ == "__main__":
    serve(int(sys.argv[1]), Path(sys.argv[2]))

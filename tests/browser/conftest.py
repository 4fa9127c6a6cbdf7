"""A real gateway (embedded default: SQLite and the in-process queue, no Redis, no PostgreSQL) on a free port
and Debian's headless Chromium driven by Playwright. Missing Chromium or Playwright fails the tests, never
skips them: install with `apt-get install -y chromium` and `pip install playwright` (never
`playwright install`, which downloads a browser of its own)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from werkzeug.serving import make_server

from services.config import Config
from services.gateway import create_app
from shared.eventstore import migrate

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SIGNIN_SECRET = "browser-signin-secret"
SHOTS = ROOT / "var" / "screenshots"  # var/ is gitignored
ADMIN = "browser-admin-token"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@dataclass
class Server:
    base: str
    database_url: str = ""  # the embedded store, for what only the table's tick writes (a decided vote)

    def api(self, method: str, path: str, token: str | None = None, **kw: Any) -> requests.Response:
        headers = {"Accept": "application/json", **kw.pop("headers", {})}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return requests.request(method, self.base + path, headers=headers, timeout=60, **kw)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    url = f"sqlite:///{tmp_path_factory.mktemp('browser') / 'page.sqlite3'}"
    migrate(url)
    from services.notifier.webpush import ensure_vapid_key

    env: dict[str, str] = {}
    ensure_vapid_key(env, tmp_path_factory.mktemp("vapid"))  # web push on, as `make run` has it
    os.environ["WEBPUSH_VAPID_PRIVATE_KEY"] = env["WEBPUSH_VAPID_PRIVATE_KEY"]
    app = create_app(Config(database_url=url, admin_token=ADMIN, log_level="WARNING", max_wait_seconds=20,
                            signin_secret=SIGNIN_SECRET))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one access line per request is noise here
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_port}", url)
    finally:
        httpd.shutdown()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's chromium (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the browser tests need Playwright's Python package (pip install playwright); "
                    "never run `playwright install`, the browser comes from Debian")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()

"""`make run` (services.run) in the embedded default starts the email-moves receiver on a loopback port."""

from __future__ import annotations

import os
import smtplib
import subprocess
import sys
import time
from pathlib import Path

from .conftest import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_run_starts_the_receiver(tmp_path: Path) -> None:
    port, mail_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "MAILIN_SECRET")}
    env.update(PORT=str(port), MAILIN_PORT=str(mail_port), MAILIN_ADDRESS="moves@play.test",
               DATABASE_URL=f"sqlite:///{tmp_path / 'run.sqlite3'}", PYTHONPATH=str(ROOT),
               PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"))
    proc = subprocess.Popen([sys.executable, "-m", "services.run"], cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        assert "Railpost listening on" in proc.stdout.readline()
        assert f"SMTP on 127.0.0.1:{mail_port} for moves@play.test" in proc.stdout.readline()
        deadline = time.monotonic() + 30
        while True:
            try:
                with smtplib.SMTP("127.0.0.1", mail_port, timeout=5) as smtp:
                    code, _ = smtp.ehlo()
                    assert code == 250
                    assert smtp.rcpt("nobody@elsewhere.test")[0] == 503  # no MAIL FROM yet: nothing relayed
                break
            except (ConnectionRefusedError, smtplib.SMTPServerDisconnected):
                assert time.monotonic() < deadline, "the receiver did not start"
                time.sleep(0.3)
        assert (ROOT / "var" / "mailin-secret").exists()
    finally:
        proc.terminate()
        proc.wait(timeout=30)

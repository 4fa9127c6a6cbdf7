"""Settings of email moves, read from the environment in one place.

Email moves are on when `MAILIN_SECRET` is set (the HMAC key of reply tokens). `make run` in the embedded
default sets one itself (kept in `var/mailin-secret`, so tokens outlive a restart) and starts the receiver on
a loopback port.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class MailinSettings:
    secret: str = ""
    address: str = "moves@railpost.localhost"  # replies go to local+TOKEN@domain
    host: str = "127.0.0.1"
    port: int = 8025  # default: the gateway's PORT + 25 (8025 beside 8000), so two local sites do not collide
    lmtp: bool = False  # LMTP instead of SMTP (behind Postfix's lmtp transport)
    max_bytes: int = 256 * 1024
    rate_per_hour: int = 30  # mails per sender address per rolling hour
    wait_seconds: float = 10.0  # how long a move waits for its receipt before the answer says "queued"
    auth_serv_id: str = ""  # set: require an Authentication-Results header of this MTA with dkim or spf pass
    signin_secret: str = ""  # key of the page's sign-in links (SIGNIN_SECRET; empty: the reply secret)

    @property
    def signin_key(self) -> str:
        """The key the gateway checks sign-in links with (services.config.Config.signin_secret)."""
        return self.signin_secret or self.secret

    @property
    def enabled(self) -> bool:
        return bool(self.secret)

    @property
    def local_part(self) -> str:
        return self.address.rpartition("@")[0]

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> MailinSettings:
        e = os.environ if env is None else env
        return cls(
            secret=e.get("MAILIN_SECRET", ""),
            address=e.get("MAILIN_ADDRESS") or cls.address,
            host=e.get("MAILIN_HOST") or cls.host,
            port=int(e.get("MAILIN_PORT") or int(e.get("PORT") or 8000) + 25),
            lmtp=_flag(e.get("MAILIN_LMTP")),
            max_bytes=int(e.get("MAILIN_MAX_BYTES") or cls.max_bytes),
            rate_per_hour=int(e.get("MAILIN_RATE_PER_HOUR") or cls.rate_per_hour),
            wait_seconds=float(e.get("MAILIN_WAIT_SECONDS") or cls.wait_seconds),
            auth_serv_id=e.get("MAILIN_AUTHSERV_ID", ""),
            signin_secret=e.get("SIGNIN_SECRET", ""),
        )


def ensure_secret(env: dict[str, str], var_dir: Path) -> str:
    """The embedded default's secret: MAILIN_SECRET if set, else one kept in `var/mailin-secret` (created
    once, readable by the owner only), so the notifier and the receiver sign and check with the same key."""
    if env.get("MAILIN_SECRET"):
        return env["MAILIN_SECRET"]
    path = var_dir / "mailin-secret"
    if not path.exists():
        var_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(32))
        path.chmod(0o600)
    env["MAILIN_SECRET"] = path.read_text().strip()
    return env["MAILIN_SECRET"]

"""Run the alembic migrations that live beside this module, from code or `python -m shared.eventstore.migrate`.

Other packages add revisions to the same chain (e.g. the notifier's `0002_notifier`), so there is one
schema history per database.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")


def sqlalchemy_url(url: str) -> str:
    """Alembic speaks SQLAlchemy; point the Postgres dialect at psycopg 3 rather than psycopg2."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", sqlalchemy_url(url).replace("%", "%%"))
    return cfg


def migrate(url: str, revision: str = "heads") -> None:
    if url.startswith("sqlite:///"):
        Path(url.split(":///", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(url), revision)


def main() -> int:
    from services.config import Config as ServiceConfig

    url = sys.argv[1] if len(sys.argv) > 1 else ServiceConfig.from_env(os.environ).database_url
    migrate(url)
    print(f"migrated {url.split('@')[-1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Sign-in links: the page link of a turn email opens the game with that seat on any device, for as long as
the link lives and until the player revokes it; nobody can make one for another seat, stretch it, or use it
in another game. Over real PostgreSQL, Redis and a Celery rules worker."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from services import signin
from services.config import Config

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess
from .helpers import Api, as_submitted, load_record

SECRET = "test-signin-secret"


@pytest.fixture(scope="module")
def linked(service_config: Config) -> Iterator[LiveServer]:
    from services.gateway import create_app

    server = LiveServer(create_app(service_config.with_(signin_secret=SECRET)))
    yield server
    server.stop()


def test_a_link_opens_its_seat_and_acts_as_it(linked: LiveServer, worker: WorkerProcess) -> None:
    api = Api(linked.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    first = record["actions"][0]
    actor = api.actor(game_id, first)
    other = next(pid for pid in tokens if pid != actor)
    link = signin.sign(SECRET, game_id, actor, time.time())
    me = api.call("GET", f"/games/{game_id}/page/me", link)
    assert me.status_code == 200 and me.json()["player_id"] == actor
    legal = api.call("GET", f"/games/{game_id}/legal-actions", link).json()["actions"]
    assert legal, "the acting seat's link lists its moves"
    moved = api.act(game_id, link, as_submitted(first, actor), 0)
    assert moved.status_code == 200 and moved.json()["status"] == "applied", moved.text
    # a link of another seat is that seat, nobody else: it may not move for the acting player
    theirs = signin.sign(SECRET, game_id, other, time.time())
    assert api.call("GET", f"/games/{game_id}/page/me", theirs).json()["player_id"] == other


def test_forged_stretched_expired_foreign_and_revoked_links_are_refused(linked: LiveServer) -> None:
    api = Api(linked.url, ADMIN_TOKEN)
    record = load_record()
    game_id, tokens = api.seated_game(record)
    other_game, _ = api.seated_game(record)
    pid = next(iter(tokens))
    now = time.time()
    good = signin.sign(SECRET, game_id, pid, now - 60)

    def status(token: str, game: int = game_id) -> tuple[int, str]:
        reply = api.call("GET", f"/games/{game}/page/me", token)
        return reply.status_code, reply.json().get("error", "")

    assert status(good) == (200, "")
    assert status(signin.sign("another-secret", game_id, pid, now)) == (401, "unauthorized")
    stretched = good.replace(f"e{int(now - 60) + signin.LIFETIME_SECONDS}", f"e{int(now) + 10 * signin.LIFETIME_SECONDS}")
    assert stretched != good and status(stretched) == (401, "unauthorized")
    expired = signin.sign(SECRET, game_id, pid, now - signin.LIFETIME_SECONDS - 5)
    assert status(expired) == (401, "signin_link_expired")
    assert status(good, other_game)[0] == 403  # a link of game A holds no seat of game B
    # revoking ends every link issued so far (and only for this seat); the seat token itself still works
    revoked = api.call("POST", f"/games/{game_id}/signin-links/revoke", tokens[pid])
    assert revoked.status_code == 200 and revoked.json()["player_id"] == pid
    assert status(good) == (401, "signin_link_revoked")
    later = signin.sign(SECRET, game_id, pid, revoked.json()["revoked_before"] + 1)
    assert status(later) == (200, "")
    assert status(tokens[pid]) == (200, "")
    other_pid = next(p for p in tokens if p != pid)
    assert status(signin.sign(SECRET, game_id, other_pid, now - 60)) == (200, "")
    assert api.call("POST", f"/games/{game_id}/signin-links/revoke").status_code == 401


def test_revocations_are_kept_on_the_embedded_store_too(tmp_path: object) -> None:
    """The embedded default (SQLite) keeps the same fact with the same upsert: a later revocation wins."""
    from pathlib import Path

    from shared.eventstore import migrate, open_recorder
    from shared.eventstore.records import NewGame

    url = f"sqlite:///{Path(str(tmp_path)) / 'signin.sqlite3'}"
    migrate(url)
    recorder = open_recorder(url)
    game_id = recorder.create_game(NewGame("1840", [], 1, 2), {}).id  # the row a revocation belongs to
    assert recorder.signins_revoked_at(game_id, 7) is None
    recorder.revoke_signins(game_id, 7, 100.0)
    recorder.revoke_signins(game_id, 7, 250.5)
    assert recorder.signins_revoked_at(game_id, 7) == 250.5
    assert recorder.signins_revoked_at(game_id, 8) is None

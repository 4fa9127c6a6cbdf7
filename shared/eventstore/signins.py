"""The store's side of sign-in links: a link is stateless (signed, with its issue and expiry times), so
the only stored fact is when a seat revoked its links; every link issued before that moment is refused."""

from __future__ import annotations

from .sql import SqlRecorder


def revoke(recorder: SqlRecorder, game_id: int, player_id: int, at: float) -> None:
    with recorder._tx(write=True) as cur:
        recorder._exec(cur, "INSERT INTO signin_revocations (game_id, player_id, revoked_at) VALUES (%s, %s, %s) "
                       "ON CONFLICT (game_id, player_id) DO UPDATE SET revoked_at = excluded.revoked_at",
                       (game_id, player_id, at))


def revoked_at(recorder: SqlRecorder, game_id: int, player_id: int) -> float | None:
    with recorder._tx() as cur:
        row = recorder._one(cur, "SELECT revoked_at FROM signin_revocations WHERE game_id = %s AND player_id = %s",
                            (game_id, player_id))
    return None if row is None else float(row["revoked_at"])

"""Importing an 18xx.games record as a new game, without letting the record claim anyone's identity.

A record names its players by id. Binding those ids to the stored identities of the same ids would let any
caller put other people into a game they never joined (their webhooks then get "your turn" alerts, and the
game is listed under their id). So a record's player id binds to an existing identity only when the caller
proves it: the caller's own id (player token), or any id with the admin token. Every other record player
becomes a fresh identity with a fresh id, and the record is rewritten to that id before it is replayed;
the fresh identities' tokens are answered with the seat tokens.

An imported game keeps the rules its record was played under: 18xx.games lets anyone undo anything, so an
import plays on with free undo (`UNDO_CONSENT`), as a game created with `undo: free` does; a game moved here
mid-way then continues exactly as it would have live (docs/service.md, "Import").

Imports take an Idempotency-Key, scoped to the caller: a retry with the same key and body answers the game
the first call created (with the same tokens); the same key with another body is refused.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from services.play.apply import read_model
from services.tokens import hash_token, new_token
from shared.engine import GameSession
from shared.eventstore import ACTION_APPLIED, CURRENT_VERSIONS, Conflict, NewEvent, NewGame, SqlRecorder
from shared.eventstore.records import ACTIVE, FINISHED, Game, ImportKey
from shared.jsontext import canonical

UNDO_CONSENT = False  # the undo rule of an imported game: free, as the record was played


@dataclass(frozen=True)
class Caller:
    """Who imports: `scope` names the caller for idempotency keys; `player_id` is the identity they proved."""

    scope: str
    admin: bool = False
    player_id: int | None = None


@dataclass(frozen=True)
class Imported:
    game: Game
    secrets: dict[str, Any]  # {"seats": [{seat, player_id, token}], "players": [{id, name, token}]}
    replayed: bool = False  # True: answered from an earlier call with the same key


def body_hash(record: dict[str, Any]) -> str:
    return hashlib.sha256(canonical(record).encode()).hexdigest()


def remap_players(record: dict[str, Any], ids: dict[int, int]) -> dict[str, Any]:
    """The record with player ids replaced: the players list, and in every action (and its auto actions)
    the acting `entity` of player-type actions and the submitting `user`: the only places the 18xx.games
    action format names a player (tests/fixtures/conformance/README.md, "Action format")."""
    if all(old == new for old, new in ids.items()):
        return record

    def action(raw: Any) -> Any:
        if not isinstance(raw, dict):
            return raw
        out = dict(raw)
        if out.get("entity_type") == "player" and isinstance(out.get("entity"), int):
            out["entity"] = ids.get(out["entity"], out["entity"])
        if isinstance(out.get("user"), int):
            out["user"] = ids.get(out["user"], out["user"])
        if isinstance(out.get("auto_actions"), list):
            out["auto_actions"] = [action(a) for a in out["auto_actions"]]
        return out

    players = [{**p, "id": ids.get(p["id"], p["id"])} for p in record["players"]]
    return {**record, "players": players, "actions": [action(a) for a in record.get("actions") or []]}


def bindings(recorder: SqlRecorder, record: dict[str, Any], caller: Caller) -> tuple[dict[int, int], set[int]]:
    """Record player id -> stored id, and the stored ids that are fresh identities to create."""
    ids = [int(p["id"]) for p in record["players"]]
    if len(set(ids)) != len(ids):
        raise Conflict("the record names the same player id twice", "duplicate_player")
    if caller.admin:
        return {i: i for i in ids}, set()
    kept = {i for i in ids if i == caller.player_id}
    fresh = recorder.reserve_player_ids(len(ids) - len(kept))
    mapping = {i: i for i in kept}
    mapping.update(zip([i for i in ids if i not in kept], fresh, strict=True))
    return mapping, set(fresh)


def import_record(recorder: SqlRecorder, record: dict[str, Any], visibility: str, caller: Caller,
                  key: str | None = None) -> Imported:
    """Replay and validate a whole record under the caller's bindings, then store it in one transaction.
    Raises the engine's ReplayError (naming the first refused action) before anything is stored."""
    digest = body_hash({"record": record, "visibility": visibility})
    if key is not None:
        earlier = recorder.find_import(caller.scope, key)
        if earlier is not None:
            return _replayed(recorder, earlier.body_hash, digest, earlier.game_id, earlier.secrets, key)
    mapping, fresh = bindings(recorder, record, caller)
    recorded = {new: old for old, new in mapping.items()}
    session = GameSession.from_record(remap_players(record, mapping))
    seat_tokens = [new_token() for _ in session.players]
    player_tokens = {pid: new_token() for pid in fresh}
    seats = [(int(p["id"]), str(p.get("name", p["id"]))[:80], hash_token(t),
              hash_token(player_tokens[p["id"]]) if p["id"] in player_tokens else None)
             for p, t in zip(session.players, seat_tokens, strict=True)]
    secrets = {
        "seats": [{"seat": i, "player_id": s[0], "token": t} for i, (s, t) in enumerate(zip(seats, seat_tokens,
                                                                                              strict=True))],
        "players": [{"id": s[0], "name": s[1], "token": player_tokens[s[0]], "record_id": recorded[s[0]]}
                    for s in seats if s[0] in player_tokens],
    }
    events = [NewEvent(ACTION_APPLIED, {"action": a, "player_id": None}, CURRENT_VERSIONS[ACTION_APPLIED])
              for a in session.actions]
    last = session.actions[-1] if session.actions else None
    new = NewGame(session.title, list(session.optional_rules), session.seed, len(session.players), visibility,
                  FINISHED if session.finished else ACTIVE)
    idempotency = None if key is None else ImportKey(caller.scope, key, digest, secrets)
    try:
        game = recorder.import_game(new, seats, events, read_model(session, last), session.result,
                                    session.snapshot(), idempotency)
    except Conflict as err:
        if err.code != "import_key_used" or key is None:
            raise
        earlier = recorder.find_import(caller.scope, key)  # a concurrent retry with the same key won
        if earlier is None:
            raise
        return _replayed(recorder, earlier.body_hash, digest, earlier.game_id, earlier.secrets, key)
    return Imported(game, secrets)


def _replayed(recorder: SqlRecorder, stored_hash: str, digest: str, game_id: int, secrets: dict[str, Any],
              key: str) -> Imported:
    if stored_hash != digest:
        raise Conflict(f"idempotency key {key!r} was used with a different record", "idempotency_key_reused")
    game = recorder.get_game(game_id)
    if game is None:
        raise Conflict(f"the game imported under key {key!r} no longer exists", "import_key_used")
    return Imported(game, secrets, replayed=True)

"""The recorder contract, written once in portable SQL. Backends (`postgres`, `sqlite`) supply connections,
the row lock that serialises one game's writers, and the mapping of their uniqueness errors.

Global positions (events and outbox) are gap-safe: a reader tailing `position > N` never sees N+2 before
N+1, and a position once seen never changes. Two ways to get there, chosen per backend:

- numbered in the writing transaction (SQLite): a `counters` row bumped just before COMMIT; its lock is held
  until commit, so positions are handed out in commit order. Free when there is one writer anyway, but on
  PostgreSQL that lock is held through the commit's WAL flush and serialised every game's commits.
- numbered later, in batches (PostgreSQL): writers commit their rows with position NULL and take no global
  lock at all. `number_pending` — a short transaction under one advisory lock — numbers *every* committed
  unnumbered row at once. Numbering transactions run one at a time and each sees all earlier ones, so
  positions become visible in order, a whole batch at once. Tailing readers number before they read
  (`read_all`, `read_outbox`, the notifier's loop), so they are never behind; the rules worker's sweep
  numbers periodically for everyone else.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

from ..jsontext import dumps, loads
from .errors import Conflict, NotFound
from .gametx import GameTx
from .identity import SeatRecords
from .outbox import GameFinished, GameStarted, TurnChanged
from .records import (
    ACTIVE,
    OPEN,
    QUEUED,
    Game,
    ImportKey,
    NewEvent,
    NewGame,
    OutboxItem,
    Player,
    Receipt,
    Seat,
    Snapshot,
    StoredEvent,
    StoredImport,
    seat_command_id,
)
from .rows import (
    GAME_HEAD,
    QUEUED_ONLY,
    QUEUED_RECEIPT,
    TABLE_LOG,
    Cursor,
    Row,
    event_of,
    game_of,
    loads_or_none,
    receipt_of,
    seat_of,
)


class SqlRecorder(SeatRecords):
    """Everything but connections and locks (seats and identity: `identity.SeatRecords`). Subclasses implement `_tx`, `_lock_suffix`, `_is_unique`, and
    either number positions in the writing transaction or implement `number_pending`."""

    _lock_suffix = ""
    _numbers_in_transaction = True

    def number_pending(self) -> int:
        """Give positions to committed events and outbox rows that have none; returns how many rows it
        numbered. A no-op where positions are taken in the writing transaction (nothing is ever pending).
        Tailing readers call it before reading; the rules worker's sweep calls it periodically."""
        return 0

    # -- backend hooks -----------------------------------------------------------------------------------
    @contextmanager
    def _tx(self, write: bool = False) -> Iterator[Cursor]:
        raise NotImplementedError
        yield  # pragma: no cover

    def _is_unique(self, exc: BaseException) -> bool:
        raise NotImplementedError

    def _statement(self) -> Any:
        """A cursor for one self-contained writing statement (atomic on its own): backends that can run it
        without an explicit transaction block save the BEGIN and COMMIT round trips."""
        return self._tx(write=True)

    def _sql(self, sql: str) -> str:
        return sql

    def _pipeline(self, cur: Cursor) -> Any:
        """Where the backend can, send statements whose results nobody reads without waiting for each."""
        return nullcontext()

    def _send_writes(self, cur: Cursor, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
        """A transaction's buffered writes, in order (none reads another's result). PostgreSQL sends them as
        one statement."""
        for sql, params in statements:
            self._exec(cur, sql, params)

    def close(self) -> None:
        """Release pooled connections."""

    # -- small helpers -----------------------------------------------------------------------------------
    def _exec(self, cur: Cursor, sql: str, params: Sequence[Any] = ()) -> Any:
        return cur.execute(self._sql(sql), tuple(params))

    def _one(self, cur: Cursor, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return self._exec(cur, sql, params).fetchone()

    def _all(self, cur: Cursor, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(self._exec(cur, sql, params).fetchall())

    def _take_positions(self, cur: Cursor, name: str, count: int) -> int:
        row = self._one(cur, "UPDATE counters SET value = value + %s WHERE name = %s RETURNING value",
                        (count, name))
        assert row is not None, f"counter {name} missing: run the migrations"
        return int(row["value"])

    def _lock_game(self, cur: Cursor, game_id: int, read_model: bool = True) -> Game:
        """The game row, locked for writing; without `read_model` its `state` is left unread (None): a game
        transaction replaces it, and reading and parsing it was a twentieth of the worker's path per move."""
        columns = "*" if read_model else GAME_HEAD
        row = self._one(cur, f"SELECT {columns} FROM games WHERE id = %s" + self._lock_suffix, (game_id,))
        if row is None:
            raise NotFound(f"game {game_id} does not exist")
        return game_of(row)

    # -- players -----------------------------------------------------------------------------------------
    def create_player(self, name: str, token_hash: str | None, player_id: int | None = None) -> Player:
        """New identity. An explicit id (operators, imports) pushes the id counter past it."""
        try:
            with self._tx(write=True) as cur:
                if player_id is None:
                    player_id = self._take_positions(cur, "player_id", 1)
                else:
                    self._exec(cur, "UPDATE counters SET value = CASE WHEN value < %s THEN %s ELSE value END "
                               "WHERE name = 'player_id'", (player_id, player_id))
                self._exec(cur, "INSERT INTO players (id, name, token_hash, created_at) VALUES (%s, %s, %s, %s)",
                           (player_id, name, token_hash, time.time()))
        except Exception as exc:
            if self._is_unique(exc):
                raise Conflict(f"player {player_id} already exists", "player_exists") from exc
            raise
        return Player(player_id, name, token_hash)

    def get_player(self, player_id: int) -> Player | None:
        with self._tx() as cur:
            row = self._one(cur, "SELECT * FROM players WHERE id = %s", (player_id,))
        return None if row is None else Player(row["id"], row["name"], row["token_hash"])

    def player_by_token(self, token_hash: str) -> Player | None:
        with self._tx() as cur:
            row = self._one(cur, "SELECT * FROM players WHERE token_hash = %s", (token_hash,))
        return None if row is None else Player(row["id"], row["name"], row["token_hash"])

    # -- games and seats ---------------------------------------------------------------------------------
    def _insert_game(self, cur: Cursor, new: NewGame, state: dict[str, Any] | None = None,
                     result: dict[str, Any] | None = None, version: int = 0) -> Game:
        now = time.time()
        # invite_hash (revision 0004) is named only when set: open games are written the same as before, so
        # this code also runs against a store not yet migrated (a rolling deploy, the upgrade tests)
        invite = ", invite_hash" if new.invite_hash is not None else ""
        row = self._one(
            cur,
            "INSERT INTO games (title, options, seed, seat_count, status, visibility, version, state, result, "
            f"created_at, updated_at{invite}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s"
            f"{', %s' if invite else ''}) RETURNING *",
            (new.title, dumps(new.options), new.seed, new.seat_count, new.status, new.visibility, version,
             None if state is None else dumps(state), None if result is None else dumps(result), now, now,
             *([new.invite_hash] if invite else [])),
        )
        return game_of(row)

    def create_game(self, new: NewGame, payload: dict[str, Any]) -> Game:
        with self._tx(write=True) as cur:
            game = self._insert_game(cur, new)
            tx = GameTx(self, cur, game)
            tx.outbox("game_created", {**payload, "game_id": game.id}, 0)
            tx._flush()
        return game

    def invite_hash(self, game_id: int) -> str | None:
        """The hash of a private game's invitation token (None: open, or created before invitations)."""
        with self._tx() as cur:
            row = self._one(cur, "SELECT invite_hash FROM games WHERE id = %s", (game_id,))
        return None if row is None else row["invite_hash"]

    def get_game(self, game_id: int) -> Game | None:
        with self._tx() as cur:
            row = self._one(cur, "SELECT * FROM games WHERE id = %s", (game_id,))
        return None if row is None else game_of(row)

    def list_games(self, *, status: str | None = None, title: str | None = None, player_id: int | None = None,
                   limit: int = 50, offset: int = 0) -> list[Game]:
        sql = "SELECT * FROM games WHERE 1 = 1"
        params: list[Any] = []
        if status:
            sql += " AND status = %s"
            params.append(status)
        if title:
            sql += " AND title = %s"
            params.append(title)
        if player_id is not None:
            sql += " AND id IN (SELECT game_id FROM seats WHERE player_id = %s)"
            params.append(player_id)
        sql += " ORDER BY id DESC LIMIT %s OFFSET %s"
        params += [limit, offset]
        with self._tx() as cur:
            return [game_of(r) for r in self._all(cur, sql, params)]

    def join(self, game_id: int, player_id: int, name: str, token_hash: str, seat_index: int | None = None) -> Seat:
        try:
            with self._tx(write=True) as cur:
                game = self._lock_game(cur, game_id)
                if game.status != OPEN:
                    raise Conflict(f"game {game_id} is {game.status}; seats are taken only while it is open",
                                   "not_open")
                taken = {r["seat_index"]: r["player_id"] for r in self._all(
                    cur, "SELECT seat_index, player_id FROM seats WHERE game_id = %s", (game_id,))}
                if player_id in taken.values():
                    raise Conflict(f"player {player_id} already has a seat in game {game_id}", "already_seated")
                free = [i for i in range(game.seat_count) if i not in taken]
                if seat_index is None:
                    if not free:
                        raise Conflict(f"game {game_id} is full", "game_full")
                    seat_index = free[0]
                elif seat_index not in free:
                    raise Conflict(f"seat {seat_index} of game {game_id} is not free", "seat_taken")
                self._exec(cur, "INSERT INTO seats (game_id, seat_index, player_id, name, token_hash, joined_at) "
                           "VALUES (%s, %s, %s, %s, %s, %s)",
                           (game_id, seat_index, player_id, name, token_hash, time.time()))
                tx = GameTx(self, cur, game)
                tx.outbox("seat_joined", {"game_id": game_id, "seat": seat_index, "player_id": player_id,
                                          "name": name, "title": game.title}, game.version)
                tx._flush()
        except Exception as exc:
            if self._is_unique(exc):
                raise Conflict("that seat was just taken", "seat_taken") from exc
            raise
        return Seat(game_id, seat_index, player_id, name, token_hash)

    def seats(self, game_id: int) -> list[Seat]:
        with self._tx() as cur:
            return [seat_of(r) for r in self._all(
                cur, "SELECT * FROM seats WHERE game_id = %s ORDER BY seat_index", (game_id,))]

    def seat_by_token(self, token_hash: str) -> Seat | None:
        with self._tx() as cur:
            row = self._one(cur, "SELECT * FROM seats WHERE token_hash = %s", (token_hash,))
        return None if row is None else seat_of(row)

    def start(self, game_id: int, state: dict[str, Any], payload: dict[str, Any]) -> Game:
        with self._tx(write=True) as cur:
            game = self._lock_game(cur, game_id)
            if game.status != OPEN:
                raise Conflict(f"game {game_id} is already {game.status}", "not_open")
            count = self._one(cur, "SELECT COUNT(*) AS n FROM seats WHERE game_id = %s", (game_id,))["n"]
            if count != game.seat_count:
                raise Conflict(f"game {game_id} has {count} of {game.seat_count} seats taken", "seats_free")
            tx = GameTx(self, cur, game)
            tx.update_game(state=state, status=ACTIVE)
            tx.outbox("game_started", payload, 0)
            tx.emit(TurnChanged.of_state(game_id, game.title, state), 0)
            tx._flush()
            return self._lock_game(cur, game_id)

    def reserve_player_ids(self, count: int) -> list[int]:
        """Fresh player ids for identities created later (an import's): the counter moves past them now, so
        no other identity can take them; an id never used leaves a harmless gap."""
        if count <= 0:
            return []
        with self._tx(write=True) as cur:
            last = self._take_positions(cur, "player_id", count)
        return list(range(last - count + 1, last + 1))

    def find_import(self, caller: str, key: str) -> StoredImport | None:
        with self._tx() as cur:
            row = self._one(cur, "SELECT * FROM imports WHERE caller = %s AND idempotency_key = %s", (caller, key))
        return None if row is None else StoredImport(row["body_hash"], row["game_id"], loads_or_none(row["secrets"]))

    def import_game(self, new: NewGame, seats: Sequence[tuple[Any, ...]], events: Sequence[NewEvent],
                    state: dict[str, Any], result: dict[str, Any] | None, snapshot: bytes | None,
                    idempotency: ImportKey | None = None) -> Game:
        """A replayed record lands whole or not at all: game, players, seats, events, snapshot, outbox, and
        the caller's Idempotency-Key. Each seat is (player id, name, seat token hash[, player token hash]):
        a player id not yet stored becomes a new identity with that token hash (None: no token). A key the
        same caller already used raises Conflict("import_key_used") and stores nothing."""
        try:
            return self._import_game(new, seats, events, state, result, snapshot, idempotency)
        except Exception as exc:
            if idempotency is not None and self._is_unique(exc):
                raise Conflict(f"import key {idempotency.key!r} was just used", "import_key_used") from exc
            raise

    def _import_game(self, new: NewGame, seats: Sequence[tuple[Any, ...]], events: Sequence[NewEvent],
                     state: dict[str, Any], result: dict[str, Any] | None, snapshot: bytes | None,
                     idempotency: ImportKey | None) -> Game:
        with self._tx(write=True) as cur:
            game = self._insert_game(cur, new, state, result, version=0)
            if idempotency is not None:
                self._exec(cur, "INSERT INTO imports (caller, idempotency_key, body_hash, game_id, secrets, "
                           "created_at) VALUES (%s, %s, %s, %s, %s, %s)",
                           (idempotency.caller, idempotency.key, idempotency.body_hash, game.id,
                            dumps(idempotency.secrets), time.time()))
            self._upsert_players(cur, seats)
            for index, (player_id, name, token_hash, *_rest) in enumerate(seats):
                self._exec(cur, "INSERT INTO seats (game_id, seat_index, player_id, name, token_hash, joined_at) "
                           "VALUES (%s, %s, %s, %s, %s, %s)", (game.id, index, player_id, name, token_hash,
                                                              time.time()))
            tx = GameTx(self, cur, game)
            for version, event in enumerate(events, start=1):
                tx.append(version, event)
            tx.update_game(version=len(events))
            if snapshot is not None:
                tx.save_snapshot(len(events), snapshot)
            tx.outbox("game_created", {"game_id": game.id, "title": new.title, "imported": True}, 0)
            tx.emit(GameStarted(game.id, new.title), 0)
            if result is not None:
                tx.emit(GameFinished(game.id, new.title, result), len(events))
            else:
                tx.emit(TurnChanged.of_state(game.id, new.title, state), len(events))
            tx._flush()
            return self._lock_game(cur, game.id)

    def _upsert_players(self, cur: Cursor, seats: Sequence[tuple[Any, ...]]) -> None:
        """The seats' identities that are not stored yet, created; stored ones are left as they are.

        Imports running at the same time may name the same players (two admin imports of one record): a
        look-then-insert lets both see "absent" and the later insert fails on the players' key. An insert
        that does nothing on that key is atomic instead: the second import waits for the first's row and
        then keeps it. The id counter is pushed first and only when it lags (so imports of fresh, reserved
        ids take no lock on it), and identities are inserted in id order: every transaction that takes
        these locks takes them in the same order (counter, then players by id), so they cannot deadlock."""
        highest = max((int(s[0]) for s in seats), default=None)
        if highest is None:
            return
        self._exec(cur, "UPDATE counters SET value = %s WHERE name = 'player_id' AND value < %s",
                   (highest, highest))
        for player_id, name, _seat_token, *rest in sorted(seats, key=lambda s: int(s[0])):
            self._exec(cur, "INSERT INTO players (id, name, token_hash, created_at) VALUES (%s, %s, %s, %s) "
                       "ON CONFLICT (id) DO NOTHING", (player_id, name, rest[0] if rest else None, time.time()))

    # -- commands ----------------------------------------------------------------------------------------
    def queue_as_seat(self, game_id: int, token_hash: str, key: str, body_hash: str, expected_version: int,
                      action: dict[str, Any]) -> tuple[Seat | None, Receipt | None]:
        """The seat whose token hashes to `token_hash` (in any game), and, when it is a seat of this game, its
        command queued under `seat_command_id` as `queue_command` queues it: the receipt if this call created
        it, else None (a retry, a stale version, another game's seat: the caller takes its general path, which
        answers each of those). One statement where the backend can (`postgres.py`): a move's seat
        lookup was a round trip of its own whenever the gateway's seat cache had to look again."""
        seat = self.seat_by_token(token_hash)
        if seat is None or seat.game_id != game_id:
            return seat, None
        try:
            receipt, created = self.queue_command(game_id, seat_command_id(seat.player_id, key), body_hash,
                                                  expected_version, seat.player_id, action)
        except (Conflict, NotFound):
            return seat, None
        return seat, receipt if created else None

    def queue_command(self, game_id: int, command_id: str, body_hash: str, expected_version: int,
                      player_id: int | None, action: dict[str, Any]) -> tuple[Receipt, bool]:
        """Store a queued receipt; returns (receipt, created). A retry with the same key and body returns the
        first receipt; a different body under the same key, a stale version or a version another queued
        command already claimed raise Conflict and store nothing.

        The usual case is one statement: insert if the game is active at `expected_version`, and do nothing on
        either unique key (command id; one queued command per version). Only when nothing was inserted does
        the transaction below work out why."""
        now = time.time()
        try:
            with self._statement() as cur:
                row = self._one(
                    cur,
                    f"INSERT INTO {QUEUED_RECEIPT} SELECT id, %s, %s, %s, %s, %s, %s, %s FROM games "
                    "WHERE id = %s AND status = %s AND version = %s ON CONFLICT DO NOTHING RETURNING game_id",
                    (command_id, body_hash, QUEUED, expected_version, player_id, dumps(action), now, game_id,
                     ACTIVE, expected_version),
                )
            if row is not None:
                return Receipt(game_id, command_id, body_hash, QUEUED, expected_version, player_id, action,
                               now), True
        except Exception as exc:
            if not self._is_unique(exc):
                raise
        try:
            with self._tx(write=True) as cur:
                row = self._one(cur, "SELECT * FROM receipts WHERE game_id = %s AND command_id = %s",
                                (game_id, command_id))
                if row is not None:
                    return self.same_body(receipt_of(row), body_hash), False
                game = self._one(cur, "SELECT status, version FROM games WHERE id = %s", (game_id,))
                if game is None:
                    raise NotFound(f"game {game_id} does not exist")
                if game["status"] != ACTIVE:
                    raise Conflict(f"game {game_id} is {game['status']}, not active", "not_active")
                if game["version"] != expected_version:
                    raise Conflict(f"expected version {expected_version} but game {game_id} is at version "
                                   f"{game['version']}", "stale_version")
                now = time.time()
                self._exec(cur, f"INSERT INTO {QUEUED_RECEIPT} VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                           (game_id, command_id, body_hash, QUEUED, expected_version, player_id, dumps(action),
                            now))
                return Receipt(game_id, command_id, body_hash, QUEUED, expected_version, player_id, action,
                               now), True
        except Exception as exc:
            if not self._is_unique(exc):
                raise
            existing = self.get_receipt(game_id, command_id)
            if existing is not None:
                return self.same_body(existing, body_hash), False
            raise Conflict(f"another command is already queued at version {expected_version} of game {game_id}",
                           "stale_version") from exc

    @staticmethod
    def same_body(receipt: Receipt, body_hash: str) -> Receipt:
        """The stored receipt a retry is answered with, if the retry's body is the one stored under its key."""
        if receipt.body_hash != body_hash:
            raise Conflict(f"idempotency key {receipt.command_id!r} was used with a different request body",
                           "idempotency_key_reused")
        return receipt

    def get_receipt(self, game_id: int, command_id: str) -> Receipt | None:
        with self._tx() as cur:
            row = self._one(cur, "SELECT * FROM receipts WHERE game_id = %s AND command_id = %s",
                            (game_id, command_id))
        return None if row is None else receipt_of(row)

    def door_reads(self, game_id: int, command_id: str, table: bool) -> tuple[Game | None, list[Any]]:
        """What the move door reads before a move the table's rules may touch, on one connection: the game
        row's head (None when there is no such game, or when `command_id` is stored already: a retry, which
        the queue answers) and, with `table`, its read model (who holds what a purchase takes) and the game's
        table log (its events, oldest first). One statement for the first two, instead of a receipt read, a
        game read and a table log read through another pool (services/play/moves.py)."""
        columns = f"{GAME_HEAD}, state" if table else GAME_HEAD
        with self._tx() as cur:
            row = self._one(cur, f"SELECT {columns}, EXISTS (SELECT 1 FROM receipts WHERE game_id = %s AND "
                            "command_id = %s) AS retried FROM games WHERE id = %s", (game_id, command_id, game_id))
            if row is None or row["retried"]:
                return None, []
            events = [loads(r["data"]) for r in self._all(cur, TABLE_LOG, (game_id,))] if table else []
        return game_of(row), events

    def clock_configured(self, game_id: int) -> bool:
        """Whether the game's table log holds a time control (`configured`): one index probe."""
        with self._tx() as cur:
            return self._one(cur, "SELECT 1 AS found FROM clock_events WHERE game_id = %s AND type = 'configured' "
                             "LIMIT 1", (game_id,)) is not None

    def stale_receipts(self, older_than: float, limit: int = 500) -> list[Receipt]:
        """Receipts queued before `older_than` (epoch seconds): candidates for re-publishing."""
        with self._tx() as cur:
            return [receipt_of(r) for r in self._all(
                cur, f"SELECT * FROM receipts WHERE {QUEUED_ONLY} AND created_at < %s ORDER BY created_at LIMIT %s",
                (older_than, limit))]

    settles_unstored = False  # see `settle_known`

    def settle_transaction(self, game_id: int) -> AbstractContextManager[GameTx]:
        """The rules worker's transaction (services/play/apply.py): the game and its queued commands are
        read, one is settled, and everything commits together, or `Conflict(code="game_changed")` says another
        writer changed the game first and nothing was stored. Here the locking `game_transaction`, which
        never conflicts; PostgreSQL settles optimistically instead (`postgres.py`)."""
        return self.game_transaction(game_id)

    def settle_known(self, game: Game, receipt: Receipt, action_text: str, stored: bool = True
                     ) -> AbstractContextManager[GameTx]:
        """`settle_transaction` for a caller that already holds the game's head (its own last settle) and the
        queued receipt (the doorbell carried it, `action_text` as stored): a backend may then skip the read
        and check both in its write (PostgreSQL, `guarded.py`). Here it reads as usual, and the receipt it
        settles is the oldest queued one, whatever was known. A command nobody stored (`stored=False`) is
        for backends that `settles_unstored` only."""
        if not stored:
            raise ValueError("this store settles only stored commands: store it queued first")
        return self.settle_transaction(game.id)

    @contextmanager
    def game_transaction(self, game_id: int) -> Iterator[GameTx]:
        """Lock one game for writing; everything done through the yielded GameTx commits together."""
        with self._tx(write=True) as cur:
            tx = GameTx(self, cur, self._lock_game(cur, game_id, read_model=False))
            yield tx
            tx._flush()

    # -- reading -----------------------------------------------------------------------------------------
    def read_events(self, game_id: int, after_version: int = 0, limit: int | None = None) -> list[StoredEvent]:
        sql = "SELECT * FROM events WHERE game_id = %s AND version > %s ORDER BY version"
        params: list[Any] = [game_id, after_version]
        if limit is not None:
            sql += " LIMIT %s"
            params.append(limit)
        with self._tx() as cur:
            return [event_of(r) for r in self._all(cur, sql, params)]

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[StoredEvent]:
        """The global log after a position: a tail read, so everything committed so far is numbered first."""
        self.number_pending()
        with self._tx() as cur:
            return [event_of(r) for r in self._all(
                cur, "SELECT * FROM events WHERE position > %s ORDER BY position LIMIT %s", (after_position, limit))]

    def read_outbox(self, after_position: int = 0, limit: int = 1000) -> list[OutboxItem]:
        """The outbox after a position; numbers everything committed so far first, as `read_all` does."""
        self.number_pending()
        with self._tx() as cur:
            rows = self._all(cur, "SELECT * FROM outbox WHERE position > %s ORDER BY position LIMIT %s",
                             (after_position, limit))
        return [OutboxItem(r["position"], r["game_id"], r["version"], r["kind"], loads_or_none(r["payload"]),
                           r["created_at"]) for r in rows]

    def latest_snapshot(self, game_id: int) -> Snapshot | None:
        with self._tx() as cur:
            row = self._one(cur, "SELECT * FROM snapshots WHERE game_id = %s ORDER BY version DESC LIMIT 1",
                            (game_id,))
        return None if row is None else Snapshot(row["game_id"], row["version"], bytes(row["data"]),
                                                 row["created_at"])


def state_summary(state: dict[str, Any]) -> dict[str, Any]:
    """The part of a stored state a notification needs: which players act, in which round and phase."""
    return TurnChanged.of_state(None, None, state).summary()

"""The rules worker's transaction on PostgreSQL, settled optimistically: two statements, no lock held.

A locking transaction cost five round trips per command (BEGIN, the game row's lock, the queued commands,
the writes, COMMIT), each paid in client CPU, server CPU and latency, while the lock it held was almost
never contended: a game's commands go to one queue, served by one process, whose threads already serialise
on the game's session. Here the game and its two oldest queued commands are one read; the writes are one
autocommit statement that checks, in the same statement, that nothing changed since the read:

- the game row is updated only `WHERE version = <read version>` (a refusal, which leaves the row alone,
  locks it under the same condition), and the receipt only while it is still queued;
- the statement's last clause, `railpost_guard` (migration 0009), raises `serialization_failure` unless
  each of those found its one row, which undoes the whole statement.

A writer that got there first holds the row until it commits; the guarded statement waits for it, then
re-reads the row (READ COMMITTED), so it sees the new version, finds no row, and stores nothing. The caller
gets `Conflict(code="game_changed")`, drops its session (which is ahead of the store) and reads again.

A command whose game the worker already holds hot can skip the read (a `GuardedTx` with `known_action`): the gateway's
doorbell carries the queued receipt as it stored it, and the worker knows the game's head from its own last
settle. Nothing of that is trusted for the write. The same statement also requires that the receipt is still
queued with exactly that action, version, player and body hash (a doorbell that says otherwise stores
nothing), that no older command of the game is queued (the store's order, not delivery's, decides), and
that the game row still has the version and status remembered; else the applier reads, as above.

A command the gateway did not store (`stored=False`: it waited for the outcome, so the doorbell carried the
whole command, `services/play/commands.py`) is inserted already settled, by the same statement, only if no
receipt has its id yet and no command of the game is queued at its version or before; else nothing is
stored and the applier stores it queued, as the gateway would have, and reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..jsontext import dumps
from .gametx import GameTx, settled_fields
from .records import QUEUED, Game, Receipt
from .rows import GAME_HEAD, QUEUED_ONLY, Cursor, Row, game_of, loads_or_none

if TYPE_CHECKING:
    from .sql import SqlRecorder

MAX_PARAMETERS = 65_535  # one statement's limit in PostgreSQL's protocol

# The game's head and its two oldest queued commands (none: one row of NULLs), in one index probe each.
HEAD = tuple(GAME_HEAD.split(", "))
READ = ("SELECT " + ", ".join(f"g.{c}" for c in HEAD) + ", q.command_id, q.body_hash, "
        "q.expected_version, q.player_id, q.action, q.created_at AS queued_at FROM games AS g "
        "LEFT JOIN LATERAL (SELECT command_id, body_hash, expected_version, player_id, action, created_at "
        f"FROM receipts WHERE game_id = g.id AND {QUEUED_ONLY} ORDER BY expected_version, created_at LIMIT 2) "
        "AS q ON true WHERE g.id = %s")
LOCK = "SELECT 1 FROM games WHERE id = %s AND version = %s AND status = %s FOR NO KEY UPDATE"
# What a doorbell said of its receipt must be what is stored, and no older command of the game may be queued.
KNOWN_RECEIPT = (" AND expected_version = %s AND player_id IS NOT DISTINCT FROM %s AND body_hash = %s AND action = %s"
                 " AND NOT EXISTS (SELECT 1 FROM receipts AS older WHERE older.game_id = %s AND older."
                 f"{QUEUED_ONLY} AND older.expected_version < %s)")

# An unstored command's receipt, inserted settled (the parameters: its fields, then the game and version the
# NOT EXISTS names).
UNSTORED_RECEIPT = (
    "INSERT INTO receipts (game_id, command_id, body_hash, status, expected_version, player_id, action, "
    "created_at, new_version, reason, rule, http_status, settled_at, valid) "
    "SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s WHERE NOT EXISTS (SELECT 1 FROM receipts AS "
    f"older WHERE older.game_id = %s AND older.{QUEUED_ONLY} AND older.expected_version <= %s) "
    "ON CONFLICT DO NOTHING")


class GuardedTx(GameTx):
    """A GameTx whose reads were made before it began (or were known without reading) and whose writes are
    refused if they are stale."""

    def __init__(self, recorder: SqlRecorder, cur: Cursor, game: Game, queued: Sequence[Receipt],
                 known_action: str | None = None, stored: bool = True) -> None:
        super().__init__(recorder, cur, game)
        self._queued = list(queued)
        self._guarded: list[int] = []  # indexes of the writes that must each find exactly one row
        self._updates_game = False  # else the write locks the row at the version read (`LOCK`)
        self._known = known_action  # the action's stored text, when the receipt came with the doorbell
        self._stored = stored  # False: the doorbell carried a command nobody stored; it is inserted settled

    @classmethod
    def from_read(cls, recorder: SqlRecorder, cur: Cursor, rows: Sequence[Row]) -> GuardedTx:
        """On the rows `READ` returned: the game's head and its oldest queued commands, as they are stored."""
        game = _head(rows[0])
        return cls(recorder, cur, game, [_queued(game.id, r) for r in rows if r["command_id"] is not None])

    def next_queued(self) -> Receipt | None:
        self.more_queued = len(self._queued) > 1
        return self._queued[0] if self._queued else None

    def settle(self, receipt: Receipt, status: str, **fields: Any) -> dict[str, Any]:
        settled = super().settle(receipt, status, **fields) if self._stored else self._insert_settled(
            receipt, status, **fields)
        self._guarded.append(len(self._writes) - 1)
        return settled

    def _insert_settled(self, receipt: Receipt, status: str, *, new_version: int | None = None,
                        reason: str | None = None, rule: str | None = None, http_status: int | None = None,
                        valid: Any = None) -> dict[str, Any]:
        settled = settled_fields(status, new_version, reason, rule, http_status, valid)
        assert self._known is not None
        self._later(UNSTORED_RECEIPT, (
            receipt.game_id, receipt.command_id, receipt.body_hash, status, receipt.expected_version,
            receipt.player_id, self._known, receipt.created_at, new_version, reason, rule, http_status,
            settled["settled_at"], None if valid is None else dumps(valid), receipt.game_id,
            receipt.expected_version))
        self.settled[receipt.command_id] = settled
        return settled

    def _receipt_condition(self, receipt: Receipt) -> tuple[str, Sequence[Any]]:
        if self._known is None or not self._stored:
            return "", ()
        return KNOWN_RECEIPT, (receipt.expected_version, receipt.player_id, receipt.body_hash, self._known,
                               self.game.id, receipt.expected_version)

    def update_game(self, **fields: Any) -> None:
        super().update_game(**fields)  # at the version and status read (or remembered)
        self._guarded.append(len(self._writes) - 1)
        self._updates_game = True

    def _write(self) -> None:
        statements = self._statements()
        if not statements:
            return  # nothing was queued: nothing to store
        guarded = self._guarded
        if not self._updates_game:
            statements.insert(0, (LOCK, (self.game.id, self.game.version, self.game.status)))
            guarded = [0] + [i + 1 for i in guarded]
        check = " AND ".join(f"(SELECT count(*) FROM w{i}) = 1" for i in guarded) or "true"
        said = (f"game {self.game.id} changed after version {self.game.version} was read" if self._known is None
                else f"game {self.game.id} or its command is not as known at version {self.game.version}")
        sql, params = one_statement(statements, f"SELECT railpost_guard({check}, %s)", [said])
        if len(params) > MAX_PARAMETERS:
            raise ValueError(f"a settle of {len(params)} parameters cannot be one statement")
        self._rec._exec(self._cur, sql, params)


def one_statement(statements: Sequence[tuple[str, Sequence[Any]]], final: str = "SELECT 1",
                  final_params: Sequence[Any] = ()) -> tuple[str, list[Any]]:
    """Several statements as one, each a CTE `w<i>` (data-modifying ones return a row per row they touched,
    so `final` can count them), then `final`: PostgreSQL runs each exactly once, on one snapshot."""
    parts = [f"w{i} AS ({sql}{'' if sql.startswith('SELECT') else ' RETURNING 1'})"
             for i, (sql, _params) in enumerate(statements)]
    params = [value for _sql, values in statements for value in values]
    return f"WITH {', '.join(parts)} {final}", [*params, *final_params]


def _head(row: Row) -> Game:
    return game_of({c: row[c] for c in HEAD})


def _queued(game_id: int, row: Row) -> Receipt:
    return Receipt(game_id=game_id, command_id=row["command_id"], body_hash=row["body_hash"], status=QUEUED,
                   expected_version=row["expected_version"], player_id=row["player_id"],
                   action=loads_or_none(row["action"]), created_at=row["queued_at"])

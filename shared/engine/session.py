"""A game session: the action log of one game and the engine state folded from it.

The session owns what is not a rule of any title: undo/redo (which change which earlier actions count),
chat messages, recorded auto actions, snapshots and the 18xx.games record format. The rules live in
`Game`; this module never looks inside an action beyond its type.
"""

from __future__ import annotations

import copy
import pickle
import zlib
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import EngineError, IllegalAction, MalformedAction, ReplayError
from .game import Game
from .programs import run_programs
from .records import META_TYPES, RANGE_HINTS, meta_entity, record_action, record_title

CHECKPOINT_EVERY = 16  # ... then thinned to a spacing of up to half their distance (`_thin_checkpoints`)
# 2: stock rounds keep each player's latest turn for standing orders; 3: the board keeps its title's route
# rules object (TitleRules.route_rules), not a name; 4: titles keep their facts in a typed `title_state`;
# 5: 1840's and 1825's facts too (State1840, State1825), 1840's tram variants read from the definition;
# 6: 1828's too (State1828), and the game keeps no untyped `extra` dict; 7: the log in pickled chunks;
# 8: checkpoints compressed; 9: the per-action rules in the titles' steps and rounds (a round pickled
# before holds the core steps or round, without its title's rules); 10: the stock round's class moved to
# `core/stockround.py` (a round pickled before names it in `core/stock.py`)
SNAPSHOT_FORMAT = 10
ENTRY_CHUNK = 200  # log entries per pickled chunk of a snapshot (`GameSession.__getstate__`)


def _indices(values: Iterable[int]) -> array[int]:
    """A checkpoint's key, the log positions of the actions folded into it, as 4-byte integers: a tuple
    holds a Python int per position past 256 (36 bytes each), which made the keys a third of a long game's
    session (26,880 positions over 14 checkpoints at action 2,417: 945 KB against 105 KB)."""
    return array("i", values)


@dataclass
class _Entry:
    action: dict[str, Any]
    active: bool = True


@dataclass
class GameSession:
    """One game: its set-up, its action log and the current state.

    `submit` is the checked door for live play; `from_record` replays a recorded game, accepting unchecked
    only actions that are undone later (as the reference does), and validating every action that stays.
    """

    title: str
    players: list[dict[str, Any]]
    seed: int
    optional_rules: list[str]
    game_id: int | str = 0
    entries: list[_Entry] = field(default_factory=list)
    redo_stack: list[list[int]] = field(default_factory=list)
    state: Game | None = None
    _checkpoints: dict[int, bytes] = field(default_factory=dict, repr=False)
    _active_count: int = 0
    _chunks: dict[int, bytes] = field(default_factory=dict, repr=False, compare=False)

    # -- construction -------------------------------------------------------------------------------------
    @classmethod
    def new(
        cls,
        title: str,
        players: Iterable[dict[str, Any]],
        seed: int = 0,
        optional_rules: Iterable[str] = (),
        game_id: int | str = 0,
    ) -> GameSession:
        session = cls(title, [dict(p) for p in players], int(seed), list(optional_rules), game_id)
        session.state = session._fresh()
        return session

    def _fresh(self) -> Game:
        return Game.new(self.title, self.players, self.seed, self.optional_rules)

    @classmethod
    def from_record(
        cls,
        record: dict[str, Any],
        progress: Callable[[int, int], None] | None = None,
        on_action: Callable[[int, dict[str, Any], GameSession], None] | None = None,
        live: bool = False,
        limit: int | None = None,
    ) -> GameSession:
        """Replay an 18xx.games game record. Raises ReplayError naming the first refused action.

        `live` submits every action as a live move, exactly as the API's rules worker does with a posted
        move (`as_posted`: no recorded id or `auto_actions`, the engine derives them; the session numbers the
        actions and an undo names its target by that number). This is the path every real game takes. A
        move the record itself takes back later is the one exception: it is applied trusted, as in replay
        mode. It never shaped the game, and the record holds it as the server of its day accepted it (a
        people's game may keep a move the rules refuse today, undone at once: 18xx.games' own load skips
        those checks for every loaded move); every move that stays is judged in full (docs/conformance.md,
        "Modes of a forward check").
        `limit` stops after that many leading actions of the record.
        """
        settings = record.get("settings") or {}
        seed = settings.get("seed")
        if seed in (None, ""):
            digits = "".join(ch if ch.isdigit() else " " for ch in str(record.get("id", ""))).split()
            seed = int(digits[0]) if digits else 0
        session = cls.new(
            record["title"],
            record["players"],
            int(seed),
            settings.get("optional_rules") or [],
            record.get("id", 0),
        )
        actions = record.get("actions") or []
        if limit is not None:
            actions = actions[:limit]
        survivors, redo = _resolve(actions)  # undo/redo worked out once: the flags here, the stack at the end
        total = len(actions)
        if on_action is None and not live:
            session._fold_survivors(actions, survivors, progress, redo)
            return session
        posted: dict[Any, int] = {}  # live: recorded id -> the id this session gave the action
        for index, action in enumerate(actions):
            try:
                if live:
                    posted[action.get("id")] = session.submit(as_posted(action, posted),
                                                              trusted=not survivors[index])["id"]
                else:
                    session.submit(action, trusted=not survivors[index], keep_id=True, recorded=True)
            except EngineError as err:
                raise ReplayError(index, action, err) from err
            if on_action is not None:
                on_action(index, action, session)
            if progress is not None:
                progress(index + 1, total)
        return session

    def _fold_survivors(self, actions: list[dict[str, Any]], survivors: list[bool],
                        progress: Callable[[int, int], None] | None, redo: list[list[int]] | None = None) -> None:
        """Replay only what stays active, as 18xx.games loads a record.

        A record is a game as its server accepted it, often under an older version of the rules' code:
        18xx.games loads one without re-judging where its tiles and stations went (the checks of placement,
        rotation and connection are skipped while loading; money, ownership and turn order are not), and
        so does an import here (`trusted`). What is posted live is judged in full (`submit`).
        Actions undone later change nothing in the end, so they are stored but never applied; the log,
        the active flags and the redo stack come out exactly as a step-by-step replay leaves them.

        The state does too, in a title whose state depends on how it was reached (an 1828 merger seen while
        it waits; `Game.loading`): a game moved here goes on from the position its table saw, as live mode
        would (docs/service.md, "Import"). That position is a reload of the actions active at the record's
        last undo or redo (one load, then looked at, as `_rebuild` leaves it), and every move since then
        was seen as it was made. Without an undo or redo the whole record was seen move by move.
        """
        assert self.state is not None
        total = len(actions)
        reload = max((i for i, a in enumerate(actions) if a.get("type") in ("undo", "redo")), default=-1)
        self.state.loading = reload >= 0  # the last undo's or redo's reload
        for index, action in enumerate(actions):
            stored = dict(action)
            if not isinstance(stored.get("id"), int):
                stored["id"] = self.next_id()
            if survivors[index]:
                try:
                    self.state.process(stored, trusted=True)
                    for auto in stored.get("auto_actions") or []:
                        self.state.process(auto, trusted=True)
                except EngineError as err:
                    raise ReplayError(index, action, err) from err
                self.entries.append(_Entry(stored))
                self._active_count += 1
                if index >= total - 2 * CHECKPOINT_EVERY:  # earlier ones would be thinned out anyway
                    self._maybe_checkpoint()
            else:
                self.entries.append(_Entry(stored, active=False))
            if index == reload:  # the reloaded position is shown, and every move after it is seen as made
                self.state.loading = False
                self.state.rules.looked_at(self.state)
            if progress is not None:
                progress(index + 1, total)
        self.state.loading = False
        self.redo_stack = final_redo_stack(actions) if redo is None else redo

    # -- the checked door ---------------------------------------------------------------------------------
    def submit(self, action: dict[str, Any], *, trusted: bool = False, keep_id: bool = False,
               recorded: bool = False) -> dict[str, Any]:
        """Validate and apply one action; on refusal nothing changes. Returns the stored action.

        Live submissions (`recorded=False`) get their standing-order consequences generated here; a
        recorded action brings its own `auto_actions`, applied verbatim.
        """
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise MalformedAction("an action is a JSON object with a string 'type'", "action_shape")
        stored = dict(action)
        if not keep_id or not isinstance(stored.get("id"), int):
            stored["id"] = self.next_id()
        kind = stored["type"]
        assert self.state is not None
        for hint in RANGE_HINTS:  # a bid posted back as legal-actions stated it: only its price is the move
            stored.pop(hint, None)
        if kind in META_TYPES:  # the reference names the acting player on undo, redo and chat too
            meta_entity(stored, self.acting_players(), self.players)
        if kind == "message":
            self.entries.append(_Entry(stored, active=False))
        elif kind == "undo":
            self._undo(stored)
        elif kind == "redo":
            self._redo(stored)
        elif recorded:
            self.state.process(stored, trusted=trusted)
            for auto in stored.get("auto_actions") or []:
                self.state.process(auto, trusted=trusted)
            self._record(stored)
        else:
            stored.pop("auto_actions", None)
            # a path-dependent title's state may differ from a fold of its log (after an undo, a merger
            # watched; only such a title ever marks its state watched): only a copy brings it back exactly
            exact = self.state.rules.path_dependent
            backup = pickle.dumps(self.state, pickle.HIGHEST_PROTOCOL) if exact else None
            try:
                self.state.process(stored, trusted=trusted)
                autos = run_programs(self.state)
            except EngineError:
                # Otherwise the state is a fold of the active log, which a refusal leaves untouched: fold it
                # again from the newest checkpoint, as exact as a copy but paid only on refusal. Not a load:
                # the state must come back as it was.
                if backup is not None:
                    self.state = pickle.loads(backup)
                else:
                    self._rebuild(load=False)
                raise
            if autos:
                stored["auto_actions"] = autos
            self._record(stored)
        return stored

    def _record(self, stored: dict[str, Any]) -> None:
        self.entries.append(_Entry(stored))
        self._active_count += 1
        self.redo_stack.clear()
        self._maybe_checkpoint()

    def next_id(self) -> int:
        return (self.entries[-1].action["id"] + 1) if self.entries else 1

    # -- undo / redo --------------------------------------------------------------------------------------
    def _undoable(self) -> list[int]:
        return [i for i, e in enumerate(self.entries) if e.active and e.action["type"] not in META_TYPES]

    def _undo(self, action: dict[str, Any]) -> None:
        active = self._undoable()
        target = action.get("action_id")
        if target is None:
            if not active:
                raise IllegalAction("there is nothing to undo", "undo_empty")
            group = active[-1:]
        elif target == 0:
            group = active
        else:
            pos = next((i for i, e in enumerate(self.entries) if e.action.get("id") == target), None)
            if pos is None:
                raise MalformedAction(f"undo names unknown action id {target}", "undo_target")
            group = [i for i in active if i > pos]
        for i in group:
            self.entries[i].active = False
            self._chunks.pop(i // ENTRY_CHUNK, None)
        self._active_count -= len(group)
        self.redo_stack.append(group)
        self.entries.append(_Entry(action, active=False))
        self._rebuild()

    def _redo(self, action: dict[str, Any]) -> None:
        if not self.redo_stack:
            raise IllegalAction("there is nothing to redo", "redo_empty")
        group = self.redo_stack.pop()
        for i in group:
            self.entries[i].active = True
            self._chunks.pop(i // ENTRY_CHUNK, None)
        self._active_count += len(group)
        self.entries.append(_Entry(action, active=False))
        self._rebuild()

    def _rebuild(self, load: bool = True) -> None:
        """Fold the active actions again from the newest checkpoint that precedes any change. An undo or
        redo is a `load` (Game.loading), as the reference reloads the game; restoring after a refusal is not."""
        active = [i for i, e in enumerate(self.entries) if e.active]
        # checkpoints are keyed by the number of active actions folded; valid only while that prefix holds
        prefix_key = _indices(active)
        state: Game | None = None
        start = 0
        for count in sorted(self._checkpoints, reverse=True):
            key, blob = self._checkpoints[count]  # type: ignore[misc]
            if count <= len(active) and key == prefix_key[:count]:
                state = pickle.loads(zlib.decompress(blob))
                start = count
                break
        if state is None:
            state = self._fresh()
        state.loading = load  # a load: titles may skip what only a watched game does
        for i in active[start:]:
            action = self.entries[i].action
            state.process(action, trusted=True)
            for auto in action.get("auto_actions") or []:
                state.process(auto, trusted=True)
        state.loading = False
        state.rules.looked_at(state)  # the rebuilt position is shown before the next move, as the reference's
        self.state = state

    def _maybe_checkpoint(self) -> None:
        # a running count keeps this O(1) per action; the prefix key is built only when one is due
        if self._active_count % CHECKPOINT_EVERY or getattr(self.state, "watched", False):
            return  # a watched state differs from its rebuild (Game.watched): never fold on from it
        active = _indices(i for i, e in enumerate(self.entries) if e.active)
        # compressed (zlib's fastest level: 19 KB -> 5 KB in 1825, 0.2 ms once per CHECKPOINT_EVERY actions,
        # 0.08 ms to read back on an undo or refusal): checkpoints were a third of a cached session's memory
        blob = zlib.compress(pickle.dumps(self.state, pickle.HIGHEST_PROTOCOL), 1)
        self._checkpoints[len(active)] = (active, blob)  # type: ignore[assignment]
        self._thin_checkpoints(len(active))

    def _thin_checkpoints(self, newest: int) -> None:
        """Dense near the newest action, sparser the further back: an undo of d actions folds again from a
        checkpoint at most about d/2 before its target (at most CHECKPOINT_EVERY for the last few dozen), and
        a game keeps O(log n) checkpoints (19 KB each in 1825, 5 KB stored) instead of one per 32 actions,
        which made a 2,400-action game's session and every one of its snapshots carry 1.5 MB of them. The
        spacing at a distance is a power of two times CHECKPOINT_EVERY, so a checkpoint dropped once would
        be dropped at any later point too: thinning never needs one back."""
        for count in list(self._checkpoints):
            spacing = CHECKPOINT_EVERY
            while spacing * 4 <= newest - count:
                spacing *= 2
            if count % spacing:
                del self._checkpoints[count]

    # -- reading ------------------------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        assert self.state is not None
        return self.state

    @property
    def actions(self) -> list[dict[str, Any]]:
        return [e.action for e in self.entries]

    @property
    def version(self) -> int:
        """Number of stored actions (undo, redo and messages included): the stream version."""
        return len(self.entries)

    def digest(self, action: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.game.digest(action or {"id": 0, "type": "setup"})

    def acting_players(self) -> list[int]:
        return self.game.acting_players()

    def turn_fields(self) -> dict[str, Any]:
        """The digest's fields that say whose turn it is, without building the rest of the digest: the
        service compares them before and after each move to tell a player it is his turn."""
        game = self.game
        return {"round": game.round.kind, "turn": game.turn, "phase": game.phase.name, "acting": game.acting()}

    def legal_actions(self, entity: Any = None) -> list[dict[str, Any]]:
        return self.game.legal_actions(entity)

    def controller(self, entity: Any, entity_type: str | None = None) -> Any:
        return self.game.controller(entity, entity_type)

    def consenters(self, action: dict[str, Any]) -> tuple[str | None, list[int]]:
        """(kind, players): whose word `action` needs besides its mover's (`consent`): "purchase" for a move
        taking from another player's holding, "end_game" for ending the game by agreement, else (None, [])."""
        from .consent import ending_agreed_by, taken_from

        if self.game.finished:
            return None, []
        owners = taken_from(self.game, action)
        if owners:
            return "purchase", owners
        table = ending_agreed_by(self.game, action)
        return ("end_game", table) if table else (None, [])

    def holders(self) -> dict[str, dict[str, int]]:
        """Who holds each private and train a purchase would take from a player (`consent.holders`)."""
        from .consent import holders

        return holders(self.game)

    def proposed_by(self, player: int) -> int | None:
        return self.game.proposed_by(player)

    @property
    def finished(self) -> bool:
        return self.game.finished

    @property
    def result(self) -> dict[str, int] | None:
        return self.game.result() if self.game.finished else None

    def to_record(self) -> dict[str, Any]:
        """Export in the 18xx.games game-record format, every action in the shape the reference reads
        (`records`: no range hints, undo/redo/chat naming their player, the title as records name it);
        replayable by `from_record` and by the reference."""
        record: dict[str, Any] = {
            "id": self.game_id,
            "title": record_title(self.title),
            "players": copy.deepcopy(self.players),
            "settings": {"seed": self.seed, "optional_rules": list(self.optional_rules)},
            "actions": [record_action(a, self.players) for a in copy.deepcopy(self.actions)],
            "status": "finished" if self.finished else "active",
        }
        if self.finished:
            record["result"] = {str(k): v for k, v in (self.result or {}).items()}
            record["game_end_reason"] = self.game.game_end_reason
        return record

    # -- snapshots ----------------------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """A snapshot must not cost more as the game grows, yet it carries the whole log (undo reaches back
        anywhere without reading the store). So the log is pickled in chunks of ENTRY_CHUNK entries as plain
        (action, active) pairs, and a full chunk stays pickled in `_chunks` until an undo or redo flips an
        entry in it: each snapshot pickles only the entries since the last full chunk, and copies the rest
        as bytes. Logged actions are never changed once recorded; only their `active` flag is."""
        full = len(self.entries) // ENTRY_CHUNK
        for k in range(full):
            if k not in self._chunks:
                part = self.entries[k * ENTRY_CHUNK:(k + 1) * ENTRY_CHUNK]
                self._chunks[k] = pickle.dumps([(e.action, e.active) for e in part], pickle.HIGHEST_PROTOCOL)
        state = dict(self.__dict__)
        state["entries"] = ([self._chunks[k] for k in range(full)],
                            [(e.action, e.active) for e in self.entries[full * ENTRY_CHUNK:]])
        state["_chunks"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        chunks, tail = state["entries"]
        entries = [_Entry(action, active) for blob in chunks for action, active in pickle.loads(blob)]
        entries += [_Entry(action, active) for action, active in tail]
        self.__dict__.update(state, entries=entries, _chunks=dict(enumerate(chunks)))

    def snapshot(self) -> bytes:
        return pickle.dumps((SNAPSHOT_FORMAT, self), pickle.HIGHEST_PROTOCOL)

    @staticmethod
    def restore(blob: bytes) -> GameSession:
        fmt, session = pickle.loads(blob)
        if fmt != SNAPSHOT_FORMAT:
            raise ValueError(f"snapshot format {fmt} is not {SNAPSHOT_FORMAT}; replay the event log instead")
        return session


def as_posted(action: dict[str, Any], ids: dict[Any, int]) -> dict[str, Any]:
    """A recorded action as a client posts it to the API: without what the server assigns or derives (its
    `id`, its `auto_actions`), an undo's target named by the id the server gave that action (`ids`: recorded
    id -> server id). The one shape live replays (`from_record(live=True)`, the conformance checks) and REST
    games (bench/rest_conformance.py) submit, so the two are one path."""
    out = {k: v for k, v in action.items() if k not in ("id", "auto_actions")}
    if out.get("type") == "undo" and out.get("action_id"):
        out["action_id"] = ids.get(out["action_id"], out["action_id"])
    return out


def final_redo_stack(actions: list[dict[str, Any]]) -> list[list[int]]:
    """The redo stack (groups of action positions) left after the whole list."""
    return _resolve(actions)[1]


def final_active_flags(actions: list[dict[str, Any]]) -> list[bool]:
    """Which recorded actions are still active after the whole list (undo/redo resolved)."""
    return _resolve(actions)[0]


class UndoWalk:
    """Undo and redo walked one recorded action at a time. Undo always takes a suffix of the active actions
    and redo gives back the last suffix taken (any new action empties the redo stack), so the active
    positions stay one ordered list (`live`) cut and re-extended at its end. `group` says which positions an
    action would take back or give back before `apply` does it (a REST replay leaves out moves its server
    refused: bench/rest_conformance.py)."""

    def __init__(self, actions: list[dict[str, Any]]) -> None:
        self.position = {a.get("id"): j for j, a in enumerate(actions)}
        self.live: list[int] = []
        self.stack: list[list[int]] = []

    def group(self, action: dict[str, Any]) -> list[int]:
        """The positions an undo takes back or a redo gives back; [] for any other action."""
        kind = action.get("type")
        if kind == "undo":
            target = action.get("action_id")
            if target is None:
                return self.live[-1:]
            after = -1 if target == 0 else self.position.get(target, -1)
            cut = len(self.live)
            while cut > 0 and self.live[cut - 1] > after:
                cut -= 1
            return self.live[cut:]
        if kind == "redo":
            return list(self.stack[-1]) if self.stack else []
        return []

    def apply(self, index: int, action: dict[str, Any]) -> list[int]:
        """Walk action `index`; returns the positions it took back (undo) or gave back (redo)."""
        kind = action.get("type")
        if kind == "message":
            return []
        group = self.group(action)
        if kind == "undo":
            del self.live[len(self.live) - len(group):]
            self.stack.append(group)
        elif kind == "redo":
            if self.stack:
                self.live.extend(self.stack.pop())
        else:
            self.live.append(index)
            self.stack.clear()
        return group


def _resolve(actions: list[dict[str, Any]]) -> tuple[list[bool], list[list[int]]]:
    """Walk undo/redo over the list (`UndoWalk`): the final active flags and the final redo stack."""
    walk = UndoWalk(actions)
    for i, action in enumerate(actions):
        walk.apply(i, action)
    active = [False] * len(actions)
    for j in walk.live:
        active[j] = True
    return active, walk.stack

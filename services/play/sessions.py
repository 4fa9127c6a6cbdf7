"""Engine sessions rebuilt from the store: newest snapshot plus the events after it, then kept in a small
per-process LRU cache and caught up incrementally, so neither a worker nor a reader replays a whole game."""

from __future__ import annotations

import gc
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from shared.engine import GameSession
from shared.eventstore import SqlRecorder
from shared.eventstore.records import Game

RECLAIM_AFTER = 64  # sessions dropped before the frozen heap is collected again, at the least


class _Heap:
    """Keeps the cyclic garbage collector off the cached sessions of a server process (process-wide).

    A cached session is hundreds of thousands of small objects that live as long as the process: every full
    collection walks all of them (measured: 80-280 ms with 120 sessions cached, growing with the cache), a
    pause that lands on whichever command is being applied. In a server process (`enable`: the rules
    worker, the gateway's workers) the heap is frozen after each session is built (`gc.freeze`: what exists
    now is left to reference counting alone), so collections only walk what came later. Dropped sessions
    hold reference cycles that only the collector frees: once as many were dropped (evicted, forgotten,
    reloaded) as a quarter of those cached (RECLAIM_AFTER at the least), the next build unfreezes the heap,
    collects it once and freezes it again — the collector's own rule for its oldest generation, so that walk
    costs a bounded share per session dropped, and a worker whose cache holds its active games seldom pays
    it. Off by default: a process that drops whole caches (tests) would keep their cycles."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.enabled = False
        self.dropped_since = 0
        self.cached = 0

    def enable(self) -> None:
        self.enabled = True

    def dropped(self, count: int = 1) -> None:
        with self._lock:
            self.dropped_since += count
            self.cached = max(0, self.cached - count)

    def built(self) -> None:
        with self._lock:
            self.cached += 1
            if not self.enabled:
                return
            if self.dropped_since >= max(RECLAIM_AFTER, self.cached // 4):
                self.reclaim()
            gc.collect(1)  # the build's own young garbage goes before it could be frozen
            gc.freeze()

    def reclaim(self) -> None:
        """Collect everything once (the dropped sessions' cycles), then freeze what is left."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.dropped_since = 0


HEAP = _Heap()


def players_of(recorder: SqlRecorder, game_id: int) -> list[dict[str, object]]:
    return [{"id": s.player_id, "name": s.name} for s in recorder.seats(game_id)]


class SessionCache:
    def __init__(self, recorder: SqlRecorder, size: int = 256) -> None:
        self._recorder = recorder
        self._size = size
        self._entries: OrderedDict[int, GameSession] = OrderedDict()
        self._heads: dict[int, Game] = {}  # the game row's head as this process last settled it
        self._locks: dict[int, threading.RLock] = {}
        self._guard = threading.Lock()

    def _lock(self, game_id: int) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(game_id, threading.RLock())

    @contextmanager
    def hold(self, game_id: int) -> Iterator[None]:
        """The game's session lock, for a caller about to read the game and then `use` its session: this
        process's appliers of one game then take turns from their read on, rather than racing to a write
        of which the store would keep only the first (services/play/apply.py)."""
        with self._lock(game_id):
            yield

    @contextmanager
    def use(self, game: Game) -> Iterator[GameSession]:
        """The session at exactly `game.version`, held exclusively while the caller uses it."""
        with self._lock(game.id):
            session = self._entries.get(game.id)
            built = session is None or session.version > game.version
            if built:
                if session is not None:
                    HEAP.dropped()
                session = self._load(game)
            self._catch_up(session, game)
            with self._guard:
                self._entries[game.id] = session
                self._entries.move_to_end(game.id)
                while len(self._entries) > self._size:
                    old, _ = self._entries.popitem(last=False)
                    self._locks.pop(old, None)
                    self._heads.pop(old, None)
                    HEAP.dropped()
            if built:
                HEAP.built()
            yield session

    def forget(self, game_id: int) -> None:
        """Drop a session whose in-memory state may be ahead of what was committed."""
        with self._guard:
            self._heads.pop(game_id, None)
            if self._entries.pop(game_id, None) is not None:
                HEAP.dropped()

    def remember(self, head: Game) -> None:
        """The game row's head as a settle just committed it, for the next command of a game whose session is
        cached (`head`): the worker then need not read it (services/play/apply.py)."""
        with self._guard:
            if head.id in self._entries:
                self._heads[head.id] = head

    def head(self, game_id: int) -> Game | None:
        """The head remembered for a cached session: a belief, which the store checks when it writes."""
        with self._guard:
            return self._heads.get(game_id) if game_id in self._entries else None

    def _load(self, game: Game) -> GameSession:
        snapshot = self._recorder.latest_snapshot(game.id)
        if snapshot is not None and snapshot.version <= game.version:
            try:
                return GameSession.restore(snapshot.data)
            except (ValueError, Exception):  # an old snapshot format: fall back to replaying the log
                pass
        return GameSession.new(game.title, players_of(self._recorder, game.id), game.seed, game.options, game.id)

    def _catch_up(self, session: GameSession, game: Game) -> None:
        if session.version == game.version:
            return
        for event in self._recorder.read_events(game.id, after_version=session.version):
            if event.version > game.version:
                break
            # stored actions were validated when first applied, and carry the auto actions derived then:
            # apply those as recorded (deriving them again could differ after an engine change)
            session.submit(event.data["action"], trusted=True, keep_id=True, recorded=True)
        if session.version != game.version:
            raise RuntimeError(f"game {game.id}: rebuilt session at version {session.version}, "
                               f"store says {game.version}")

"""A position's offers, worked out once after the move that reached it and kept for its seats to read.

What a player waits for when he opens his turn is legal-actions. Working it out can cost more than loading
the whole game (every tile lay of a large network tried, a run suggested, merger partners tried on copies),
and the game page, the REST client and the seat asking again all ask the same question of the same
position. So the rules worker, once it has answered a move (`prepare`, after the settle announcement: the
mover never waits for it), works out every seat's answer of the position the move reached, while it holds
the game's session, and keeps it on a shelf keyed by (game, version); the gateway's legal-actions reads it
back (`Shelf.wait`) instead of catching its own session up and asking the engine again.

- **Only games someone reads.** A game whose offers nobody asked for lately (a bot posting recorded moves,
  a game whose players are away) gets none worked out: a read marks the game (`Shelf.mark`, for
  `ASKED_SECONDS`), and the worker prepares only marked games. A game's first read after a quiet spell is
  worked out by the gateway as before, and kept. A read that comes while the worker is still working out
  that very position (the mover's own page, asking for his next step) waits for it (`Shelf.wait`) instead
  of working it out a second time.
- **The same answer.** A kept answer is the engine's answer of that version, which is a pure function of
  the game's actions: a version is never reused for another position, so nothing kept goes stale. What
  depends on the table rather than the position is applied when it is read: which moves this table's rules
  make proposals (`SeatOffers.split`, with the consent each move needs kept beside it), and a stand-in
  or an operator (answered from the session, as before: they are rare).
- **A cache, never a source.** A shelf that cannot be read or written (Redis down) is passed by: the
  gateway works the answer out as before, the worker skips. `RedisShelf` keeps one hash per game, its
  fields named by version and seat, replaced whole by each preparation; `LocalShelf` (the embedded default:
  gateway and worker share one process) keeps the newest position of recent games in memory.
"""

from __future__ import annotations

import logging
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from services.play.legal import TAKING, seat_actions, seat_dead_ends
from services.play.sessions import SessionCache
from shared.engine import GameSession
from shared.eventstore.records import ACTIVE
from shared.jsontext import dumps_bytes, loads

log = logging.getLogger("railpost.offers")

ASKED_SECONDS = 3 * 24 * 3600  # a game read within this is prepared after each move (a turn of a slow game)
KEEP_SECONDS = 3 * 24 * 3600  # how long a kept position outlives its last preparation
ASKED_MEMO_SECONDS = 5.0  # a worker asks Redis whether a game is read at most this often per game
MARK_REFRESH_SECONDS = 600.0  # a gateway process renews a game's mark at most this often
PREPARING_SECONDS = 30  # a worker's announcement that it is working a position out lapses after this
WAIT_SECONDS = 5.0  # how long a reader waits for a position a worker is working out, before working it out
POLL_SECONDS = 0.01
LOCAL_GAMES = 512  # positions the embedded shelf keeps (one per game, the newest)
CONSENTED = TAKING | {"end_game"}  # the moves whose consent is kept beside them
FORMAT = b"o1:"  # the kept answer's spelling (`SeatOffers.encode`); another is read as nothing kept


@dataclass(frozen=True)
class SeatOffers:
    """One seat's answer at one position: its moves (`seat_actions`, in order), for each the consent it needs
    (`GameSession.consenters`: [kind, players], [None, []] for a move of its own) and its dead ends."""

    actions: list[dict[str, Any]]
    consents: list[list[Any]]
    dead_ends: list[dict[str, Any]]

    def encode(self) -> bytes:
        """JSON, deflated (a seat's answer repeats itself: its standing orders for every corporation, the tile
        lays of one hex; 66-190 KB of a position's answers keep as 3-7 KB), after a format mark."""
        return FORMAT + zlib.compress(dumps_bytes([self.actions, self.consents, self.dead_ends]), 1)

    @classmethod
    def decode(cls, data: bytes) -> SeatOffers | None:
        """The answer `encode` kept, or None for anything else (kept by another version of this code)."""
        if not data.startswith(FORMAT):
            return None
        try:
            actions, consents, dead_ends = loads(zlib.decompress(data[len(FORMAT):]))
        except (zlib.error, ValueError):
            return None
        return cls(actions, consents, dead_ends)

    def split(self, needs: Callable[[str | None], bool]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(the seat's own moves, the moves it may only propose): those this table's rules put to the players
        they touch first (`needs(kind)`, `Table.needs`), each with `needs_consent` naming them."""
        own: list[dict[str, Any]] = []
        proposals: list[dict[str, Any]] = []
        for action, (kind, affected) in zip(self.actions, self.consents, strict=True):
            if affected and needs(kind):
                proposals.append({**action, "needs_consent": affected})
            else:
                own.append(action)
        return own, proposals


def seat_offers(session: GameSession, player_id: int | None, entity: Any = None,
                absent: int | None = None, memo: dict[Any, Any] | None = None) -> SeatOffers:
    """The seat's answer worked out from the session (`seat_actions`, `seat_dead_ends`: `player_id` None is
    an operator, `entity` one entity's moves, `absent` the seat it stands in for). What is kept is the answer
    to a seat token with no entity."""
    actions = seat_actions(session, player_id, entity, absent=absent, memo=memo)
    consents = [list(session.consenters(a)) if a.get("type") in CONSENTED else [None, []] for a in actions]
    return SeatOffers(actions, consents, seat_dead_ends(session, player_id, entity, memo))


def position_offers(session: GameSession, memo: dict[Any, Any] | None = None,
                    players: list[int] | None = None) -> dict[int, SeatOffers]:
    """Every seated player's answer at the session's position (`players`: those seats only). `memo`: shared
    by every seat asked at this position, so the acting entity's moves, which every seat's answer starts
    from, are worked out once."""
    memo = {} if memo is None else memo
    seats = [int(p.id) for p in session.game.players]
    return {pid: seat_offers(session, pid, memo=memo) for pid in seats if players is None or pid in players}


class Shelf(Protocol):
    def get(self, game_id: int, version: int, player_id: int) -> SeatOffers | None:
        """The kept answer of the seat at exactly that version, or None."""

    def put(self, game_id: int, version: int, offers: dict[int, SeatOffers], whole: bool = True) -> None:
        """Keep answers of that version; `whole`: they are every seat's, and replace what the game had."""

    def mark(self, game_id: int) -> None:
        """Someone read the game's offers: prepare its next positions."""

    def asked(self, game_id: int) -> bool:
        """Whether the game's offers were read lately (`mark`)."""

    def preparing(self, game_id: int, version: int | None) -> None:
        """A worker is working out that version's answers (None: it stopped, kept or not)."""

    def wait(self, game_id: int, version: int, player_id: int, seconds: float) -> SeatOffers | None:
        """The seat's kept answer, waiting up to `seconds` for it while a worker is working out that very
        version (`preparing`); None at once when none is."""


class LocalShelf:
    """The embedded default: the newest kept position of each recent game, in this process."""

    def __init__(self, games: int = LOCAL_GAMES) -> None:
        self._games = games
        self._kept: OrderedDict[int, tuple[int, dict[int, bytes]]] = OrderedDict()
        self._asked: dict[int, float] = {}
        self._preparing: dict[int, int] = {}
        self._guard = threading.Lock()
        self._kept_one = threading.Condition(self._guard)

    def get(self, game_id: int, version: int, player_id: int) -> SeatOffers | None:
        with self._guard:
            kept = self._kept.get(game_id)
            data = kept[1].get(player_id) if kept is not None and kept[0] == version else None
        return SeatOffers.decode(data) if data is not None else None

    def put(self, game_id: int, version: int, offers: dict[int, SeatOffers], whole: bool = True) -> None:
        encoded = {pid: seat.encode() for pid, seat in offers.items()}
        with self._guard:
            kept = self._kept.get(game_id)
            if kept is not None and kept[0] > version:
                return  # a newer position is kept already
            if kept is not None and kept[0] == version and not whole:
                encoded = {**kept[1], **encoded}
            self._kept[game_id] = (version, encoded)
            self._kept.move_to_end(game_id)
            while len(self._kept) > self._games:
                self._kept.popitem(last=False)
            self._kept_one.notify_all()

    def preparing(self, game_id: int, version: int | None) -> None:
        with self._guard:
            if version is None:
                self._preparing.pop(game_id, None)
            else:
                self._preparing[game_id] = version
            self._kept_one.notify_all()

    def wait(self, game_id: int, version: int, player_id: int, seconds: float) -> SeatOffers | None:
        deadline = time.monotonic() + seconds
        with self._guard:
            while True:
                kept = self._kept.get(game_id)
                if kept is not None and kept[0] == version and player_id in kept[1]:
                    return SeatOffers.decode(kept[1][player_id])
                left = deadline - time.monotonic()
                if self._preparing.get(game_id) != version or left <= 0:
                    return None
                self._kept_one.wait(left)

    def mark(self, game_id: int) -> None:
        with self._guard:
            self._asked[game_id] = time.monotonic()
            if len(self._asked) > 4 * self._games:  # forget the oldest marks
                for old in sorted(self._asked, key=self._asked.__getitem__)[: len(self._asked) // 2]:
                    del self._asked[old]

    def asked(self, game_id: int) -> bool:
        with self._guard:
            at = self._asked.get(game_id)
        return at is not None and time.monotonic() - at < ASKED_SECONDS


class RedisShelf:
    """Kept in Redis, shared by every gateway and worker: `railpost:offers:<game>` a hash whose fields are
    `<version>:<player>`, `railpost:offers-asked:<game>` the mark. Failures are logged and passed by."""

    def __init__(self, redis_url: str) -> None:
        self._url = redis_url
        self._client: Any = None
        self._asked: dict[int, tuple[bool, float]] = {}  # game -> (asked, until when that answer is used)
        self._marked: dict[int, float] = {}  # game -> until when this process's last mark stands for a new one

    def _redis(self) -> Any:
        if self._client is None:
            import redis

            self._client = redis.Redis.from_url(self._url, socket_timeout=2, socket_connect_timeout=2)
        return self._client

    def get(self, game_id: int, version: int, player_id: int) -> SeatOffers | None:
        try:
            data = self._redis().hget(f"railpost:offers:{game_id}", f"{version}:{player_id}")
        except Exception:
            log.warning("kept offers unreadable; working them out", exc_info=True, extra={"game_id": game_id})
            return None
        return SeatOffers.decode(data) if data is not None else None

    def put(self, game_id: int, version: int, offers: dict[int, SeatOffers], whole: bool = True) -> None:
        key = f"railpost:offers:{game_id}"
        fields = {f"{version}:{pid}": seat.encode() for pid, seat in offers.items()}
        try:
            pipe = self._redis().pipeline(transaction=True)
            if whole:
                pipe.delete(key)  # the older positions go with it
            if fields:
                pipe.hset(key, mapping=fields)
                pipe.expire(key, KEEP_SECONDS)
            pipe.execute()
        except Exception:
            log.warning("offers not kept", exc_info=True, extra={"game_id": game_id})

    def mark(self, game_id: int) -> None:
        """Written at most once per `MARK_REFRESH_SECONDS` per game by this process: every read marks, and
        the mark lasts `ASKED_SECONDS`, far longer."""
        now = time.monotonic()
        if self._marked.get(game_id, 0.0) > now:
            return
        try:
            self._redis().set(f"railpost:offers-asked:{game_id}", b"1", ex=ASKED_SECONDS)
            if len(self._marked) > 4 * LOCAL_GAMES:
                self._marked.clear()
            self._marked[game_id] = now + MARK_REFRESH_SECONDS
            self._asked[game_id] = (True, now + ASKED_MEMO_SECONDS)
        except Exception:
            log.warning("offers read not marked", exc_info=True, extra={"game_id": game_id})

    def preparing(self, game_id: int, version: int | None) -> None:
        key = f"railpost:offers-preparing:{game_id}"
        try:
            if version is None:
                self._redis().delete(key)
            else:
                self._redis().set(key, str(version).encode(), ex=PREPARING_SECONDS)
        except Exception:
            log.warning("offers preparation not announced", exc_info=True, extra={"game_id": game_id})

    def wait(self, game_id: int, version: int, player_id: int, seconds: float) -> SeatOffers | None:
        """Polled (every `POLL_SECONDS`): a reader waits at most for one preparation, which is rare."""
        deadline = time.monotonic() + seconds
        key = f"railpost:offers-preparing:{game_id}"
        while True:
            try:
                pipe = self._redis().pipeline(transaction=False)
                pipe.hget(f"railpost:offers:{game_id}", f"{version}:{player_id}")
                pipe.get(key)
                data, busy = pipe.execute()
            except Exception:
                return None
            if data is not None:
                return SeatOffers.decode(data)
            if busy is None or busy.decode() != str(version) or time.monotonic() >= deadline:
                return None
            time.sleep(POLL_SECONDS)

    def asked(self, game_id: int) -> bool:
        """Asked of Redis at most once per `ASKED_MEMO_SECONDS` per game: a worker settling a flood of moves of
        a game nobody reads pays no round trip per move for it."""
        now = time.monotonic()
        memo = self._asked.get(game_id)
        if memo is not None and memo[1] > now:
            return memo[0]
        try:
            answer = bool(self._redis().exists(f"railpost:offers-asked:{game_id}"))
        except Exception:
            answer = False
        if len(self._asked) > 4 * LOCAL_GAMES:
            self._asked.clear()
        self._asked[game_id] = (answer, now + ASKED_MEMO_SECONDS)
        return answer


def make_shelf(redis_url: str | None) -> Shelf:
    return RedisShelf(redis_url) if redis_url else LocalShelf()


def prepare(sessions: SessionCache, shelf: Shelf, game_id: int) -> bool:
    """After a settle (its announcement made): keep every seat's answer at the position the game reached,
    when someone reads the game (`Shelf.asked`). The head this process settled last names the position; a
    process that holds no head for the game (the session was dropped) leaves it to the first reader.

    Under the game's session lock (`SessionCache.hold`), as a settle is: another thread of this process
    settling the game's next move meanwhile would otherwise move the session past the head read here, and
    asking the session at that older version would rebuild it from a snapshot."""
    if not shelf.asked(game_id):
        return False
    with sessions.hold(game_id):
        head = sessions.head(game_id)
        if head is None or head.status != ACTIVE:
            return False
        shelf.preparing(game_id, head.version)  # a reader of this version waits for it rather than repeat it
        try:
            with sessions.use(head) as session:
                if session.finished:
                    return False
                # the seats that must act first: the one likeliest to be waiting (the mover, asking for his
                # next step) is served before the others are worked out
                memo: dict[Any, Any] = {}
                acting = [int(p) for p in session.acting_players() if str(p).lstrip("-").isdigit()]
                shelf.put(game_id, head.version, position_offers(session, memo, acting))
                others = [int(p.id) for p in session.game.players if int(p.id) not in acting]
                if others:
                    shelf.put(game_id, head.version, position_offers(session, memo, others), whole=False)
        finally:
            shelf.preparing(game_id, None)
    return True


def prepare_quietly(sessions: SessionCache, shelf: Shelf, game_id: int) -> None:
    """`prepare`, whose failure is logged and passed by: the move it follows is settled and answered, and a
    reader works out what was not kept."""
    try:
        prepare(sessions, shelf, game_id)
    except Exception:
        log.warning("offers not prepared", exc_info=True, extra={"game_id": game_id})

"""The operating round: each corporation in turn lays track, places a station, runs trains, pays or
withholds, and buys trains. Titles choose and order the steps; the shared steps have a module per family
(`track.py`, `runs.py`, `trains.py`); here are the round, the train-limit step the round itself asks
(`DiscardTrain`) and the special purchase open beside several steps (`SpecialBuy`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import IllegalAction
from ..model import Corporation, Train
from .rounds import Round, Step

if TYPE_CHECKING:
    from ..protocol import Game


def pay_private_income(game: Game) -> None:
    """Every open private with an income pays it to its owner, a player or a corporation (at the start of an
    operating round; a title's own rounds call it where its rules pay: 1828's and 1840's private auctions,
    1840's company round). No title changes it, so it is no hook: a rule of the shared 18xx family."""
    for company in game.companies.values():
        if company.closed or company.owner is None or not company.revenue:
            continue
        if isinstance(company.owner, int):
            game.pay(None, game.player(company.owner), company.revenue)
        elif company.owner in game.corporations:
            game.pay(None, game.corporations[company.owner], company.revenue)


class OperatingRound(Round):
    kind = "Operating"
    several_per_set = True

    def __init__(self, steps: list[Step], round_num: int) -> None:
        super().__init__(steps, round_num)
        self.pending_homes: list[str] = []  # corporations that must choose the city of their home token
        self.new_turn()

    def new_turn(self) -> None:
        """What one corporation's turn starts from (a title's round adds what its own turns keep)."""
        self.laid_hexes: list[str] = []
        self.upgraded = False
        self.tokened = False
        self.routes: list[dict[str, Any]] = []
        self.revenue = 0

    def current_entity(self, game: Game) -> Any:
        if self.done:
            return None
        if self.pending_homes:
            return self.pending_homes[0]
        for step in self._discarders():
            crowded = step.crowded_now(game)
            if crowded:
                return crowded[0].sym  # a corporation over its train limit discards before play goes on
        return super().current_entity(game)

    def _discarders(self) -> tuple[DiscardTrain, ...]:
        """The round's train-limit steps (its steps never change; asked on every `current_entity`)."""
        found: tuple[DiscardTrain, ...] | None = self.__dict__.get("_discard_steps")
        if found is None:
            found = self._discard_steps = tuple(s for s in self.steps if isinstance(s, DiscardTrain))
        return found

    def start(self, game: Game) -> None:
        pay_private_income(game)
        self.entities = self.operating_order(game)
        for sym in self.entities:
            self.place_home_token(game, game.corporations[sym], at_round_start=True)
        self.index = 0
        if not self.entities:
            self.done = True
            return
        self._start_operating(game)

    # -- what a title's round changes: the order, home stations, a turn's start, the trains that run -------
    def operating_order(self, game: Game) -> list[str]:
        """The corporations operating this round, in order: the floated ones by share price, highest first."""
        floated = [c for c in game.corporations.values() if c.floated and not c.closed]
        return [c.sym for c in sorted(floated, key=lambda c: -(game.share_price(c) or 0))]

    def place_home_token(self, game: Game, corp: Corporation, at_round_start: bool) -> None:
        """Put down the home station of a corporation that has none yet; a home on a hex with several cities
        and no city named waits for the corporation's choice (`pending_homes`, the `HomeToken` step)."""
        if corp.tokens_placed or corp.home is None:
            return
        homes = corp.home if isinstance(corp.home, list) else [corp.home]
        for home in homes:
            h = game.board.hex(home)
            if corp.home_city_index is None and len(h.tile.cities) > 1 and corp.sym in h.tile_reservations:
                if corp.sym not in self.pending_homes:
                    self.pending_homes.append(corp.sym)
                continue
            game.board.place_home_token(corp.sym, home, corp.home_city_index)
            corp.tokens_placed += 1

    def start_operating(self, game: Game, corp: Corporation) -> None:
        """What happens as `corp`'s turn begins, before its steps are set up (nothing by default)."""

    def route_trains(self, game: Game, corp: Corporation) -> list[Train]:
        """The trains `corp` runs this turn (asked by the run step, and by a title's track rules that
        measure a train's reach)."""
        return [t for t in corp.trains if not t.rusted]

    def corp(self, game: Game) -> Corporation:
        return game.corporations[self.entities[self.index]]

    def active_step(self, game: Game) -> Step | None:
        if not self.pending_homes and self.corp(game).closed and not self.crowded(game):
            return None  # a corporation that closed mid-turn does nothing more
        return super().active_step(game)

    def settle(self, game: Game) -> Step | None:
        if not self.pending_homes and self.corp(game).closed and not self.crowded(game):
            return None
        return super().settle(game)

    def crowded(self, game: Game) -> bool:
        """Some corporation holds trains over its limit and must discard before the turn goes on."""
        return any(s.crowded_now(game) for s in self._discarders())

    def skip_steps(self, game: Game) -> None:
        if not self.pending_homes and self.corp(game).closed and not self.crowded(game):
            return
        super().skip_steps(game)

    def _start_operating(self, game: Game) -> None:
        while True:
            corp = self.corp(game)
            self.new_turn()
            for train in corp.trains:
                train.operated = False
            self.start_operating(game, corp)
            for step in self.steps:
                step.setup(game, self)
            step = self.settle(game)
            if self.done or game.finished or step is not None:
                return
            if not self._advance(game):
                return

    def _advance(self, game: Game) -> bool:
        """Move to the next corporation; False when the round is over."""
        self.corp(game).operated = True
        self.index += 1
        if self.index >= len(self.entities):
            self.done = True
            return False
        return True

    def after_process(self, game: Game, action: dict[str, Any]) -> None:
        self.move_on(game)

    def move_on(self, game: Game) -> None:
        """Settle the turn in play and, when nothing is left in it, start the next corporation's turn.

        After every action; also for a title whose round changes the turn's steps outside an action (a turn
        that takes over steps another corporation's turn left spent), so that both end a turn the same way."""
        if game.finished:
            return
        if self.settle(game) is None and not self.done and self._advance(game):
            self._start_operating(game)




class SpecialBuy(Step):
    """Steps during which the title sells something special (1825: a leased train; 1828: the coal marker): a
    title's step overrides `special_buy_options` and `special_buy`."""

    def offer_special_buy(self, game: Game, round_: OperatingRound, entity: str) -> list[dict[str, Any]]:
        return self.special_buy_options(game, round_, game.corporations[entity])

    def special_buy_options(self, game: Game, round_: OperatingRound, corp: Corporation) -> list[dict[str, Any]]:
        return []

    def special_buy(self, game: Game, round_: OperatingRound, action: dict[str, Any], trusted: bool) -> None:
        raise IllegalAction("nothing special to buy in this title", "special_buy")


class DiscardTrain(Step):
    handlers = {"discard_train": "discard_train"}
    offers = {"discard_train": "offer_discard"}

    def actions(self, game: Game, round_: Round, entity: Any) -> list[str]:
        crowded = self.crowded_now(game)
        return ["discard_train"] if crowded and entity == crowded[0].sym else []

    def blocking(self, game: Game, round_: Round) -> bool:
        return bool(self.crowded_now(game))

    def crowded_now(self, game: Game) -> list[Corporation]:
        """`crowded`, asked once per stretch of `Round.settle` (every step asks who acts, and who acts
        depends on it)."""
        asking = game.asking
        if asking is None:
            return self.crowded(game)
        found: list[Corporation] | None = asking.get(self)
        if found is None:
            found = asking[self] = self.crowded(game)
        return found

    def skip(self, game: Game, round_: Round) -> None:
        pass  # stays watching: a later purchase can crowd a corporation again

    def crowded(self, game: Game) -> list[Corporation]:
        # asked after every action: where every limit is the phase's, the cards are counted first (nobody
        # holds more than the limit: nobody is crowded) and the limit is read once
        uniform = game.rules.uniform_train_limit(game)
        limit = game.phase.train_limit
        if uniform:
            for corp in game.corporations.values():
                if len(corp.trains) > limit:
                    break
            else:
                return []
        out = []
        for corp in game.corporations.values():
            trains = corp.trains
            if not trains or corp.closed:
                continue
            cap = limit if uniform else game.train_limit(corp)
            # `limit_trains` (the cards the limit counts) is a subset of the cards: count those first
            if len(trains) > cap and len(game.rules.limit_trains(game, corp)) > cap:
                out.append(corp)
        return out

    def offer_discard(self, game: Game, round_: Round, entity: str) -> list[dict[str, Any]]:
        return [{"train": t.id} for t in game.corporations[entity].trains]

    def discard_train(self, game: Game, round_: Round, action: dict[str, Any], trusted: bool) -> None:
        corp = game.corporations[action["entity"]]
        train = next((t for t in corp.trains if t.id == action.get("train")), None)
        if train is None:
            raise IllegalAction(f"{corp.sym} has no train {action.get('train')}", "discard_train")
        corp.trains.remove(train)
        train.owner = None
        game.depot.discarded.append(train)



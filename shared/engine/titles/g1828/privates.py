"""What 1828's privates do once a corporation owns them.

* E&K lays a yellow tile on E7 at once when bought (`when: sold`), and once, during the owner's track
  step, a second yellow tile for $20 plus terrain (`when: track`).
* C&St.L lays a free tile on B24 at any point of its owner's turn (`when: owning_corp_or_turn`).
* D&H: for $120, without a connection, a tile (terrain waived) on F20, then optionally a station there.
* C&P: buying the private ends the minor; its treasury goes to the buyer, who may put a free station on
  Peterborough (C15) at once, or leave a blocking token there; a buyer with no station token left leaves
  C15 open (rules-1828.md, "The C&P private bought by a corporation").

Each ability is used by an action whose entity is the private; a used ability is remembered as
"<private>/<when>" in `state(game).used_abilities`. The operating round takes these actions beside its
steps (`OperatingRound1828.process`), and offers them from here (`private_lays`, `turn_options`), asking
the same checks (`check_lay`) or, for a station, trying it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.operating import OperatingRound
from ...core.track import TrackAndToken
from ...errors import IllegalAction, MalformedAction, accepts
from .state import state

if TYPE_CHECKING:
    from ...board.lays import LayResult
    from ...game import Game
    from ...model import Company, Corporation

CP_REVENUE = 15
DH_COST = 120
ROTATIONS = range(6)
Option = dict[str, Any]


# -- which abilities are there to use ---------------------------------------------------------------------
def owned_companies(game: Game, corp: Any) -> list[Any]:
    return [game.companies[s] for s in corp.companies if not game.companies[s].closed]


def unused(game: Game, company: Any, ability: dict[str, Any]) -> bool:
    return f"{company.sym}/{ability.get('when')}" not in state(game).used_abilities


def company_ability(game: Game, company: Any, when: str) -> dict[str, Any] | None:
    """The company's unused track ability usable at `when` ("sold", "track", "owning_corp_or_turn")."""
    for ability in company.abilities:
        if ability.get("type") == "tile_lay" and ability.get("when") == when and unused(game, company, ability):
            return ability
    return None


def track_ability(game: Game, corp: Any) -> Any:
    """The private of `corp` with an unused lay for the track step (E&K's second yellow tile)."""
    return next((c for c in owned_companies(game, corp) if company_ability(game, c, "track")), None)


def any_time_ability(game: Game, corp: Any) -> Any:
    return next((c for c in owned_companies(game, corp) if company_ability(game, c, "owning_corp_or_turn")), None)


def may_lay_with_private(game: Game, corp: Corporation) -> bool:
    """A private of `corp` could lay a tile now outside the track step (C&St.L; D&H's lay in Scranton is
    the corporation's own tile lay and waits for its track step)."""
    return any_time_ability(game, corp) is not None


def pending_company(game: Game, entity: Any) -> Any:
    """The private acting for its corporation (a compulsory lay when bought, a station it may place)."""
    company = game.companies.get(entity) if isinstance(entity, str) else None
    if company is None or (entity in game.corporations and not game.corporations[entity].closed):
        return None
    return company


def _track_step(round_: OperatingRound) -> TrackAndToken | None:
    """The round's track step (`steps.track.Track1828`, the one that lays tiles; it offers these lays, so it
    is found by what it handles, not imported)."""
    return next((s for s in round_.steps if isinstance(s, TrackAndToken) and "lay_tile" in s.handlers), None)


def in_track_step(game: Game, round_: OperatingRound) -> bool:
    step = _track_step(round_)
    return step is not None and not step.passed and round_.active_step(game) is step


# -- a corporation buys a private ----------------------------------------------------------------------------
def bought_by_corporation(game: Game, round_: Any, corp: Corporation, company: Company) -> None:
    rules = game.rules
    game.board.remove_blocker(company.sym)
    for ability in company.abilities:
        if ability.get("type") == "revenue_change" and ability.get("when") == "sold":
            company.revenue = ability["revenue"]
        if ability.get("type") == "tile_lay" and ability.get("when") == "sold":
            state(game).pending_lays.append(company.sym)
    minor = game.corporations.get(company.sym)
    if minor is None or minor.kind != "minor" or minor.closed:
        return
    game.pay(minor, corp, minor.cash)
    home = minor.home
    rules.remove_minor(game, minor, block=False)  # type: ignore[attr-defined]
    company.revenue = CP_REVENUE
    if corp.next_token_price() is None:
        return  # no station token left: nothing decided, nothing blocks C15 (rules-1828.md, case (c))
    tokened = isinstance(round_, OperatingRound) and round_.tokened
    if not tokened:
        state(game).pending_token = [company.sym]
        state(game).pending_token_hex = home
        state(game).pending_token_block = True
    else:
        rules.place_blocking_token(game, home)  # type: ignore[attr-defined]


# -- using an ability ---------------------------------------------------------------------------------------
def use(game: Game, round_: OperatingRound, company: Company, action: dict[str, Any], trusted: bool) -> None:
    kind = action.get("type")
    if state(game).pending_token == [company.sym]:
        _sold_station(game, round_, company, action)
    elif kind == "lay_tile":
        _lay(game, round_, company, action, trusted)
    else:
        raise IllegalAction(f"{company.sym} cannot {kind} now", "company_ability")


def _owner(game: Game, company: Company) -> Corporation:
    assert isinstance(company.owner, str)
    return game.corporations[company.owner]


def check_lay(game: Game, round_: OperatingRound, company: Company, action: dict[str, Any],
              trusted: bool = False) -> tuple[str, LayResult]:
    """Every reason to refuse a private's tile lay, asked before anything is laid or paid (and by the
    offers, which list only what passes). Returns which of the private's lays this is, and what the board
    says of the tile."""
    hex_id, tile_id, rotation = action.get("hex"), action.get("tile"), action.get("rotation")
    if not isinstance(hex_id, str) or not isinstance(tile_id, str) or not isinstance(rotation, int):
        raise MalformedAction("lay_tile needs hex, tile and rotation", "lay_tile_shape")
    corp = _owner(game, company)
    pending = state(game).pending_lays
    teleport = next((a for a in company.abilities if a.get("type") == "teleport"), None)
    if company.sym in pending:
        when = "sold"
    elif company_ability(game, company, "owning_corp_or_turn"):
        when = "owning_corp_or_turn"
    elif company_ability(game, company, "track") and in_track_step(game, round_):
        when = "track"
    elif teleport is not None and f"{company.sym}/teleport" not in state(game).used_abilities \
            and in_track_step(game, round_):
        when = "teleport"  # the D&H lay is the corporation's tile lay: in its track step only
    else:
        raise IllegalAction(f"{company.sym} has no tile lay to use now", "company_ability")
    ability = teleport if when == "teleport" else company_ability(game, company, when)
    assert ability is not None
    if ability.get("hexes") and hex_id not in ability["hexes"]:
        raise IllegalAction(f"{company.sym} lays track only on {', '.join(ability['hexes'])}", "company_ability")
    if tile_id.rpartition("-")[0] not in ability.get("tiles", []):
        raise IllegalAction(f"{company.sym} lays only tiles {', '.join(ability['tiles'])}", "company_ability")
    connect = when == "track" and not trusted
    result = game.board.check_lay(corp.sym, hex_id, tile_id, rotation, game.phase.tiles, must_connect=connect)
    if when == "track":
        if result.upgrade or round_.upgraded:
            raise IllegalAction(f"{company.sym} lays a yellow tile, and not after an upgrade", "company_ability")
        if hex_id in round_.laid_hexes:
            raise IllegalAction(f"{hex_id} already had a tile laid this turn", "same_hex")
        cost = ek_cost(ability, result)
        if cost > corp.cash:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, the terrain costs {cost}", "cash")
    elif when == "teleport":
        # the lay in Scranton is one of the corporation's own lays: one must be left, of the right kind
        step = _track_step(round_)
        lay = step.next_lay(game, round_) if step is not None else None
        if lay is None or not lay.get("upgrade" if result.upgrade else "lay"):
            raise IllegalAction(f"{company.sym}'s tile is {corp.sym}'s own lay, and it has no such lay left "
                                "this turn", "tile_lays")
        cost = dh_cost(lay, result)
        if corp.cash < cost:
            raise IllegalAction(f"{corp.sym} has {corp.cash}, {company.sym}'s tile costs {cost}", "cash")
    return when, result


def dh_cost(lay: dict[str, Any], result: LayResult) -> int:
    """D&H's tile costs $120 (terrain waived) and, being the corporation's own lay, the price of the lay
    it takes: B&M's and NYH's second lay adds its $40 (rules-1828.md, "D&H's tile in Scranton")."""
    slot = lay.get("upgrade_cost", lay.get("cost")) if result.upgrade else lay.get("cost")
    return DH_COST + int(slot or 0)


def ek_cost(ability: dict[str, Any], result: LayResult) -> int:
    """E&K's extra tile costs the ability's price (the data's `cost`, $20) and the terrain; it is no lay
    of the corporation's, so never the price of its second lay (B&M's and NYH's $40, rules-1828.md)."""
    return int(ability.get("cost") or 0) + result.cost


def _lay(game: Game, round_: OperatingRound, company: Company, action: dict[str, Any], trusted: bool) -> None:
    when, result = check_lay(game, round_, company, action, trusted)
    hex_id, tile_id, rotation = action["hex"], action["tile"], action["rotation"]
    corp = _owner(game, company)
    pending = state(game).pending_lays
    if when == "track":
        ability = company_ability(game, company, when)
        assert ability is not None
        game.pay(corp, None, ek_cost(ability, result))
    elif when == "teleport":
        step = _track_step(round_)
        lay = step.next_lay(game, round_) if step is not None else None
        game.pay(corp, None, dh_cost(lay or {}, result))
    game.board.lay(hex_id, tile_id, rotation)
    state(game).used_abilities.append(f"{company.sym}/{when}")
    if when == "track":
        round_.private_lays.append(hex_id)  # type: ignore[attr-defined]
        round_.upgraded = True  # E&K's tile is extra, but no upgrade (nor the $40 lay) may follow it
    elif when == "teleport":
        round_.laid_hexes.append(hex_id)  # the teleport is the corporation's own lay
        if result.upgrade:  # and an upgrade like any other: no second upgrade follows it
            round_.upgraded = True
    if company.sym in pending and when == "sold":
        pending.remove(company.sym)
    track = _track_step(round_)
    assert track is not None  # the round lays the private's tile beside its track step
    track.after_lay_tile(game, round_, corp, hex_id)
    if when == "teleport" and corp.next_token_price() is not None:
        # the $120 also pays for an optional station there; the turn waits for the decision even when the
        # corporation already placed its station this turn (then it can only pass), but not when it has no
        # station token left (rules-1828.md, "D&H's tile in Scranton")
        state(game).pending_token = [company.sym]
        state(game).pending_token_hex = hex_id
        state(game).pending_token_block = False


def _station(game: Game, round_: OperatingRound, corp: Corporation, action: dict[str, Any], hex_id: str) -> None:
    city, slot = action.get("city"), action.get("slot")
    if not isinstance(city, str) or not isinstance(slot, int):
        raise MalformedAction("place_token needs city and slot", "place_token_shape")
    if game.board.city_hex(city) != hex_id:
        raise IllegalAction(f"this station goes on {hex_id}", "token")
    if round_.tokened:
        raise IllegalAction(f"{corp.sym} already placed a station this turn", "token")
    if corp.next_token_price() is None:
        raise IllegalAction(f"{corp.sym} has no station tokens left", "token")
    slot = game.board.station_slot(corp.sym, city, slot)
    game.board.check_token(corp.sym, city, slot, must_connect=False)
    game.board.place_token(corp.sym, city, slot)
    corp.tokens_placed += 1
    round_.tokened = True


def _sold_station(game: Game, round_: OperatingRound, company: Company, action: dict[str, Any]) -> None:
    hex_id = state(game).pending_token_hex
    corp = _owner(game, company)
    if action.get("type") == "place_token":
        _station(game, round_, corp, action, hex_id)
    elif action.get("type") == "pass":
        if state(game).pending_token_block:
            game.rules.place_blocking_token(game, hex_id)  # type: ignore[attr-defined]
            round_.station_declined = True  # type: ignore[attr-defined]
    else:
        raise IllegalAction(f"{company.sym}: place the station on {hex_id} or pass", "company_ability")
    state(game).pending_token = []


# -- what the privates offer ----------------------------------------------------------------------------------
def turn_actions(game: Game, company: Company) -> list[str]:
    """What a private acting for its corporation may do: place (or decline) the station its purchase or
    its tile brought, or lay the tile its purchase owes."""
    return ["place_token", "pass"] if state(game).pending_token == [company.sym] else ["lay_tile"]


def turn_options(game: Game, round_: OperatingRound, company: Company, kind: str) -> list[Option]:
    """The concrete moves of `turn_actions`: a station on the hex in question (tried on a copy: it is the
    owning corporation's, and the move names it as the tokener, as records do), or the owed tile's lays."""
    if state(game).pending_token == [company.sym]:
        if kind == "pass":
            return [{}]
        if kind != "place_token":
            return []
        h = game.board.hex(state(game).pending_token_hex)
        options = [{"city": game.board.city_id(h.id, index), "slot": slot, "tokener": company.owner}
                   for index, slots in enumerate(h.tokens) for slot in range(len(slots))]
        return [o for o in options if game.accepts({"type": kind, "entity": company.sym, **o})]
    if kind == "lay_tile" and company.sym in state(game).pending_lays:
        ability = next(a for a in company.abilities if a.get("type") == "tile_lay" and a.get("when") == "sold")
        return ability_lays(game, round_, company, ability)
    return []


def private_lays(game: Game, round_: OperatingRound, corp: Corporation) -> list[Option]:
    """Lays by the corporation's privates: E&K's extra yellow tile in the track step, C&St.L's free tile
    at any time, D&H's tile on F20 (the corporation's own lay, so in the track step)."""
    out: list[Option] = []
    for sym in corp.companies:
        company = game.companies[sym]
        if company.closed:
            continue
        ability = company_ability(game, company, "owning_corp_or_turn")
        if ability is None and company is track_ability(game, corp) and in_track_step(game, round_):
            ability = company_ability(game, company, "track")
        teleport = next((a for a in company.abilities if a.get("type") == "teleport"), None)
        if ability is None and teleport is not None and in_track_step(game, round_) \
                and f"{sym}/teleport" not in state(game).used_abilities \
                and not getattr(round_, "station_declined", False):
            # not offered after C&P's station was declined this turn: the reference then never asks for
            # D&H's station and blocks the next turn (docs/conflicts-1828.md #22); still accepted
            ability = teleport
        if ability is not None:
            out.extend(ability_lays(game, round_, company, ability))
    return out


def ability_lays(game: Game, round_: OperatingRound, company: Company, ability: dict[str, Any]) -> list[Option]:
    """A private's lays on its named hexes, or anywhere its corporation may build when it names none, as
    far as the private's own checks (`check_lay`) allow."""
    assert isinstance(company.owner, str)
    names = list(dict.fromkeys(ability.get("tiles", [])))  # the data's order: options never depend on hashing
    if ability.get("hexes"):
        candidates = [(hex_id, name, rotation) for hex_id in ability["hexes"] for name in names
                      for rotation in ROTATIONS]
    else:
        candidates = [(hex_id, name, rotation)
                      for hex_id, name, rotation, _ in game.board.legal_lay_results(company.owner, game.phase.tiles)
                      if name in names]
    options = []
    for hex_id, name, rotation in candidates:
        copy = game.board.supply.free_copy(name)
        if copy is None:
            continue
        option = {"hex": hex_id, "tile": f"{name}-{copy}", "rotation": rotation}
        if accepts(check_lay, game, round_, company, {"type": "lay_tile", **option}):
            options.append(dict(option, entity=company.sym, entity_type="company"))
    return options

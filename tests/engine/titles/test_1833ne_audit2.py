"""1833NE second, adversarial audit (issue 45): positions built from the Dutch seed
(/work/shared/seeds/1833NE-railroading-in-new-england.nl.txt, which governs) by an auditor who treats the engine
as a black box. Each test quotes the seed sentence it checks, with an English gloss, and asserts what the seed
says. The six disagreements it found (the three known ones, and the three readings issue 45 decided: the
president chooses his emergency sales, a bankrupt's share proceeds go to the corporation, P5's owner chooses its
ferry) were fixed in the engine (docs/1833NE.md, "The independent audit (issue 45)"); their tests, once marked
`xfail(strict=True)`, now hold. Since that fix the president names his emergency sales himself (`sell_shares`
with his id, in his corporation's train step) before the train is bought, and the tests make them so.

Positions are set up by hand (money, holdings, prices, trains sold out) and then played through
`Game.process`, whose refusal leaves the state unchanged (a refused `GameSession.submit` would fold the log
again and lose the hand-made position).
"""

from __future__ import annotations

import json
import pickle
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from play_1833ne import players

from shared.engine import Game, GameSession, final_active_flags
from shared.engine.errors import IllegalAction
from shared.engine.legal import legal_actions
from shared.engine.model import POOL

WORCESTER = "E22"
CARD_OF_PHASE = {"II": "3/5", "III": "4/7", "IV": "6/9", "V": "7+3"}
CARD_ORDER = ["2", "3/5", "4/7", "6/9", "7+3"]
PHASES = ["I", "II", "III", "IV", "V"]


# -- harness ----------------------------------------------------------------------------------------------------
def new(n: int = 3, options: list[str] | None = None) -> GameSession:
    return GameSession.new("1833NE", players(n), seed=7, optional_rules=options or [])


def cell(g: Game, price: int) -> str:
    return next(c.id for c in g.market.par_cells() if c.price == price)


def set_price(g: Game, sym: str, price: int) -> None:
    g.corporations[sym].share_cell = next((0, c.column) for c in g.market.grid[0] if c is not None
                                          and c.price == price)


def price(g: Game, sym: str) -> int:
    return g.share_price(g.corporations[sym]) or 0


def kinds(g: Game) -> set[str]:
    return {a["type"] for a in legal_actions(g)}


def give(g: Game, sym: str, owner: Any, count: int) -> None:
    """Hand `count` of `sym`'s 10% treasury shares to `owner` (a player id or POOL)."""
    corp = g.corporations[sym]
    for share in [s for s in corp.shares[1:] if s.owner == sym][:count]:
        corp.give(share, owner)


def launch_two(n: int = 3, cv: int = 40, frr: int = 100, extra: list[dict[str, Any]] | None = None) -> Game:
    """SR1: player 1 launches CV, player 2 launches FRR (and `extra` moves); all pass. The first OR runs in
    reverse price order, so CV (the cheaper) operates first."""
    s = new(n)
    g = s.game
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(g, cv)})
    s.submit({"type": "par", "entity": 2, "corporation": "FRR", "share_price": cell(g, frr)})
    for move in extra or []:
        s.submit(move)
    while type(s.game.round).__name__ != "Operating1833":
        s.submit({"type": "pass", "entity": s.game.acting()[0]})
    g = s.game
    assert g.acting() == ["CV"]
    return g


def sell_out(g: Game, upto: str) -> None:
    """Every card of a phase before `upto`'s card still in the bank is sold (scenario set-up)."""
    for t in g.depot.trains:
        if t.owner is None and not t.rusted and CARD_ORDER.index(t.name) < CARD_ORDER.index(upto):
            t.rusted = True


def advance_to(g: Game, phase: str, sink: str = "FRR") -> None:
    """Play the phases up to `phase` in order: the first card of each is bought by `sink` (given the money by the
    bank) and then leaves the game, so the phase changes are the engine's own."""
    corp = g.corporations[sink]
    for name in PHASES[1:PHASES.index(phase) + 1]:
        if PHASES.index(g.phase.name) >= PHASES.index(name):
            continue
        card = CARD_OF_PHASE[name]
        sell_out(g, card)
        first = next(t for t in g.depot.trains if t.name == card and t.owner is None and not t.rusted)
        g.pay(None, corp, first.price)
        g.buy_train_from_depot(corp, first, first.price)
        g.rust(first)
        assert g.phase.name == name
    g.edited()


def to_train_step(g: Game, sym: str = "CV") -> None:
    """From the start of `sym`'s turn: no track, no station, an empty run (with no train the run is skipped)."""
    g.edited()
    g.process({"type": "pass", "entity": sym})
    if "run_routes" in kinds(g):
        g.process({"type": "run_routes", "entity": sym, "routes": []})
    assert g.acting() == [sym] and kinds(g) & {"buy_train", "bankrupt", "sell_shares"}, kinds(g)


def emergency(cv_cash: int = 0, president_cash: int = 0, price_after_run: int = 20) -> Game:
    """CV (player 1 president) with no train and `cv_cash`, at its train step; its run was skipped (nothing paid:
    the price fell one column to `price_after_run`)."""
    g = launch_two()
    cv = g.corporations["CV"]
    g.pay(cv, None, cv.cash - cv_cash)
    g.pay(g.player(1), None, g.player(1).cash - president_cash)
    column = next(c.column for c in g.market.grid[0] if c is not None and c.price == price_after_run)
    set_price(g, "CV", next(c.price for c in g.market.grid[0] if c is not None and c.column == column + 1))
    to_train_step(g)
    assert price(g, "CV") == price_after_run
    return g


def held(g: Game, sym: str, pid: int) -> list[str]:
    """The ordinary (10%) certificates of `sym` player `pid` holds, in certificate order."""
    return [s.id for s in g.corporations[sym].shares[1:] if s.owner == pid]


def sell(g: Game, pid: int, shares: list[str]) -> None:
    """The president's emergency sale of his choice (issue 45: he names it, in his corporation's train step)."""
    percent = sum(s.percent for c in g.corporations.values() for s in c.shares if s.id in shares)
    g.process({"type": "sell_shares", "entity": pid, "shares": shares, "percent": percent})


def buy(g: Game, sym: str, train: str, price_: int, variant: str | None = None) -> None:
    action: dict[str, Any] = {"type": "buy_train", "entity": sym, "train": train, "price": price_}
    if variant:
        action["variant"] = variant
    g.process(action)


# -- emergency money: the treasury, then forced issues ------------------------------------------------------------
def test_em_treasury_alone_buys_when_it_is_enough() -> None:
    """"eerst besteedt ze haar hele schatkist" (first it spends its treasury): a treasury of $80 buys the $75 2-train
    without any issue and without the president's money."""
    g = emergency(cv_cash=80, president_cash=200)
    buy(g, "CV", "2-0", 75, "2")
    cv = g.corporations["CV"]
    assert cv.cash == 5 and g.player(1).cash == 200 and price(g, "CV") == 20 and cv.percent_owned_by(POOL) == 0


def test_em_dearer_type_is_refused_when_the_treasury_pays_the_cheaper() -> None:
    """"Als de maatschappij een van de twee beschikbare treintypes kan betalen maar het andere niet, mag ze geen
    geld van de president gebruiken om het duurste te kopen." (If it can pay one of the two available types but
    not the other, it may not use the president's money for the dearer.) $80 pays the 2 ($75), not the 2+1."""
    g = emergency(cv_cash=80, president_cash=200)
    with pytest.raises(IllegalAction):
        buy(g, "CV", "2-0", 100, "2+1")
    assert all(not (o["type"] == "buy_train" and o.get("variant") == "2+1") for o in legal_actions(g))
    assert g.player(1).cash == 200 and g.corporations["CV"].cash == 80


def test_em_forced_issues_drop_one_column_each_and_fetch_the_price_below_the_new_one() -> None:
    """"daarna moet ze aandelen uitgeven tot de gebruikelijke limiet ... de koers daalt één kolom per uitgegeven
    aandeel en ze ontvangt een bedrag onder de nieuwe koers" (then it must issue up to the usual limit; the price
    drops a column per share and it receives the amount below the new price). Players hold 20% (limit two):
    60 -> 50 fetching 40, 50 -> 40 fetching 30; the president pays the remaining $5."""
    g = emergency(cv_cash=0, president_cash=100, price_after_run=60)
    buy(g, "CV", "2-0", 75, "2")
    cv = g.corporations["CV"]
    assert price(g, "CV") == 40 and cv.percent_owned_by(POOL) == 20
    assert cv.cash == 0 and g.player(1).cash == 95 and len(cv.trains) == 1


def test_em_forced_issue_never_takes_the_price_below_20() -> None:
    """"en ze mag niet uitgeven als de koers daardoor onder $20 zou komen" (it may not issue if the price would go
    below $20). Players hold 40% (limit four) at $40: 40 -> 30 (fetches 20), 30 -> 20 (fetches 10), then no more;
    the president pays $45."""
    g = emergency(cv_cash=0, president_cash=100, price_after_run=40)
    give(g, "CV", 2, 2)
    g.edited()
    buy(g, "CV", "2-0", 75, "2")
    cv = g.corporations["CV"]
    assert price(g, "CV") == 20 and cv.percent_owned_by(POOL) == 20 and g.player(1).cash == 55


def test_em_forced_issue_limit_counts_the_shares_already_in_the_market() -> None:
    """"zoveel als de spelers er bezitten min het aantal dat al op de markt ligt" (as many as the players hold
    minus those already in the market) is "de gebruikelijke limiet". Players 30%, market 20%: one share only
    (40 -> 30, fetching 20); the president pays $55."""
    g = emergency(cv_cash=0, president_cash=100, price_after_run=40)
    give(g, "CV", 2, 1)
    give(g, "CV", POOL, 2)
    g.edited()
    buy(g, "CV", "2-0", 75, "2")
    cv = g.corporations["CV"]
    assert price(g, "CV") == 30 and cv.percent_owned_by(POOL) == 30 and g.player(1).cash == 45


def test_em_no_issue_at_20_so_the_president_pays_at_once() -> None:
    """At $20 any issue would take the price below $20: the president's money comes straight after the treasury
    ("Pas dan legt de president persoonlijk geld bij")."""
    g = emergency(cv_cash=10, president_cash=100, price_after_run=20)
    buy(g, "CV", "2-0", 75, "2")
    assert price(g, "CV") == 20 and g.corporations["CV"].percent_owned_by(POOL) == 0
    assert g.player(1).cash == 35 and g.corporations["CV"].cash == 0


def test_em_issues_only_what_the_train_needs() -> None:
    """Reading: "moet ze aandelen uitgeven tot de gebruikelijke limiet" read as "as many as needed, at most the
    usual limit" (the limit caps the forced issue; the seed's "hij stopt zodra het bedrag bereikt is" says the same
    of the president). At $100 one share (100 -> 90, fetching 80) pays the $75 2-train; the second is not issued."""
    g = emergency(cv_cash=0, president_cash=100, price_after_run=100)
    buy(g, "CV", "2-0", 75, "2")
    cv = g.corporations["CV"]
    assert price(g, "CV") == 90 and cv.percent_owned_by(POOL) == 10 and cv.cash == 5 and g.player(1).cash == 100


def test_em_known1_the_forced_issue_comes_before_the_bankruptcy() -> None:
    """Known disagreement 1. "eerst besteedt ze haar hele schatkist en daarna moet ze aandelen uitgeven ... Pas dan
    legt de president persoonlijk geld bij ... Lukt het zelfs zo niet, dan gaat de speler failliet" (treasury, then
    forced issues, then the president; only then bankrupt). CV at $30, empty treasury; player 2 holds 30% (so CV
    survives); the president has $15 and nothing he may sell. One share must be issued (30 -> 20, fetching $10)
    before he goes bankrupt: the price ends at $20 (his shares then go to the market without moving it)."""
    g = emergency(cv_cash=0, president_cash=15, price_after_run=30)
    give(g, "CV", 2, 3)
    g.edited()
    assert kinds(g) == {"bankrupt"}
    g.process({"type": "bankrupt", "entity": "CV"})
    assert price(g, "CV") == 20 and g.corporations["CV"].percent_owned_by(POOL) >= 30


# -- emergency money: the president's money and his sales ---------------------------------------------------------
def test_em_president_sells_another_corporations_share_and_stops_once_enough() -> None:
    """"als dat niet genoeg is, moet hij eigen aandelen verkopen ... en hij stopt zodra het bedrag bereikt is" (then
    he must sell his own shares, stopping once the amount is reached). No cash, 20% of FRR at $100: one FRR share
    is sold (he is not FRR's president, so its price stays), he keeps $25 and the other share; no bankruptcy. He
    names the sale (issue 45): selling both is refused, as one already raises the amount."""
    g = emergency(cv_cash=0, president_cash=0, price_after_run=20)
    give(g, "FRR", 1, 2)
    g.corporations["FRR"].operated = True
    g.edited()
    assert "bankrupt" not in kinds(g)
    frr_shares = held(g, "FRR", 1)
    with pytest.raises(IllegalAction):
        sell(g, 1, frr_shares)
    sell(g, 1, frr_shares[:1])
    assert "sell_shares" not in kinds(g)
    buy(g, "CV", "2-0", 75, "2")
    frr = g.corporations["FRR"]
    assert frr.percent_owned_by(1) == 10 and frr.percent_owned_by(POOL) == 10 and price(g, "FRR") == 100
    assert g.player(1).cash == 25 and len(g.corporations["CV"].trains) == 1


def test_em_president_sale_of_his_own_corporation_drops_it_one_column() -> None:
    """"Alleen verkopen door de president doen de koers dalen (één enkele kolom, hoeveel hij er ook verkoopt)" with
    "moet hij eigen aandelen verkopen": he has $60 and 40% of CV at $20 (no issue possible); one CV share (at $20)
    makes up the $15; the price drops one column to $10 and he stays president. He names the sale (issue 45):
    selling both is refused, as one already raises the amount."""
    g = emergency(cv_cash=0, president_cash=60, price_after_run=20)
    give(g, "CV", 1, 2)
    g.edited()
    cv_shares = held(g, "CV", 1)
    with pytest.raises(IllegalAction):
        sell(g, 1, cv_shares)
    sell(g, 1, cv_shares[:1])
    assert "sell_shares" not in kinds(g)
    buy(g, "CV", "2-0", 75, "2")
    cv = g.corporations["CV"]
    assert cv.percent_owned_by(1) == 30 and cv.percent_owned_by(POOL) == 10 and price(g, "CV") == 10
    assert g.player(1).cash == 5 and cv.president == 1


def test_em_sales_never_pass_the_presidency_of_the_operating_corporation() -> None:
    """"zonder dat dit een wisseling van het presidentschap ... van de opererende maatschappij veroorzaakt" (without
    changing the presidency of the operating corporation). He holds 40% of CV at $20, player 2 holds 30%; he has
    $30 and needs $45: two CV shares would pass the presidency, one is not enough, nothing else to sell: he cannot
    buy the train and is offered only bankruptcy."""
    g = emergency(cv_cash=0, president_cash=30, price_after_run=20)
    give(g, "CV", 1, 2)
    give(g, "CV", 2, 3)
    g.edited()
    assert kinds(g) == {"bankrupt"}
    with pytest.raises(IllegalAction):
        buy(g, "CV", "2-0", 75, "2")
    assert g.corporations["CV"].percent_owned_by(1) == 40 and g.corporations["CV"].president == 1


def test_em_sales_never_close_the_operating_corporation() -> None:
    """"zonder dat dit ... de sluiting van de opererende maatschappij veroorzaakt" and "Als de koers $0 bereikt,
    sluit de maatschappij": at $10 a president's sale of CV would drop it to $0 and close it, so it is not made;
    with $70 of the $75 and nothing else, he is bankrupt."""
    g = emergency(cv_cash=0, president_cash=70, price_after_run=10)
    give(g, "CV", 1, 2)
    g.edited()
    assert kinds(g) == {"bankrupt"}
    with pytest.raises(IllegalAction):
        buy(g, "CV", "2-0", 75, "2")


def test_em_president_may_sell_out_of_another_corporations_presidency() -> None:
    """Reading: "zonder dat dit een wisseling van het presidentschap of de sluiting van de opererende maatschappij
    veroorzaakt" protects the operating corporation only. Player 1 presides FRR too (30% against player 3's 20%);
    with no cash he must sell two FRR shares at $100 for the $75... he needs only one: one is sold, FRR drops one
    column (a president's sale), and he stays FRR's president (30 -> 20% ties player 3: no change on a tie)."""
    g = launch_two(extra=[{"type": "buy_company", "entity": 3, "company": "P1", "price": 15}])
    frr = g.corporations["FRR"]
    # FRR's president's certificate to player 1 (scenario set-up)
    frr.give(frr.shares[0], 1)
    give(g, "FRR", 1, 1)
    give(g, "FRR", 3, 2)
    frr.operated = True
    cv = g.corporations["CV"]
    g.pay(cv, None, cv.cash)
    g.pay(g.player(1), None, g.player(1).cash)
    set_price(g, "CV", 30)
    to_train_step(g)
    frr_shares = held(g, "FRR", 1)
    with pytest.raises(IllegalAction):
        sell(g, 1, frr_shares[:1] + ["FRR_0"])  # never his president's certificate
    sell(g, 1, frr_shares[:1])
    buy(g, "CV", "2-0", 75, "2")
    assert frr.percent_owned_by(1) == 20 and price(g, "FRR") == 90 and g.player(1).cash == 25


def test_em_president_chooses_which_shares_to_sell() -> None:
    """Reading decided in issue 45: "In an emergency the president chooses which of his shares to sell (offered as
    choices, within the limits), not the engine." Seed: "moet hij eigen aandelen verkopen". He holds 10% of FRR and
    10% of CV beyond his certificate; he lacks $15 and either share would do: both are offered to him."""
    g = emergency(cv_cash=0, president_cash=60, price_after_run=20)
    give(g, "CV", 1, 1)
    give(g, "FRR", 1, 1)
    g.corporations["FRR"].operated = True
    g.edited()
    sells = {tuple(o["shares"]) for o in legal_actions(g) if o["type"] == "sell_shares" and o["entity"] == 1}
    assert {("CV_1",), ("FRR_1",)} <= sells


def test_known3_a_presidents_sales_in_one_turn_drop_one_column() -> None:
    """Known disagreement 3. "Alleen verkopen door de president doen de koers dalen (één enkele kolom, hoeveel hij
    er ook verkoopt)" (only the president's sales drop the price: one column, however many he sells). Two sales of
    10% in one stock-round turn: 100 -> 90 once."""
    s = new()
    g = s.game
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(g, 100)})
    s.submit({"type": "pass", "entity": 2})
    s.submit({"type": "pass", "entity": 3})
    g = s.game
    give(g, "CV", 1, 2)
    g.corporations["CV"].operated = True
    g.edited()
    assert g.acting() == [1]
    g.process({"type": "sell_shares", "entity": 1, "shares": ["CV_1"], "percent": 10})
    g.process({"type": "sell_shares", "entity": 1, "shares": ["CV_2"], "percent": 10})
    assert price(g, "CV") == 90


def test_a_presidents_single_sale_of_two_shares_drops_one_column() -> None:
    """"één enkele kolom, hoeveel hij er ook verkoopt": one sale of 20% by the president, 100 -> 90."""
    s = new()
    g = s.game
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(g, 100)})
    s.submit({"type": "pass", "entity": 2})
    s.submit({"type": "pass", "entity": 3})
    g = s.game
    give(g, "CV", 1, 2)
    g.corporations["CV"].operated = True
    g.edited()
    g.process({"type": "sell_shares", "entity": 1, "shares": ["CV_1", "CV_2"], "percent": 20})
    assert price(g, "CV") == 90 and g.player(1).cash == 600 - 200 + 200


# -- emergency money: which train --------------------------------------------------------------------------------
def test_em_known2_phase_five_obsolete_train_on_sale_does_not_block_the_new_train() -> None:
    """Known disagreement 2. "mag ze geen geld van de president gebruiken om het duurste te kopen" concerns "de twee
    beschikbare treintypes"; an obsolete train is not one of them and does not end the duty to own a train
    ("Een maatschappij moet een trein kopen als ze er geen heeft"). Phase V, an obsolete 4/7 handed back to the
    bank, CV without money: the president's $1,100 buys the $1,000 7+3."""
    g = launch_two()
    advance_to(g, "V")
    four = next(t for t in g.depot.trains if t.name == "4/7" and t.rusted)
    four.rusted, four.obsolete = False, True
    g.depot.discarded.append(four)
    cv = g.corporations["CV"]
    g.pay(cv, None, cv.cash)
    g.pay(None, g.player(1), 1100 - g.player(1).cash)
    set_price(g, "CV", 30)
    to_train_step(g)
    seven = next(t for t in g.depot.trains if t.name == "7+3" and t.owner is None and not t.rusted)
    buy(g, "CV", seven.id, 1000, "7+3")
    assert seven in cv.trains and g.player(1).cash == 100


# -- bankruptcy ---------------------------------------------------------------------------------------------------
def bankrupt_position() -> Game:
    """CV at $20 (no issue possible), empty; player 1 (its president, certificate only) has $10 and 20% of FRR,
    which he may not sell (the market already holds 50%); player 2 holds 30% of CV. He must go bankrupt."""
    g = emergency(cv_cash=0, president_cash=10, price_after_run=20)
    give(g, "CV", 2, 3)
    give(g, "FRR", 1, 2)
    give(g, "FRR", POOL, 5)
    g.corporations["FRR"].operated = True
    g.edited()
    assert kinds(g) == {"bankrupt"}
    g.process({"type": "bankrupt", "entity": "CV"})
    return g


def test_bankruptcy_sends_his_shares_to_the_market_without_moving_prices_even_past_50() -> None:
    """"zijn resterende aandelen worden op de markt verkocht zonder de koers te bewegen (ook als daarbij 50% wordt
    overschreden of er een presidentscertificaat terechtkomt)" (his shares go to the market without moving the
    price, even past 50% or with a president's certificate). FRR's market goes to 70% at $100; CV stays at $20."""
    g = bankrupt_position()
    frr, cv = g.corporations["FRR"], g.corporations["CV"]
    assert g.player(1).bankrupt and frr.percent_owned_by(1) == 0 and cv.percent_owned_by(1) == 0
    assert frr.percent_owned_by(POOL) == 70 and price(g, "FRR") == 100 and price(g, "CV") == 20
    assert not cv.closed and not g.finished


def test_bankruptcy_passes_the_presidency_and_the_new_president_must_buy_the_train() -> None:
    """"als het presidentschap daardoor wisselt, moet de nieuwe president de trein kopen" (if the presidency changes,
    the new president must buy the train): player 2 (30%) presides CV, CV still acts and must buy; whatever CV
    lacks of the $75 comes from player 2."""
    g = bankrupt_position()
    cv = g.corporations["CV"]
    assert cv.president == 2 and g.acting() == ["CV"] and "buy_train" in kinds(g)
    with pytest.raises(IllegalAction):
        g.process({"type": "pass", "entity": "CV"})
    before, p2 = cv.cash, g.player(2).cash
    buy(g, "CV", "2-0", 75, "2")
    assert len(cv.trains) == 1 and g.player(2).cash == p2 - max(0, 75 - before)


def test_bankruptcy_money_raised_goes_to_the_corporation() -> None:
    """"het geld dat hij heeft bijeengebracht gaat naar de maatschappij" (the money he raised goes to the
    corporation): his $10 is in CV's treasury after the bankruptcy."""
    g = bankrupt_position()
    assert g.corporations["CV"].cash >= 10 and g.player(1).cash == 0


def test_bankruptcy_money_raised_and_sale_proceeds_go_to_the_corporation() -> None:
    """"het geld dat hij heeft bijeengebracht gaat naar de maatschappij" (the money he raised goes to the
    corporation) and, reading decided in issue 45, the proceeds of his remaining shares "verkocht" to the market go
    with it: $10 cash + CV 20% at $20 + FRR 20% at $100 = $250, enough for the train without player 2."""
    g = bankrupt_position()
    cv = g.corporations["CV"]
    assert cv.cash == 10 + 40 + 200
    p2 = g.player(2).cash
    buy(g, "CV", "2-0", 75, "2")
    assert cv.cash == 175 and g.player(2).cash == p2


def test_a_bankrupt_player_is_out_and_the_game_goes_on() -> None:
    """"dan gaat de speler failliet en ligt hij eruit, maar het spel gaat door" (he is out, the game goes on):
    he has no money and no certificates left and no turn in the next stock round."""
    g = bankrupt_position()
    assert not g.finished and 1 not in g.player_order and g.player(1).cash == 0
    assert g.num_certs(g.player(1)) == 0


def test_all_players_but_one_bankrupt_end_the_game_at_once() -> None:
    """"Alle spelers op één na gaan failliet: het spel eindigt direct" (all players but one bankrupt: the game
    ends at once). Player 3 went bankrupt earlier; player 1 goes bankrupt now."""
    g = emergency(cv_cash=0, president_cash=10, price_after_run=20)
    g.player(3).bankrupt = True
    g.player_order = [p for p in g.player_order if p != 3]
    g.edited()
    g.process({"type": "bankrupt", "entity": "CV"})
    assert g.finished


def test_bankruptcy_is_refused_while_his_shares_would_pay() -> None:
    """"Lukt het zelfs zo niet, dan gaat de speler failliet": only when even selling fails. With 10% of FRR at $100
    he can pay; bankruptcy is refused."""
    g = emergency(cv_cash=0, president_cash=0, price_after_run=20)
    give(g, "FRR", 1, 1)
    g.corporations["FRR"].operated = True
    g.edited()
    with pytest.raises(IllegalAction):
        g.process({"type": "bankrupt", "entity": "CV"})


# -- phase changes ------------------------------------------------------------------------------------------------
def test_the_cheaper_face_of_the_first_phase_two_card_starts_phase_two() -> None:
    """"5 fasen ..., geactiveerd door de aankoop van de eerste trein van de volgende fase": the first 3/5 card
    bought on its 2+2 face ($140) starts phase II."""
    g = emergency(cv_cash=300, president_cash=0, price_after_run=20)
    sell_out(g, "3/5")
    g.edited()
    buy(g, "CV", "3/5-0", 140, "2+2")
    assert g.phase.name == "II" and g.corporations["CV"].cash == 160


def test_the_cheaper_face_of_the_first_phase_four_card_starts_phase_four() -> None:
    """The 6/9 card bought as a 5+3 ($640) starts phase IV, whose train limit is 2 ("2 in fasen IV-V")."""
    g = launch_two()
    advance_to(g, "III")
    cv = g.corporations["CV"]
    g.pay(None, cv, 700 - cv.cash)
    set_price(g, "CV", 30)
    sell_out(g, "6/9")
    to_train_step(g)
    buy(g, "CV", "6/9-0", 640, "5+3")
    assert g.phase.name == "IV" and cv.cash == 60 and g.train_limit(cv) == 2


def test_the_phase_five_train_costs_1000() -> None:
    """"Fase V — 7+3-trein ($1.000)": the 7+3 is offered and sold at $1,000."""
    g = launch_two()
    advance_to(g, "IV")
    cv = g.corporations["CV"]
    g.pay(None, cv, 1500 - cv.cash)
    set_price(g, "CV", 30)
    sell_out(g, "7+3")
    to_train_step(g)
    offered = {o["price"] for o in legal_actions(g) if o["type"] == "buy_train" and o["train"].startswith("7+3")}
    assert offered == {1000}


def test_standard_train_limits_by_phase() -> None:
    """"Treinlimiet in het standaardspel: 3 in fasen I-III en 2 in fasen IV-V"."""
    g = launch_two()
    limits = []
    for name in PHASES:
        advance_to(g, name)
        limits.append(g.train_limit(g.corporations["CV"]))
    assert limits == [3, 3, 3, 2, 2]


def test_takeover_game_train_limits_by_phase() -> None:
    """"(in het Takeover-spel: 3 in I, 3 in II, 2 in III en 1 in IV-V, plus 1 voor elke overname ...)"."""
    s = new(4, ["takeover_game"])
    g = s.game
    s.submit({"type": "par", "entity": 1, "corporation": "CV", "share_price": cell(g, 40)})
    s.submit({"type": "par", "entity": 2, "corporation": "FRR", "share_price": cell(g, 100)})
    g = s.game
    limits = []
    for name in PHASES:
        advance_to(g, name)
        limits.append(g.train_limit(g.corporations["CV"]))
    assert limits == [3, 3, 2, 1, 1]


def test_phase_three_obsolete_trains_do_not_count_against_the_limit() -> None:
    """"Fase III: de treinen van fase I verouderen" and "Een verouderde trein telt niet mee voor de treinlimiet":
    CV with two 2-trains buys the first 4/7 (phase III): its 2-trains are obsolete and it may buy two more 4/7s
    in the same turn (three counted, two obsolete besides)."""
    g = launch_two()
    cv = g.corporations["CV"]
    g.pay(None, cv, 1500)
    for i in range(2):
        g.buy_train_from_depot(cv, g.depot.by_id(f"2-{i}"), 75)
    advance_to(g, "II")
    sell_out(g, "4/7")
    to_train_step(g)
    fours = [t.id for t in g.depot.trains if t.name == "4/7" and t.owner is None and not t.rusted]
    buy(g, "CV", fours[0], 320, "4/7")
    assert g.phase.name == "III" and sum(t.obsolete for t in cv.trains) == 2
    buy(g, "CV", fours[1], 320, "4/7")
    buy(g, "CV", fours[2], 320, "4/7")
    assert len(cv.trains) == 5 and len([t for t in cv.trains if not t.obsolete]) == 3


def test_an_obsolete_train_runs_once_more_and_then_leaves() -> None:
    """"wordt verwijderd direct nadat zijn eigenaar de volgende keer routes heeft gereden" (removed right after its
    owner's next run) and "Een maatschappij moet een trein kopen als ze er geen heeft nadat ze routes heeft gereden
    en de verouderde treinen heeft verwijderd": CV's obsolete 2-train is there until CV runs; then CV has no train
    and must buy one."""
    g = launch_two()
    cv = g.corporations["CV"]
    two = g.depot.by_id("2-0")
    g.buy_train_from_depot(cv, two, 75)
    advance_to(g, "III")
    assert two.obsolete and two in cv.trains
    g.pay(None, cv, 500)
    to_train_step(g)
    assert two not in cv.trains
    with pytest.raises(IllegalAction):
        g.process({"type": "pass", "entity": "CV"})


def test_an_obsolete_train_is_not_offered_to_another_corporation() -> None:
    """"Een verouderde trein ... mag niet aan een andere maatschappij worden verkocht": in phase III FRR is not
    offered CV's obsolete 2-train, and buying it is refused."""
    g = launch_two()
    cv, frr = g.corporations["CV"], g.corporations["FRR"]
    g.buy_train_from_depot(cv, g.depot.by_id("2-0"), 75)
    advance_to(g, "III")
    g.process({"type": "pass", "entity": "CV"})
    g.process({"type": "run_routes", "entity": "CV", "routes": []}) if "run_routes" in kinds(g) else None
    while g.acting() == ["CV"]:
        g.process({"type": "pass", "entity": "CV"}) if "pass" in kinds(g) else g.process(legal_actions(g)[0])
    # the obsolete train left after CV's run; give CV another obsolete one that has not run yet
    two = g.depot.by_id("2-1")
    two.rusted, two.obsolete, two.owner = False, True, "CV"
    cv.trains.append(two)
    frr.trains = []
    g.pay(None, frr, 500)
    assert g.acting() == ["FRR"]
    to_train_step(g, "FRR")
    assert all(o.get("train") != "2-1" for o in legal_actions(g) if o["type"] == "buy_train")
    with pytest.raises(IllegalAction):
        buy(g, "FRR", "2-1", 10)


def test_phase_four_removes_phase_one_trains_and_obsoletes_phase_two_trains() -> None:
    """"Fase IV: ... de treinen van fase II verouderen en die van fase I worden verwijderd" (phase-I trains leave
    at once, even obsolete ones not yet run again; phase-II trains become obsolete)."""
    g = launch_two()
    cv = g.corporations["CV"]
    g.pay(None, cv, 1000)
    two = g.depot.by_id("2-0")
    g.buy_train_from_depot(cv, two, 75)
    advance_to(g, "II")
    three = next(t for t in g.depot.trains if t.name == "3/5" and t.owner is None and not t.rusted)
    g.buy_train_from_depot(cv, three, 180)
    advance_to(g, "IV")
    assert two not in cv.trains and three in cv.trains and three.obsolete


def test_phase_five_removes_phase_two_trains_and_obsoletes_phase_three_trains() -> None:
    """"Fase V: de treinen van fase III verouderen en die van fase II worden verwijderd"."""
    g = launch_two()
    cv = g.corporations["CV"]
    g.pay(None, cv, 2000)
    advance_to(g, "III")
    four = next(t for t in g.depot.trains if t.name == "4/7" and t.owner is None and not t.rusted)
    g.buy_train_from_depot(cv, four, 320)
    three = g.depot.by_id("3/5-1")
    three.rusted = False
    g.buy_train_from_depot(cv, three, 180)
    advance_to(g, "V")
    assert three not in cv.trains and four in cv.trains and four.obsolete


def test_phase_four_train_limit_cuts_three_phase_three_trains_to_two() -> None:
    """"Treinlimiet ...: 3 in fasen I-III en 2 in fasen IV-V" (reading: a corporation over the new limit gives
    trains back until it is within it): CV's three 4/7s (not obsolete in IV) become two."""
    g = launch_two()
    cv = g.corporations["CV"]
    g.pay(None, cv, 1000)
    advance_to(g, "III")
    for t in [t for t in g.depot.trains if t.name == "4/7" and t.owner is None and not t.rusted][:3]:
        g.buy_train_from_depot(cv, t, 320)
    advance_to(g, "IV")
    assert g.acting() == ["CV"] and kinds(g) == {"discard_train"}
    g.process(legal_actions(g)[0])
    assert len([t for t in cv.trains if not t.obsolete]) == 2


def test_phase_three_removes_players_privates_and_p1_p2_and_flips_p3_to_p6() -> None:
    """"Fase III: ... privates in handen van spelers en P1-P2 worden verwijderd, en P3-P6 worden omgedraaid (ze
    leveren geen inkomen meer op, maar behouden hun vaardigheid)". P6 with player 3; P1 and P4 with CV."""
    g = launch_two(extra=[{"type": "buy_company", "entity": 3, "company": "P6", "price": 80}])
    cv = g.corporations["CV"]
    for sym in ("P1", "P4"):
        g.companies[sym].owner = "CV"
        cv.companies.append(sym)
    advance_to(g, "III")
    assert g.companies["P6"].closed and "P6" not in g.player(3).companies
    assert g.companies["P1"].closed and "P1" not in cv.companies
    assert not g.companies["P4"].closed and "P4" in cv.companies and g.companies["P4"].revenue == 0


def test_phase_four_removes_p3_to_p5_and_keeps_p6() -> None:
    """"Fase IV: ... de privates P3-P5 en alle veerboten worden verwijderd" and P6's "permanente vaardigheid"."""
    g = launch_two()
    cv = g.corporations["CV"]
    for sym in ("P3", "P4", "P5", "P6"):
        g.companies[sym].owner = "CV"
        cv.companies.append(sym)
    advance_to(g, "IV")
    assert all(g.companies[s].closed for s in ("P3", "P4", "P5")) and cv.companies == ["P6"]
    advance_to(g, "V")
    assert not g.companies["P6"].closed and cv.companies == ["P6"]


def test_phase_four_ends_the_worcester_reservation() -> None:
    """"Boston & Worcester ... heeft tot fase IV een gereserveerde plaats in Worcester" and "Fase IV: ... de
    reserveringen van stadsplaatsen vervallen"."""
    g = launch_two()
    assert any("BW" in str(r) for r in g.board.hex(WORCESTER).reservations)
    advance_to(g, "III")
    assert any("BW" in str(r) for r in g.board.hex(WORCESTER).reservations)
    advance_to(g, "IV")
    assert not any("BW" in str(r) for r in g.board.hex(WORCESTER).reservations)


# -- ferries ------------------------------------------------------------------------------------------------------
def test_a_ferry_costs_40() -> None:
    """"Vijf veerboten ($40)": CV buys F1 for $40."""
    g = launch_two()
    cv = g.corporations["CV"]
    cash = cv.cash
    g.process({"type": "special_buy", "entity": "CV", "description": "F1"})
    assert cv.cash == cash - 40 and g.title_state.ferries["F1"] == "CV"


def test_a_ferry_bought_by_one_corporation_is_not_offered_to_another() -> None:
    """"Vijf veerboten": five in all, each owned once. F1 bought by CV is not offered to FRR."""
    g = launch_two()
    g.process({"type": "special_buy", "entity": "CV", "description": "F1"})
    while g.acting() == ["CV"]:
        options = legal_actions(g)
        move = next((o for o in options if o["type"] == "pass"), None)
        if move is None and any(o["type"] == "buy_train" for o in options):
            move = next(o for o in options if o["type"] == "buy_train")
        g.process(move or options[0])
    assert g.acting() == ["FRR"]
    offered = {o["description"] for o in legal_actions(g) if o["type"] == "special_buy"}
    assert offered == {"F2", "F3", "F4", "F5"}


def test_ferries_leave_in_phase_four_and_are_no_longer_sold() -> None:
    """"kunnen de maatschappijen tot fase IV vijf veerboten kopen" and "ze worden in fase IV verwijderd"."""
    g = launch_two()
    g.process({"type": "special_buy", "entity": "CV", "description": "F1"})
    advance_to(g, "IV")
    assert g.title_state.ferries["F1"] != "CV"
    assert "special_buy" not in kinds(g)
    with pytest.raises(IllegalAction):
        g.process({"type": "special_buy", "entity": "CV", "description": "F2"})


def test_ferries_are_still_sold_in_phase_three() -> None:
    """"tot fase IV" (until phase IV): in phase III a ferry may still be bought."""
    g = launch_two()
    advance_to(g, "III")
    assert "special_buy" in kinds(g)


# -- privates -----------------------------------------------------------------------------------------------------
def test_boston_and_lowell_lays_track_in_phase_two_without_p2() -> None:
    """"Zolang geen maatschappij haar heeft gekocht, mag de Boston & Lowell in fase I geen spoor leggen" (no track
    in phase I only): in phase II the B&L lays track although nobody has bought P2."""
    s = new()
    g = s.game
    s.submit({"type": "par", "entity": 1, "corporation": "B&L", "share_price": cell(g, 100)})
    s.submit({"type": "buy_company", "entity": 2, "company": "P2", "price": 40})
    for pid in (3, 1, 2):
        s.submit({"type": "pass", "entity": pid})
    g = s.game
    assert g.acting() == ["B&L"] and "lay_tile" not in kinds(g)
    advance_to(g, "II", sink="B&L")
    g.corporations["B&L"].trains = []
    g.edited()
    assert "lay_tile" in kinds(g)


def test_boston_and_lowell_lays_track_in_phase_one_once_another_corporation_has_p2() -> None:
    """"Zolang geen maatschappij haar heeft gekocht" (as long as no corporation has bought it): once CV owns P2,
    the B&L may lay track in phase I."""
    s = new()
    g = s.game
    s.submit({"type": "par", "entity": 1, "corporation": "B&L", "share_price": cell(g, 100)})
    s.submit({"type": "par", "entity": 2, "corporation": "CV", "share_price": cell(g, 40)})
    s.submit({"type": "buy_company", "entity": 3, "company": "P2", "price": 40})
    for pid in (1, 2, 3):
        s.submit({"type": "pass", "entity": pid})
    g = s.game
    assert g.acting() == ["CV"]
    g.process({"type": "buy_company", "entity": "CV", "company": "P2", "price": 40})
    while g.acting() == ["CV"]:
        options = legal_actions(g)
        move = next((o for o in options if o["type"] == "pass"), None) or \
            next((o for o in options if o["type"] == "buy_train"), None) or options[0]
        g.process(move)
    assert g.acting() == ["B&L"] and "lay_tile" in kinds(g)


def test_a_corporation_buys_a_private_in_phase_two_for_one_dollar() -> None:
    """"Maatschappijen mogen in fasen I en II privates van spelers kopen voor een bedrag tussen $1 en de
    catalogusprijs": in phase II CV buys player 3's P4 for $1; $61 is refused."""
    g = launch_two(extra=[{"type": "buy_company", "entity": 3, "company": "P4", "price": 60}])
    advance_to(g, "II")
    g.edited()
    with pytest.raises(IllegalAction):
        g.process({"type": "buy_company", "entity": "CV", "company": "P4", "price": 61})
    p3 = g.player(3).cash
    g.process({"type": "buy_company", "entity": "CV", "company": "P4", "price": 1})
    assert g.companies["P4"].owner == "CV" and g.player(3).cash == p3 + 1


def test_a_corporation_buying_p6_pays_the_extra_40_to_the_bank() -> None:
    """"P6 Delaware & Hudson RR — $80 (plus $40 aan de bank wanneer een maatschappij haar koopt)": CV buys it for
    $1 and pays $41 in all."""
    g = launch_two(extra=[{"type": "buy_company", "entity": 3, "company": "P6", "price": 80}])
    cv = g.corporations["CV"]
    cash, bank = cv.cash, g.bank_cash
    g.process({"type": "buy_company", "entity": "CV", "company": "P6", "price": 1})
    assert cv.cash == cash - 41 and g.bank_cash == bank + 40


def test_private_income_in_phase_two_and_none_for_p6_from_phase_three() -> None:
    """"P6 ... inkomen $30" until phase III flips it ("ze leveren geen inkomen meer op"): CV owning P6 receives
    $30 when an operating round starts in phase II, nothing in phase III."""
    g = launch_two(extra=[{"type": "buy_company", "entity": 3, "company": "P6", "price": 80}])
    g.pay(None, g.corporations["CV"], 200)
    g.edited()
    g.process({"type": "buy_company", "entity": "CV", "company": "P6", "price": 80})
    advance_to(g, "II")
    assert g.companies["P6"].revenue == 30
    advance_to(g, "III")
    assert g.companies["P6"].revenue == 0 and "P6" in g.corporations["CV"].companies


def test_p5_owner_chooses_which_ferry_it_doubles() -> None:
    """Reading decided in issue 45: "P5's ferry: its owner chooses which ferry it doubles ('kan niet opnieuw worden
    toegewezen': once chosen)". CV owns F1 and F2 and buys P5: it is offered a choice between them."""
    g = launch_two(extra=[{"type": "buy_company", "entity": 3, "company": "P5", "price": 70}])
    g.pay(None, g.corporations["CV"], 200)
    g.edited()
    g.process({"type": "special_buy", "entity": "CV", "description": "F1"})
    g.process({"type": "special_buy", "entity": "CV", "description": "F2"})
    g.process({"type": "buy_company", "entity": "CV", "company": "P5", "price": 70})
    choices = [o for o in legal_actions(g) if o["type"] in ("choose", "choose_ability")]
    assert len(choices) >= 2


def test_p5_is_not_reassigned_when_a_newer_ferry_is_bought() -> None:
    """"P5 ... verdubbelt de waarde van een van de veerboten van de maatschappij ... kan niet opnieuw worden
    toegewezen": once on a ferry, P5 stays there when the corporation buys another."""
    g = launch_two(extra=[{"type": "buy_company", "entity": 3, "company": "P5", "price": 70}])
    g.pay(None, g.corporations["CV"], 200)
    g.edited()
    g.process({"type": "special_buy", "entity": "CV", "description": "F1"})
    g.process({"type": "buy_company", "entity": "CV", "company": "P5", "price": 70})
    options = [o for o in legal_actions(g) if o["type"] in ("choose", "choose_ability")]
    if options:
        g.process(options[0])
    first = g.title_state.luxury
    assert first == "F1"
    g.process({"type": "special_buy", "entity": "CV", "description": "F2"})
    assert g.title_state.luxury == first


# -- takeovers ----------------------------------------------------------------------------------------------------
ACQUIRER, TARGET = "B&P", "HR"


@cache
def _takeover_blob() -> bytes:
    """The recorded Takeover game up to its first takeover offer (phase IV, B&P may take over HR)."""
    record = json.loads((Path(__file__).resolve().parents[2] / "fixtures/1833NE/takeover_4p_seed3.json")
                        .read_text())
    flags = final_active_flags(record["actions"])
    upto = next(i for i, a in enumerate(record["actions"]) if a["type"] == "merge")
    s = GameSession.new(record["title"], record["players"], record["settings"]["seed"],
                        record["settings"].get("optional_rules") or [], record.get("id", 0))
    for i, action in enumerate(record["actions"][:upto]):
        s.submit(action, trusted=not flags[i], keep_id=True, recorded=True)
    return pickle.dumps(s.game)


def set_cash(g: Game, sym: str, cash: int) -> None:
    corp = g.corporations[sym]
    if cash > corp.cash:
        g.pay(None, corp, cash - corp.cash)
    else:
        g.pay(corp, None, corp.cash - cash)


def takeover() -> Game:
    """The recorded Takeover game at its first takeover offer: phase IV (train limit 1 in the Takeover game), B&P
    with a running 4/7 may take over HR, which has a running 4/7 too, connected by track. Holdings, prices and
    treasuries reshaped by hand (scenario set-up, as the audit's other positions): HR at $50, all of it with
    players (player 2 its president with 60%, player 3 40%), $108 in its treasury; B&P at $40, player 3 its
    president with the 20% certificate only, the other 80% in its treasury, $600 in it. The two presidents differ,
    so HR is asked when it may refuse."""
    g: Game = pickle.loads(_takeover_blob())
    assert type(g.round).__name__ == "TakeoverRound" and g.acting() == [ACQUIRER] and g.phase.name == "IV"
    acquirer, target = g.corporations[ACQUIRER], g.corporations[TARGET]
    for share in acquirer.shares:
        acquirer.give(share, 3 if share.president else ACQUIRER)
    for i, share in enumerate(target.shares):
        target.give(share, 2 if i < 5 else 3)
    set_price(g, TARGET, 50)
    set_cash(g, TARGET, 108)
    set_cash(g, ACQUIRER, 600)
    g.edited()
    assert price(g, ACQUIRER) == 40 and acquirer.president == 3 and acquirer.percent_owned_by(ACQUIRER) == 80
    assert target.president == 2 and target.percent_owned_by(2) == 60 and target.percent_owned_by(3) == 40
    assert [(t.name, t.obsolete) for t in target.trains] == [("4/7", False)]
    assert any(not t.obsolete for t in acquirer.trains) and g.train_limit(acquirer) == 1
    assert any(o["type"] == "merge" and o["corporation"] == TARGET and "pay" not in o for o in legal_actions(g))
    return g


def test_takeover_target_with_a_running_train_may_refuse_and_nothing_changes() -> None:
    """"De doelmaatschappij kan het afwijzen, behalve als ze geen treinen heeft of alleen verouderde": HR has a
    4/7 (not obsolete in phase IV): it may refuse, and a refusal leaves both as they were."""
    g = takeover()
    acquirer, target = g.corporations[ACQUIRER], g.corporations[TARGET]
    before = (acquirer.cash, target.cash, list(acquirer.trains), list(target.trains))
    g.process({"type": "merge", "entity": ACQUIRER, "corporation": TARGET})
    assert g.acting() == [TARGET] and {o["choice"] for o in legal_actions(g)} == {"accept", "refuse"}
    g.process({"type": "choose", "entity": TARGET, "choice": "refuse"})
    assert (acquirer.cash, target.cash, list(acquirer.trains), list(target.trains)) == before and not target.closed


@pytest.mark.parametrize("trains", ["obsolete", "none"])
def test_takeover_target_without_a_running_train_may_not_refuse(trains: str) -> None:
    """"behalve als ze geen treinen heeft of alleen verouderde" (unless it has no trains or only obsolete ones):
    HR's only train made obsolete, or taken away: B&P's offer goes through without HR being asked (its
    president is not B&P's: with a running train it would be asked, see the test above)."""
    g = takeover()
    target = g.corporations[TARGET]
    if trains == "obsolete":
        for t in target.trains:
            t.obsolete = True
    else:
        target.trains = []
    g.edited()
    g.process({"type": "merge", "entity": ACQUIRER, "corporation": TARGET})
    # B&P has no other target here, so the takeover round goes on past it; HR is never the one to act
    assert target.closed and g.acting() != [TARGET] and "choose" not in kinds(g)
    with pytest.raises(IllegalAction):
        g.process({"type": "choose", "entity": TARGET, "choice": "refuse"})


def test_takeover_buys_every_outstanding_share_and_inherits_treasury_trains_and_tokens() -> None:
    """"door al haar uitstaande aandelen terug te kopen met geld ... De overnemende maatschappij erft haar treinen,
    schatkist, veerboten, privates en fiches, en krijgt één trein extra aan limiet" (reading: at the target's
    current price). HR at $50, all 100% with players: B&P pays $500 (player 2 $300, player 3 $200), gets HR's
    $108, 4/7 and stations; its limit goes from 1 (phase IV, Takeover game) to 2; HR is gone."""
    g = takeover()
    acquirer, target = g.corporations[ACQUIRER], g.corporations[TARGET]
    cash, p2, p3 = acquirer.cash, g.player(2).cash, g.player(3).cash
    train = target.trains[0]
    stations = [h.id for h in g.board.hexes.values() if any(TARGET in slots for slots in h.tokens)]
    limit = g.train_limit(acquirer)
    g.process({"type": "merge", "entity": ACQUIRER, "corporation": TARGET})
    g.process({"type": "choose", "entity": TARGET, "choice": "accept"})
    assert g.player(2).cash == p2 + 300 and g.player(3).cash == p3 + 200
    assert acquirer.cash == cash - 500 + 108 and train in acquirer.trains
    assert target.closed and g.train_limit(acquirer) == limit + 1 == 2
    assert stations and all(any(ACQUIRER in slots for slots in g.board.hex(h).tokens) for h in stations)


def test_takeover_moves_the_targets_private_to_the_acquirer() -> None:
    """"erft haar ... privates": HR's P6 (set up) goes to B&P with its ability."""
    g = takeover()
    target, acquirer = g.corporations[TARGET], g.corporations[ACQUIRER]
    p6 = g.companies["P6"]
    if p6.owner != TARGET:
        old = p6.owner
        if isinstance(old, int):
            g.player(old).companies.remove("P6")
        elif isinstance(old, str) and old in g.corporations:
            g.corporations[old].companies.remove("P6")
        p6.owner, p6.closed = TARGET, False
        target.companies.append("P6")
    g.edited()
    g.process({"type": "merge", "entity": ACQUIRER, "corporation": TARGET})
    g.process({"type": "choose", "entity": TARGET, "choice": "accept"})
    assert p6.owner == ACQUIRER and "P6" in acquirer.companies and not p6.closed


def test_an_acquirer_with_only_obsolete_trains_may_not_take_over() -> None:
    """"elke maatschappij met een niet-verouderde trein ... [kan] proberen die over te nemen": B&P's train made
    obsolete: no takeover is offered and one is refused."""
    g = takeover()
    for t in g.corporations[ACQUIRER].trains:
        t.obsolete = True
    g.edited()
    assert all(o["type"] != "merge" for o in legal_actions(g, ACQUIRER))
    with pytest.raises(IllegalAction):
        g.process({"type": "merge", "entity": ACQUIRER, "corporation": TARGET})


def test_no_takeover_in_phase_one() -> None:
    """"Fase II: ... kunnen de overnames beginnen" and "vanaf fase II, na de tweede operating round van elk paar":
    a phase-I set of two operating rounds in the Takeover game ends without a takeover round."""
    s = new(4, ["takeover_game"])
    g = s.game
    s.submit({"type": "par", "entity": 1, "corporation": "BW", "share_price": cell(g, 100)})
    s.submit({"type": "par", "entity": 2, "corporation": "B&L", "share_price": cell(g, 60)})
    s.submit({"type": "par", "entity": 3, "corporation": "FRR", "share_price": cell(g, 60)})
    for pid in (4, 1, 2, 3):
        s.submit({"type": "pass", "entity": pid})
    rounds = []
    for _ in range(200):
        g = s.game
        name = type(g.round).__name__
        if not rounds or rounds[-1] != name:
            rounds.append(name)
        if name.startswith("Stock") and len(rounds) > 1:
            break
        options = legal_actions(g)
        move = next((o for o in options if o["type"] == "buy_train"), None) \
            if not g.corporations[options[0]["entity"]].trains else None
        move = move or next((o for o in options if o["type"] == "pass"), None) or options[0]
        s.submit(move)
    assert "TakeoverRound" not in rounds and s.game.phase.name == "I"


# -- more emergency limits ----------------------------------------------------------------------------------------
def test_em_president_may_not_sell_shares_of_a_corporation_that_has_not_operated() -> None:
    """"Voordat een maatschappij voor het eerst heeft geopereerd, mag alleen haar president er aandelen van
    verkopen" (before a corporation first operates only its president may sell its shares): his 10% of FRR
    (FRR operates after CV in this first round) cannot be sold, so with no cash he is bankrupt."""
    g = emergency(cv_cash=0, president_cash=0, price_after_run=20)
    give(g, "FRR", 1, 1)
    g.edited()
    assert not g.corporations["FRR"].operated
    assert kinds(g) == {"bankrupt"}
    with pytest.raises(IllegalAction):
        buy(g, "CV", "2-0", 75, "2")


def test_em_president_sales_respect_the_market_50_percent() -> None:
    """"Op de markt mag maximaal 50% van een maatschappij liggen": his 10% of FRR cannot go to a market that
    already holds 50%; with no cash he is bankrupt (the 50% may be passed only by a bankrupt's shares)."""
    g = emergency(cv_cash=0, president_cash=0, price_after_run=20)
    give(g, "FRR", 1, 1)
    give(g, "FRR", POOL, 5)
    g.corporations["FRR"].operated = True
    g.edited()
    assert kinds(g) == {"bankrupt"}


# -- ordinary issue and buy-back (the contrast to the emergency terms) --------------------------------------------
def test_an_ordinary_issue_fetches_the_price_below_and_leaves_the_price() -> None:
    """"tegen een bedrag onder de koers" (at the amount below the price), "zoveel als de spelers er bezitten min het
    aantal dat al op de markt ligt"; only the emergency issue has the "slechtere voorwaarden" of a falling price.
    CV at $40, players hold 20%: at most two shares, each fetching $30; the price stays $40."""
    g = launch_two()
    offered = {len(o["shares"]) for o in legal_actions(g) if o["type"] == "sell_shares" and o["entity"] == "CV"}
    assert offered == {1, 2}
    cash = g.corporations["CV"].cash
    g.process({"type": "sell_shares", "entity": "CV", "shares": ["CV_1", "CV_2"], "percent": 20})
    cv = g.corporations["CV"]
    assert cv.cash == cash + 60 and price(g, "CV") == 40 and cv.percent_owned_by(POOL) == 20


def test_an_ordinary_issue_beyond_the_limit_is_refused() -> None:
    """"zoveel als de spelers er bezitten min het aantal dat al op de markt ligt": players 20%, market 10%: one."""
    g = launch_two()
    give(g, "CV", POOL, 1)
    g.edited()
    with pytest.raises(IllegalAction):
        g.process({"type": "sell_shares", "entity": "CV", "shares": ["CV_2", "CV_3"], "percent": 20})
    g.process({"type": "sell_shares", "entity": "CV", "shares": ["CV_2"], "percent": 10})
    assert g.corporations["CV"].percent_owned_by(POOL) == 20


# -- takeovers paid in shares -------------------------------------------------------------------------------------
def test_takeover_in_own_shares_respects_the_60_percent_limit() -> None:
    """"met geld of eigen aandelen" and "Geen enkele speler mag meer dan 60% van een maatschappij kopen of bezitten,
    zonder uitzonderingen": B&P ($40) pays HR's $50 shares in its own: player 2's $300 due buys at most 60% of
    B&P (the rest in cash), which makes him B&P's president (player 3 holds 20%)."""
    g = takeover()
    g.process({"type": "merge", "entity": ACQUIRER, "corporation": TARGET, "pay": "shares"})
    if g.acting() == [TARGET]:
        g.process({"type": "choose", "entity": TARGET, "choice": "accept"})
    acquirer = g.corporations[ACQUIRER]
    assert g.corporations[TARGET].closed
    assert all(acquirer.percent_owned_by(p.id) <= 60 for p in g.players)
    assert acquirer.percent_owned_by(2) == 60 and acquirer.president == 2

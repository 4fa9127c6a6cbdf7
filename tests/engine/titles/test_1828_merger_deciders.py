"""Who decides a merger started with another player's corporation (docs/rules-1828.md, "Who decides a
merger"): the starting corporation names its partner, so its president decides, also when the player who
started the merger is someone else; the game names him, offers him the partners, and says whose proposal it
is (he may decline: the table takes the start back)."""

from __future__ import annotations

import pytest
from test_1828_rules import MARKET, recorded

from services.words.names import acting_name
from shared.engine.errors import IllegalAction


def started_with_another_players_corporation():
    session = recorded(MARKET, 331)  # 3581's stock turn; MP is 11345's, NW and CPR are 3581's
    game = session.game
    assert game.controller("MP") == 11345 and game.controller("NW") == 3581
    session.submit({"type": "choose", "entity": 3581, "entity_type": "player", "choice": "MP"})
    return session


def test_the_partners_president_is_named_and_offered_the_merger() -> None:
    session = started_with_another_players_corporation()
    game = session.game
    assert game.acting() == [3581]  # the reference's acting entity is unchanged (the digest)
    assert game.acting_players() == [11345]
    offered = game.legal_actions_of(11345, orders=False)
    assert offered and {a["type"] for a in offered} == {"merge"}
    assert {a["entity"] for a in offered} == {"MP"}
    assert game.legal_actions_of(3581, orders=False) == []  # the starter has nothing to do meanwhile
    assert game.proposed_by(11345) == 3581
    assert game.proposed_by(3581) is None
    # the page's header and the turn mail's "Acting:" line name him, and whose move he answers
    names = {p.id: p.name for p in game.players}
    assert [acting_name(game, e) for e in game.acting()] == [f"{names[11345]} (asked by {names[3581]})"]


def test_the_partners_president_completes_the_merger_he_accepts() -> None:
    session = started_with_another_players_corporation()
    move = next(a for a in session.game.legal_actions_of(11345, orders=False) if a["type"] == "merge")
    session.submit(move)
    assert session.game.proposed_by(11345) is None
    assert session.game.acting_players() != [] or session.game.finished


def test_a_merger_the_starter_begins_with_his_own_corporation_is_his_alone() -> None:
    session = recorded(MARKET, 331)
    session.submit({"type": "choose", "entity": 3581, "entity_type": "player", "choice": "CPR"})
    game = session.game
    assert game.acting_players() == [3581]
    assert game.proposed_by(3581) is None
    assert {a["type"] for a in game.legal_actions_of(3581, orders=False)} == {"merge"}


def test_an_unknown_partner_is_still_refused() -> None:
    session = started_with_another_players_corporation()
    with pytest.raises(IllegalAction):
        session.submit({"type": "merge", "entity": "MP", "entity_type": "corporation", "corporation": "B&O"})

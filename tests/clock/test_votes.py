"""What happens at the deadline, the table's vote and its outcomes, and consent to undo into others' turns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.play.votes import ConsentRequest, TableVote, VoteError, at_deadline, undo_affected

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
H = timedelta(hours=1)


def test_deadline_remedies_in_order() -> None:
    assert at_deadline(True, True, True) == "standing_order"
    assert at_deadline(False, True, True) == "auto_pass"
    assert at_deadline(False, True, False) == "table_vote"  # allowed but not chosen
    assert at_deadline(False, False, True) == "table_vote"  # chosen but the position has no pass


def test_a_majority_settles_the_vote_at_once() -> None:
    v = TableVote.open(absent=2, seats=[0, 1, 2, 3], opened=T0)
    v = v.cast(0, "open_seat")
    assert v.outcome(T0) is None
    v = v.cast(1, "open_seat")
    assert v.outcome(T0) == ("open_seat", None)


def test_substitute_names_a_seated_player() -> None:
    v = TableVote.open(absent=0, seats=[0, 1, 2], opened=T0)
    v = v.cast(1, "substitute", 2).cast(2, "substitute", 2)
    assert v.outcome(T0) == ("substitute", 2)
    with pytest.raises(VoteError) as err:
        TableVote.open(0, [0, 1, 2], T0).cast(1, "substitute", 0)
    assert err.value.field == "substitute"
    with pytest.raises(VoteError) as err:
        TableVote.open(0, [0, 1, 2], T0).cast(1, "substitute")
    assert err.value.status == 400


def test_at_the_timeout_the_plurality_wins_and_ties_extend() -> None:
    v = TableVote.open(absent=0, seats=range(5), opened=T0, timeout=24 * H)
    v = v.cast(1, "open_seat")
    assert v.outcome(T0 + 23 * H) is None
    assert v.outcome(T0 + 24 * H) == ("open_seat", None)
    tie = TableVote.open(0, range(5), T0, 24 * H).cast(1, "open_seat").cast(2, "substitute", 3)
    assert tie.outcome(T0 + 24 * H) == ("extend", None)
    silent = TableVote.open(0, range(3), T0, 24 * H)
    assert silent.outcome(T0 + 24 * H) == ("extend", None)


def test_nobody_votes_twice_for_the_absent_or_from_outside() -> None:
    v = TableVote.open(absent=0, seats=[0, 1, 2], opened=T0).cast(1, "extend")
    for seat, choice, status in [(1, "extend", 409), (0, "extend", 403), (7, "extend", 403), (2, "kick", 400)]:
        with pytest.raises(VoteError) as err:
            v.cast(seat, choice)
        assert err.value.status == status


def test_own_moves_are_free_to_undo_others_need_consent() -> None:
    assert undo_affected([1, 1, 1], requester=1) == frozenset()
    assert undo_affected([1, 2, 0, 2], requester=1) == frozenset({0, 2})


def test_consent_needs_every_affected_seat() -> None:
    r = ConsentRequest("undo", requester=1, affected=frozenset({0, 2}), opened=T0, target=17)
    r = r.answer(0, True, T0 + H)
    assert r.state(T0 + H) == "pending"
    r = r.answer(2, True, T0 + 2 * H)
    assert r.state(T0 + 2 * H) == "accepted"


def test_one_decline_ends_it_and_silence_lapses() -> None:
    r = ConsentRequest("redo", requester=1, affected=frozenset({0, 2}), opened=T0, timeout=10 * H)
    declined = r.answer(2, False, T0)
    assert declined.state(T0) == "declined"
    with pytest.raises(VoteError) as err:
        declined.answer(0, True, T0)
    assert err.value.status == 409
    assert r.answer(0, True, T0).state(T0 + 10 * H) == "lapsed"
    with pytest.raises(VoteError):
        r.answer(0, True, T0 + 10 * H)


def test_nobody_answers_for_someone_else_or_twice() -> None:
    r = ConsentRequest("undo", requester=1, affected=frozenset({0, 2}), opened=T0)
    for seat, status in [(1, 403), (3, 403)]:
        with pytest.raises(VoteError) as err:
            r.answer(seat, True, T0)
        assert err.value.status == status
    with pytest.raises(VoteError) as err:
        r.answer(0, True, T0).answer(0, False, T0)
    assert err.value.status == 409

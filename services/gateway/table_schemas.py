"""Request and response bodies of the table's endpoints (`table_api`: time controls, votes, undo and redo
requests, proposals; docs/time-controls.md)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from services.gateway.schemas import MAX_ID, Strict, Text
from services.play.votes import CHOICES

HOURS = validate.Range(min=0, max=24 * 365, min_inclusive=False)
HHMM = validate.Regexp(r"^([01]\d|2[0-3]):[0-5]\d$", error="must be HH:MM (00:00 to 23:59)")


class TimeControlIn(Strict):
    kind = fields.String(required=True, validate=validate.OneOf(["none", "deadline", "bank"]))
    per_move_hours = fields.Float(allow_nan=False, validate=HOURS)
    bank_hours = fields.Float(allow_nan=False, validate=HOURS)
    increment_hours = fields.Float(allow_nan=False, validate=validate.Range(min=0, max=24 * 30))

    @validates_schema
    def _needs(self, data: dict[str, Any], **_: Any) -> None:
        if data["kind"] == "deadline" and "per_move_hours" not in data:
            raise ValidationError("a deadline needs per_move_hours", "per_move_hours")
        if data["kind"] == "bank" and "bank_hours" not in data:
            raise ValidationError("a time bank needs bank_hours", "bank_hours")


class HoursIn(Strict):
    tz = Text(load_default="UTC", validate=validate.Length(min=1, max=64))
    quiet_start = fields.String(allow_none=True, validate=HHMM)
    quiet_end = fields.String(allow_none=True, validate=HHMM)
    weekends_off = fields.Boolean(load_default=False)
    auto_pass = fields.Boolean(load_default=False)


class VacationIn(Strict):
    until = fields.AwareDateTime(required=True, allow_none=True, default_timezone=None)


class BallotIn(Strict):
    choice = fields.String(required=True, validate=validate.OneOf(CHOICES))
    substitute = fields.Integer(allow_none=True, validate=validate.Range(min=0, max=MAX_ID),
                                 metadata={"description": "the seat that moves for the absent one: its seat "
                                           "number, or a seated player's id from the seat count up"})


class UndoRequestIn(Strict):
    kind = fields.String(load_default="undo", validate=validate.OneOf(["undo", "redo"]))
    action_id = fields.Integer(allow_none=True, validate=validate.Range(min=0, max=2**31 - 1),
                               metadata={"description": "undo back to just after this action (0: all)"})


class AnswerIn(Strict):
    accept = fields.Boolean(required=True)


class ClockOut(Schema):
    """The table's clock, votes, undo request and seats (`services.play.timekeeping.Table.view`)."""

    time_control = fields.Dict(required=True, metadata={"description": "kind and its hours"})
    undo = fields.String(metadata={"description": "consent | free"})
    undo_request = fields.Dict(allow_none=True, metadata={"description": "the open undo/redo request, if any"})
    to_move = fields.Integer(allow_none=True)
    since = fields.String(allow_none=True)
    deadline = fields.String(allow_none=True)
    overdue = fields.Boolean()
    banks_hours = fields.Dict()
    away = fields.Dict(metadata={"description": "seat -> its vacation (from, until)"})
    vote = fields.Dict(allow_none=True, metadata={"description": "the table's vote on an absent seat"})
    stand_in = fields.Dict(allow_none=True, metadata={"description": "who acts for the absent seat this turn"})
    open_seats = fields.List(fields.Integer())
    seat_claim = fields.Dict(allow_none=True, metadata={"description": "a newcomer's claim the table answers"})
    holders = fields.List(fields.Dict())
    resigned = fields.List(fields.Dict())
    my_hours = fields.Dict(metadata={"description": "the caller's own hours"})
    end_game = fields.String(metadata={"description": "vote: ending the game is proposed to the table; any"})
    purchases = fields.String(metadata={"description": "consent: a purchase from another player's holding is "
                                                       "proposed to him first; free"})
    proposal = fields.Dict(allow_none=True, metadata={
        "description": "the move proposed to the table, if any: kind (end_game | purchase), by, action (with "
                       "its price), affected, accepted, closes"})
    seats = fields.List(fields.Dict(), metadata={"description": "seat number and player id of every seat"})


class UndoRequestOut(ClockOut):
    """free: only the caller's own moves, post the undo as an action; else the request, open (the table's view)."""

    free = fields.Boolean(required=True)
    message = fields.String()
    time_control = fields.Dict()

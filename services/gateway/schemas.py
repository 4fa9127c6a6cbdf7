"""Marshmallow schemas for every request and response body; the OpenAPI document is generated from them."""

from __future__ import annotations

from marshmallow import INCLUDE, RAISE, Schema, fields, validate


class Strict(Schema):
    class Meta:
        unknown = RAISE


class ErrorOut(Schema):
    error = fields.String(required=True, metadata={"description": "stable machine-readable code"})
    message = fields.String(required=True)
    rule = fields.String(metadata={"description": "engine rule code, for refused actions"})
    details = fields.Dict()


class PlayerIn(Strict):
    name = fields.String(required=True, validate=validate.Length(1, 80))
    id = fields.Integer(validate=validate.Range(min=1), metadata={"description": "operators only"})


class PlayerOut(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(metadata={"description": "player token, shown once"})


class GameCreateIn(Strict):
    title = fields.String(required=True, validate=validate.Length(1, 40))
    options = fields.List(fields.String(), load_default=list)
    seed = fields.Integer(validate=validate.Range(min=0, max=2**53))
    seats = fields.Integer(required=True, validate=validate.Range(min=1, max=12))
    visibility = fields.String(load_default="open", validate=validate.OneOf(["open", "private"]))


class SeatOut(Schema):
    seat = fields.Integer(attribute="seat_index", required=True)
    player_id = fields.Integer(required=True)
    name = fields.String(required=True)


class GameOut(Schema):
    id = fields.Integer(required=True)
    title = fields.String(required=True)
    options = fields.List(fields.String())
    seed = fields.Integer()
    seat_count = fields.Integer()
    status = fields.String(metadata={"description": "open | active | finished"})
    visibility = fields.String()
    version = fields.Integer()
    created_at = fields.Float()
    result = fields.Dict(allow_none=True)
    seats = fields.List(fields.Nested(SeatOut))
    url = fields.String()


class GameListQuery(Strict):
    status = fields.String(validate=validate.OneOf(["open", "active", "finished"]))
    title = fields.String()
    player_id = fields.Integer()
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 500))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0))


class GameListOut(Schema):
    games = fields.List(fields.Nested(GameOut))


class JoinIn(Strict):
    name = fields.String(required=True, validate=validate.Length(1, 80))
    seat = fields.Integer(validate=validate.Range(min=0))
    player_id = fields.Integer(metadata={"description": "an identity you own: send its player token as bearer"})


class JoinOut(Schema):
    game_id = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    player_id = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "seat token, shown once"})
    player_token = fields.String(allow_none=True, metadata={"description": "new identity's token, shown once"})


class StateOut(Schema):
    game_id = fields.Integer(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    round = fields.Raw(allow_none=True)
    phase = fields.Raw(allow_none=True)
    acting = fields.List(fields.Raw(), metadata={"description": "entities that must act (players or corporations)"})
    acting_players = fields.List(fields.Integer(), metadata={"description": "players who must act"})
    players = fields.Raw()
    corporations = fields.Raw()
    market = fields.Raw()
    tiles = fields.Raw()
    result = fields.Dict(allow_none=True)
    digest = fields.Dict(metadata={"description": "the engine's full state digest"})


class LegalQuery(Strict):
    entity = fields.String()


class LegalOut(Schema):
    game_id = fields.Integer(required=True)
    version = fields.Integer(required=True)
    actions = fields.List(fields.Dict())


class EventsQuery(Strict):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=100, validate=validate.Range(1, 1000))


class EventOut(Schema):
    version = fields.Integer()
    position = fields.Integer(allow_none=True)  # null for a moment: committed, not yet numbered
    type = fields.String()
    type_version = fields.Integer()
    data = fields.Dict()
    command_id = fields.String(allow_none=True)
    created_at = fields.Float()


class EventsOut(Schema):
    game_id = fields.Integer()
    events = fields.List(fields.Nested(EventOut))
    next_after = fields.Integer(allow_none=True)


class RecordIn(Schema):
    """An 18xx.games game record; fields beyond these are kept and ignored."""

    class Meta:
        unknown = INCLUDE

    title = fields.String(required=True)
    players = fields.List(fields.Dict(), required=True, validate=validate.Length(min=1))
    settings = fields.Dict(load_default=dict)
    actions = fields.List(fields.Dict(), load_default=list)


class ImportQuery(Strict):
    visibility = fields.String(load_default="open", validate=validate.OneOf(["open", "private"]))


class ImportOut(Schema):
    game = fields.Nested(GameOut)
    seats = fields.List(fields.Dict(), metadata={"description": "seat, player_id and seat token (shown once)"})


class ActionIn(Strict):
    action = fields.Dict(required=True, metadata={"description": "an 18xx.games-style action"})
    expected_version = fields.Integer(required=True, validate=validate.Range(min=0))


class WaitQuery(Strict):
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0))


class ReceiptOut(Schema):
    game_id = fields.Integer(required=True)
    command_id = fields.String(required=True, metadata={"description": "the Idempotency-Key"})
    status = fields.String(required=True, metadata={"description": "queued | applied | refused"})
    expected_version = fields.Integer()
    new_version = fields.Integer(allow_none=True)
    player_id = fields.Integer(allow_none=True)
    reason = fields.String(allow_none=True)
    rule = fields.String(allow_none=True)
    http_status = fields.Integer(allow_none=True, metadata={"description": "the status a waiting POST answers"})
    created_at = fields.Float()
    settled_at = fields.Float(allow_none=True)
    url = fields.String()

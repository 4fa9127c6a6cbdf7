"""Marshmallow schemas for every request and response body; the OpenAPI document is generated from them."""

from __future__ import annotations

from typing import Any

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from shared.engine.actions import action_fields, unknown_fields
from shared.engine.titles import registered_actions

MAX_ID = 2**53 - 1  # ids and seeds: exact in every JSON client and inside a 64-bit column
MAX_VERSION = 2**31 - 1  # game versions live in a 32-bit column


class Strict(Schema):
    class Meta:
        unknown = RAISE


class Text(fields.String):
    """A string both stores can keep: UTF-8 encodable (no lone surrogates such as "\\ud800") and without
    NUL, which PostgreSQL text refuses. Anything else would fail at the database as a 500."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if "\x00" in text:
            raise ValidationError("must not contain NUL characters")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValidationError("must be valid Unicode (no lone surrogates)") from None
        return text


def Id(**kw: Any) -> fields.Integer:  # noqa: N802 (a field factory reads like a field class)
    """A positive id, bounded so the database never sees a number it cannot store."""
    return fields.Integer(validate=validate.Range(min=1, max=MAX_ID), **kw)


class ErrorOut(Schema):
    error = fields.String(required=True, metadata={"description": "stable machine-readable code"})
    message = fields.String(required=True)
    rule = fields.String(metadata={"description": "the engine's rule code, for every refusal (set-ups, actions)"})
    reason = fields.String(metadata={"description": "what is wrong, without the list of alternatives (the "
                                                    "engine's refusal field; receipts: its whole sentence)"})
    details = fields.Dict(metadata={"description": "per request field, for invalid requests and set-ups"})
    valid = fields.Raw(metadata={"description": "the values that would have been accepted, where the engine "
                                                "knows them (titles, options, player counts, actions allowed now)"})


class PlayerIn(Strict):
    name = Text(required=True, validate=validate.Length(1, 80))
    id = Id(metadata={"description": "operators only"})


class PlayerOut(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(metadata={"description": "player token, shown once"})


class GameCreateIn(Strict):
    title = Text(required=True, validate=validate.Length(1, 40),
                 metadata={"description": "one of `GET /titles`", "example": "1840"})
    options = fields.List(Text(validate=validate.Length(1, 40)), load_default=list,
                          validate=validate.Length(max=20), metadata={"example": []})
    seed = fields.Integer(validate=validate.Range(min=0, max=MAX_ID))
    seats = fields.Integer(required=True, validate=validate.Range(min=1, max=12), metadata={"example": 2})
    visibility = fields.String(load_default="open", validate=validate.OneOf(["open", "private"]))
    undo = fields.String(load_default="consent", validate=validate.OneOf(["consent", "free"]),
                         metadata={"description": "consent: an undo into another player's moves needs their "
                                   "consent (docs/time-controls.md); free: any seat may undo"})
    end_game = fields.String(load_default="vote", validate=validate.OneOf(["vote", "any"]), metadata={
        "description": "vote: ending the game by agreement is proposed and played once every other player "
                       "accepts; any: any player's `end_game` ends it at once (docs/time-controls.md, Proposals)"})
    purchases = fields.String(load_default="consent", validate=validate.OneOf(["consent", "free"]), metadata={
        "description": "consent: buying a private from another player (or his corporation) or a train from a "
                       "corporation another player presides is proposed to him, with the price, and played "
                       "once he accepts; free: played at once"})


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
    invitation = fields.String(metadata={"description": "private games, at creation only: the token that "
                                                        "takes a seat (`POST /games/{id}/join`)"})
    provisional = fields.Dict(metadata={"description": "only for games playing with provisional values "
                                                       "(1833NE): `notice` and `values` ([{key, description}])"})


class GameListQuery(Strict):
    status = fields.String(validate=validate.OneOf(["open", "active", "finished"]))
    title = Text(validate=validate.Length(max=40))
    player_id = Id()
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 500))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_ID))


class GameListOut(Schema):
    games = fields.List(fields.Nested(GameOut))


class JoinIn(Strict):
    name = Text(required=True, validate=validate.Length(1, 80))
    seat = fields.Integer(validate=validate.Range(min=0, max=11))
    player_id = Id(metadata={"description": "an identity you own: send its player token as bearer"})
    invitation = Text(validate=validate.Length(max=200),
                      metadata={"description": "a private game's invitation token (answered at its creation)"})


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
    entity = Text(validate=validate.Length(max=80))


class LegalOut(Schema):
    game_id = fields.Integer(required=True)
    version = fields.Integer(required=True)
    actions = fields.List(fields.Dict())
    # moves the engine would take that are not offered: the game could only be taken back from where they
    # lead; each names its "reason"
    dead_ends = fields.List(fields.Dict())
    # moves the caller may only propose: the table's rules put them to the players they touch first (ending
    # the game by agreement, a purchase from another player's holding); each names them in "needs_consent".
    # Posted like any move, one is answered 202 `proposed` and played once they all accept
    proposals = fields.List(fields.Dict())


class EventsQuery(Strict):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION))
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


class RecordPlayerIn(Schema):
    class Meta:
        unknown = INCLUDE

    id = Id(required=True)
    name = Text(validate=validate.Length(max=80))


class RecordSettingsIn(Schema):
    class Meta:
        unknown = INCLUDE

    seed = fields.Integer(validate=validate.Range(min=-MAX_ID, max=MAX_ID))
    optional_rules = fields.List(Text(validate=validate.Length(1, 40)), validate=validate.Length(max=20))


class RecordIn(Schema):
    """An 18xx.games game record; fields beyond these are kept and ignored."""

    class Meta:
        unknown = INCLUDE

    title = Text(required=True, validate=validate.Length(1, 40))
    players = fields.List(fields.Nested(RecordPlayerIn), required=True, validate=validate.Length(1, 12))
    settings = fields.Nested(RecordSettingsIn, load_default=dict)
    actions = fields.List(fields.Dict(), load_default=list)


class ImportQuery(Strict):
    visibility = fields.String(load_default="open", validate=validate.OneOf(["open", "private"]))
    end_game = fields.String(load_default="any", validate=validate.OneOf(["vote", "any"]), metadata={
        "description": "the table's rule for ending the game from here on; a record keeps the rule it was "
                       "played under (any) unless the table chooses `vote`"})
    purchases = fields.String(load_default="free", validate=validate.OneOf(["consent", "free"]), metadata={
        "description": "the table's rule for purchases from another player's holding from here on; a record "
                       "keeps the rule it was played under (free) unless the table chooses `consent`"})


class ImportOut(Schema):
    game = fields.Nested(GameOut)
    seats = fields.List(fields.Dict(), metadata={"description": "seat, player_id and seat token"})
    players = fields.List(fields.Dict(), metadata={
        "description": "identities created for the record's players (id, name, player token, record_id): "
                       "every record player but the caller, unless the admin token imported"})


class ActionIn(Strict):
    action = fields.Dict(required=True, metadata={
        "description": "an 18xx.games-style action: `type` and the fields of that type (a field the type does "
                       "not have is refused, 400); the fields per type: "
                       + "; ".join(f"{kind}: {', '.join(sorted(f))}"
                                   for kind, f in sorted(action_fields(registered_actions()).items()))})
    expected_version = fields.Integer(required=True, validate=validate.Range(min=0, max=MAX_VERSION))

    @validates_schema
    def _known_fields(self, data: dict[str, Any], **_: Any) -> None:
        """Each field must be one its type has (the engine's declaration: shared/engine/actions.py for the
        shared types, the titles' packages for their own; the game is not known yet, so every title's)."""
        unknown = unknown_fields(data["action"], registered_actions())
        if unknown:
            kind = data["action"]["type"]
            raise ValidationError({name: [f"a {kind} action has no field {name!r}"] for name in unknown}, "action")


class WaitQuery(Strict):
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0, max=3600))


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
    error = fields.String(metadata={"description": "refused receipts: the rule, as in every error"})
    message = fields.String(metadata={"description": "refused receipts: the reason, as in every error"})
    valid = fields.Raw(allow_none=True, metadata={
        "description": "refused receipts: the values the engine would have accepted, where it names them"})


class TitlesOut(Schema):
    """Every title's catalogue entry (`GET /titles`)."""

    titles = fields.List(fields.Dict(), required=True)


class HealthOut(Schema):
    status = fields.String(required=True)
    queue = fields.String(metadata={"description": "embedded | celery"})


class MyGameOut(Schema):
    game_id = fields.Integer(required=True)
    title = fields.String()
    status = fields.String()
    your_turn = fields.Boolean()
    waiting_for = fields.String()
    round = fields.Raw(allow_none=True)
    turn = fields.Raw(allow_none=True)
    version = fields.Integer()
    seat = fields.Integer(allow_none=True)
    page = fields.String()


class MyGamesOut(Schema):
    """A player's games, those waiting for him first."""

    player_id = fields.Integer(required=True)
    name = fields.String()
    games = fields.List(fields.Nested(MyGameOut), required=True)


class RevokeOut(Schema):
    game_id = fields.Integer(required=True)
    player_id = fields.Integer(required=True)
    revoked_before = fields.Float(required=True, metadata={"description": "links issued before this are void"})


class PageMeOut(Schema):
    game_id = fields.Integer(required=True)
    player_id = fields.Integer(allow_none=True)
    name = fields.String()
    seat = fields.Integer()
    admin = fields.Boolean()
    programs = fields.List(fields.Dict(), metadata={"description": "the seat's own standing orders"})


class PageVersionQuery(Strict):
    after = fields.Integer(validate=validate.Range(min=0, max=MAX_VERSION),
                           metadata={"description": "answer as soon as the version differs (default: now's)"})
    status = Text(validate=validate.Length(max=20), metadata={"description": "answer when the status differs"})
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0, max=3600))


class PageVersionOut(Schema):
    game_id = fields.Integer(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)


class PreviewQuery(Strict):
    hex = Text(load_default="", validate=validate.Length(max=20))
    tile = Text(load_default="", validate=validate.Length(max=40))
    rotation = fields.Integer(load_default=0, validate=validate.Range(min=-(2**31), max=2**31))


class HomeOut(Schema):
    """Where the API starts (a browser gets the open games as HTML)."""

    games = fields.String()
    docs = fields.String()
    openapi = fields.String()

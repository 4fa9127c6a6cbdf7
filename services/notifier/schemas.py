"""Marshmallow schemas for the notifier API; the same classes feed the OpenAPI document."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from .manage import CHANNELS, EMAIL_MODES
from .payloads import FORMATS


class SubscriptionIn(Schema):
    channel = fields.String(required=True, validate=validate.OneOf(CHANNELS))
    url = fields.String(load_default=None, validate=validate.Length(max=2000),
                        metadata={"description": "webhook URL (https; checked against the SSRF policy)"})
    format = fields.String(load_default="standard", validate=validate.OneOf(FORMATS))
    email = fields.Email(load_default=None)
    email_mode = fields.String(load_default="immediate", validate=validate.OneOf(EMAIL_MODES),
                               metadata={"description": "immediate (batched per minute) or a daily digest"})

    @validates_schema
    def _channel_needs_target(self, data: dict[str, Any], **_kw: Any) -> None:
        if data["channel"] == "webhook" and not data.get("url"):
            raise ValidationError("a webhook subscription needs a url", "url")
        if data["channel"] == "email" and not data.get("email"):
            raise ValidationError("an email subscription needs an email address", "email")


class SecretOut(Schema):
    secret = fields.String(metadata={"description": "whsec_… key for Standard Webhooks verification"})
    expires_at = fields.DateTime(allow_none=True)


class EndpointOut(Schema):
    id = fields.Integer()
    url = fields.String()
    format = fields.String()
    disabled_at = fields.DateTime(allow_none=True)
    disabled_reason = fields.String(allow_none=True)
    secrets = fields.List(fields.Nested(SecretOut))


class SubscriptionOut(Schema):
    game_id = fields.String(allow_none=True, metadata={"description": "null for the player's default"})
    channel = fields.String()
    email = fields.String(allow_none=True)
    email_mode = fields.String()
    endpoint = fields.Nested(EndpointOut, allow_none=True)
    updated_at = fields.DateTime()


class AttemptOut(Schema):
    attempt = fields.Integer()
    started_at = fields.DateTime()
    duration_ms = fields.Integer()
    status_code = fields.Integer(allow_none=True)
    outcome = fields.String()
    error = fields.String(allow_none=True)


class DeliveryOut(Schema):
    id = fields.Integer()
    webhook_id = fields.String()
    endpoint_id = fields.Integer()
    event_type = fields.String()
    game_id = fields.String(allow_none=True)
    status = fields.String(metadata={"description": "pending | succeeded | failed | cancelled"})
    attempts = fields.Integer()
    next_attempt_at = fields.DateTime(allow_none=True)
    created_at = fields.DateTime()
    last_status = fields.Integer(allow_none=True)
    attempt_log = fields.List(fields.Nested(AttemptOut))


class VacationIn(Schema):
    on = fields.Boolean(load_default=None)
    until = fields.AwareDateTime(load_default=None, default_timezone=None)


class DeliveriesQuery(Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 500))
    status = fields.String(load_default=None, validate=validate.OneOf(["pending", "succeeded", "failed", "cancelled"]))
    player_id = fields.String(metadata={"description": "operators: the player to act for"})


class VacationOut(Schema):
    player_id = fields.String()
    vacation_until = fields.DateTime(allow_none=True)


class ErrorOut(Schema):
    error = fields.String()
    message = fields.String()
    details = fields.Dict()


# Leaves first: apispec registers nested schemas on first sight, so they must already have their names.
SCHEMAS: dict[str, type[Schema]] = {
    "NotifierSecret": SecretOut,
    "NotifierEndpoint": EndpointOut,
    "NotifierAttempt": AttemptOut,
    "NotifierSubscriptionIn": SubscriptionIn,
    "NotifierSubscription": SubscriptionOut,
    "NotifierDelivery": DeliveryOut,
    "NotifierVacationIn": VacationIn,
    "NotifierVacation": VacationOut,
    "NotifierError": ErrorOut,
}

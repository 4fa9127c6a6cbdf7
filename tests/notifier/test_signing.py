"""Standard Webhooks conformance: the spec's published test vector and multi-secret signatures."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from services.notifier.signing import headers, new_secret, signature_header

VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
VECTOR_TS = datetime.fromtimestamp(1614265330, UTC)
VECTOR_BODY = '{"test": 2432232314}'
VECTOR_SIG = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_published_vector() -> None:
    assert signature_header([VECTOR_SECRET], VECTOR_ID, VECTOR_TS, VECTOR_BODY) == VECTOR_SIG
    assert headers([VECTOR_SECRET], VECTOR_ID, VECTOR_TS, VECTOR_BODY)["webhook-timestamp"] == "1614265330"


def test_two_secrets_both_verify_and_a_third_does_not() -> None:
    old, new, other = new_secret(), new_secret(), new_secret()
    now = datetime.now(UTC)
    h = headers([new, old], "msg_1", now, '{"a":1}')
    assert len(h["webhook-signature"].split(" ")) == 2
    assert Webhook(old).verify('{"a":1}', h) == {"a": 1}
    assert Webhook(new).verify('{"a":1}', h) == {"a": 1}
    with pytest.raises(WebhookVerificationError):
        Webhook(other).verify('{"a":1}', h)


def test_tampered_body_fails() -> None:
    secret = new_secret()
    h = headers([secret], "msg_2", datetime.now(UTC), '{"a":1}')
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify('{"a":2}', h)

"""Standard Webhooks signing through the `standardwebhooks` library, with several live secrets at once so
an endpoint can rotate its secret without a window where receivers reject us.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence
from datetime import datetime

from standardwebhooks.webhooks import Webhook


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def signature_header(secrets_: Sequence[str], msg_id: str, timestamp: datetime, body: str) -> str:
    """`webhook-signature`: one `v1,<sig>` per live secret, space-separated, as the spec allows."""
    return " ".join(Webhook(s).sign(msg_id=msg_id, timestamp=timestamp, data=body) for s in secrets_)


def headers(secrets_: Sequence[str], msg_id: str, timestamp: datetime, body: str) -> dict[str, str]:
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(timestamp.timestamp())),
        "webhook-signature": signature_header(secrets_, msg_id, timestamp, body),
        "content-type": "application/json",
        "user-agent": "Railpost-Notifier/1",
    }

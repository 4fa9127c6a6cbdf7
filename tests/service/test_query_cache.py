"""The gateway remembers a validated query string (services/gateway/http.py `query`): a remembered one must
answer exactly as marshmallow would, a refused one is refused every time, and a caller changing its copy
changes nobody else's."""

from __future__ import annotations

import pytest
from flask import Flask
from marshmallow import ValidationError

from services.gateway import http
from services.gateway.schemas import EventsQuery, WaitQuery


def test_a_remembered_query_loads_as_marshmallow_does_and_each_caller_gets_its_own_copy() -> None:
    app = Flask(__name__)
    with app.test_request_context("/games/1/actions?wait=10"):
        first = http.query(WaitQuery)
        assert first == WaitQuery().load({"wait": "10"}) == {"wait": 10.0}
        first["wait"] = 99
        assert http.query(WaitQuery) == {"wait": 10.0}
    with app.test_request_context("/games/1/events?wait=10"), pytest.raises(ValidationError):
        http.query(EventsQuery)  # the same string read by another schema, which knows no `wait`


def test_a_refused_query_is_refused_every_time() -> None:
    app = Flask(__name__)
    for _ in range(2):
        with app.test_request_context("/games/1/actions?wait=-1"), pytest.raises(ValidationError):
            http.query(WaitQuery)
    assert not any(raw == b"wait=-1" for _, raw in http._queries)

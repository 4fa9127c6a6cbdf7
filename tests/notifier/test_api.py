"""The REST API with a real database: auth by player/seat token or admin, subscriptions, the delivery log,
redelivery, vacation and the OpenAPI document."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask

from services.notifier import openapi
from services.notifier.api import ApiContext, init_app
from services.notifier.tables import metadata

from .conftest import seat_game, settings_for

ADMIN = "admin-secret"


@pytest.fixture
def client(engine, db_url, clock):
    app = Flask("t")
    init_app(app, ApiContext(engine, settings_for(db_url), ADMIN, clock))
    return app.test_client()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_subscription_lifecycle(client, recorder, receiver, make_notifier):
    table = seat_game(recorder, ["Ann", "Bob"])
    bob = _auth(table.tokens["Bob"])
    assert client.get("/notifier/subscriptions").status_code == 401
    assert client.get("/notifier/subscriptions", headers=_auth("nope")).status_code == 401

    r = client.put("/notifier/subscriptions/default", headers=bob, json={"channel": "email"})
    assert r.status_code == 400 and r.json["error"] == "invalid_request" and "email" in r.json["details"]
    r = client.put("/notifier/subscriptions/default", headers=bob,
                   json={"channel": "webhook", "url": "http://10.0.0.1/hook"})
    assert r.status_code == 422 and r.json["error"] == "unsafe_url"

    r = client.put("/notifier/subscriptions/default", headers=bob, json={"channel": "email", "email": "b@x.test"})
    assert r.status_code == 200 and r.json["game_id"] is None
    r = client.put(f"/notifier/subscriptions/games/{table.game_id}", headers=bob,
                   json={"channel": "webhook", "url": receiver.url(), "format": "standard"})
    assert r.status_code == 200
    endpoint = r.json["endpoint"]
    assert endpoint["secrets"][0]["secret"].startswith("whsec_")
    listed = client.get("/notifier/subscriptions", headers=bob).json
    assert sorted(s["channel"] for s in listed) == ["email", "webhook"]

    r = client.post(f"/notifier/endpoints/{endpoint['id']}/rotate-secret", headers=bob)
    assert r.status_code == 200 and len(r.json["secrets"]) == 2
    assert client.post(f"/notifier/endpoints/{endpoint['id']}/rotate-secret",
                       headers=_auth(table.tokens["Ann"])).status_code == 404  # not Ann's

    notifier = make_notifier()
    notifier.step()  # game_started goes to Bob's game-specific webhook
    log = client.get("/notifier/deliveries", headers=bob).json
    assert [d["event_type"] for d in log] == ["game.started"] and log[0]["status"] == "succeeded"
    one = client.get(f"/notifier/deliveries/{log[0]['id']}", headers=bob).json
    assert one["attempt_log"][0]["status_code"] == 200
    assert client.get("/notifier/deliveries", headers=_auth(table.tokens["Ann"])).json == []
    assert client.post(f"/notifier/deliveries/{log[0]['id']}/redeliver", headers=bob).status_code == 202
    notifier.step()
    assert len(receiver.requests) == 2

    assert client.delete(f"/notifier/subscriptions/games/{table.game_id}", headers=bob).status_code == 204
    r = client.put("/notifier/vacation", headers=bob, json={"on": True})
    assert r.status_code == 200 and r.json["vacation_until"].startswith("9999")
    assert client.put("/notifier/vacation", headers=bob, json={"on": False}).json["vacation_until"] is None


def test_admin_acts_for_a_named_player(client, recorder):
    table = seat_game(recorder, ["Ann", "Bob"])
    admin = _auth(ADMIN)
    assert client.get("/notifier/subscriptions", headers=admin).status_code == 409
    devices = client.get("/notifier/webpush/devices", headers=admin)  # its refusals too (was a 500)
    assert devices.status_code == 409 and devices.json["error"] == "conflict"
    assert client.get("/notifier/deliveries?limit=0", headers=admin).json["details"] == {
        "limit": ["Must be greater than or equal to 1 and less than or equal to 500."]}
    r = client.put(f"/notifier/subscriptions/default?player_id={table.pid('Ann')}", headers=admin,
                   json={"channel": "none"})
    assert r.status_code == 200
    assert client.get(f"/notifier/subscriptions?player_id={table.pid('Ann')}", headers=admin).json[0]["channel"] == "none"
    assert client.get("/notifier/deliveries", headers=admin).status_code == 200  # operators see all


def test_openapi_document_lists_the_notifier(engine, db_url, clock) -> None:
    app = Flask("t")
    init_app(app, ApiContext(engine, settings_for(db_url), ADMIN, clock))
    doc = openapi.document(app)
    assert "/notifier/subscriptions/games/{game_id}" in doc["paths"]
    assert "NotifierSubscriptionIn" in doc["components"]["schemas"]
    channel = doc["components"]["schemas"]["NotifierSubscriptionIn"]["properties"]["channel"]
    assert channel["enum"] == ["webhook", "email", "none"]


def test_migration_matches_the_tables(engine) -> None:
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    ours = [d for d in diff if "notifier_" in repr(d)]
    assert ours == []
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() is not None


def test_gateway_serves_the_notifier_api(db_url, recorder) -> None:
    from services.config import Config
    from services.gateway import create_app

    table = seat_game(recorder, ["Ann", "Bob"])
    app = create_app(Config(database_url=db_url, admin_token=ADMIN))
    try:
        client = app.test_client()
        r = client.put("/notifier/subscriptions/default", headers=_auth(table.tokens["Ann"]),
                       json={"channel": "email", "email": "ann@x.test"})
        assert r.status_code == 200, r.json
        doc = client.get("/openapi.json").json
        assert "/notifier/deliveries" in doc["paths"] and "NotifierDelivery" in doc["components"]["schemas"]
    finally:
        app.extensions["railpost"].close()  # its pool would outlive the database the fixture drops

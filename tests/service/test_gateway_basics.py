"""Gateway behaviour that needs no rules engine: documents, metrics, identities, and refusals that happen
before any game exists."""

from __future__ import annotations

import requests

from services.config import Config

from .conftest import ADMIN_TOKEN, LiveServer, WorkerProcess
from .helpers import Api, load_record


def test_openapi_and_docs_page(gateway: LiveServer) -> None:
    from shared.engine.actions import action_fields
    from shared.engine.titles import registered_actions

    spec = requests.get(gateway.url + "/openapi.json", timeout=10).json()
    assert spec["openapi"].startswith("3.")
    assert "/games/{game_id}/actions" in spec["paths"] and "/titles" in spec["paths"]
    assert "ReceiptOut" in spec["components"]["schemas"]
    # an example for every action type of every registered title, and for the table's own (undo, redo, chat)
    examples = spec["paths"]["/games/{game_id}/actions"]["post"]["requestBody"]["content"]["application/json"][
        "examples"]
    assert {"undo", "redo", "message", "swap_train", "scrap_train"} <= set(action_fields(registered_actions()))
    assert set(action_fields(registered_actions())) <= {e["value"]["action"]["type"] for e in examples.values()}
    guide = spec["info"]["description"]
    for words in ("player token", "seat token", "invitation token", "admin token", "undo", "redo",
                  "program_buy_shares", "program_disable", "Testing webhooks locally", "Retry-After"):
        assert words in guide, words
    # the page is Swagger UI from the installed package, every file served here (no CDN)
    page = requests.get(gateway.url + "/docs", timeout=10)
    assert page.status_code == 200 and "openapi.json" in page.text and "SwaggerUIBundle" in page.text
    assert "http" not in page.text.split("<body>")[1] and "//" not in page.text.split("<link")[1].split(">")[0]
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        served = requests.get(f"{gateway.url}/docs/static/{asset}", timeout=10)
        assert served.status_code == 200 and len(served.content) > 10_000
    assert requests.get(f"{gateway.url}/docs/static/../meta.py", timeout=10).status_code == 404


def test_metrics_and_health(gateway: LiveServer) -> None:
    assert requests.get(gateway.url + "/healthz", timeout=10).json()["status"] == "ok"
    body = requests.get(gateway.url + "/metrics", timeout=10).text
    assert "railpost_actions_accepted_total" in body


def test_unknown_game_is_404_json(gateway: LiveServer) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    for method, path in [("GET", "/games/987654321"), ("GET", "/games/987654321/state"),
                         ("GET", "/games/987654321/events")]:
        reply = api.call(method, path)
        assert reply.status_code == 404 and reply.json()["error"] == "game_not_found"
    reply = api.call("POST", "/games/987654321/actions", ADMIN_TOKEN, headers={"Idempotency-Key": "k"},
                     json={"action": {"type": "pass"}, "expected_version": 0})
    assert reply.status_code == 404


def test_malformed_and_invalid_bodies_are_400(gateway: LiveServer) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    reply = api.call("POST", "/games", data=b"{not json", headers={"Content-Type": "application/json"})
    assert reply.status_code == 400 and reply.json()["error"] == "malformed_json"
    reply = api.call("POST", "/games", json={"title": "1825"})
    assert reply.status_code == 400 and "seats" in reply.json()["details"]
    reply = api.call("POST", "/games", json=["not", "an", "object"])
    assert reply.status_code == 400


def test_an_action_with_a_field_its_type_lacks_is_refused_and_nothing_stored(gateway: LiveServer,
                                                                            worker: WorkerProcess) -> None:
    """The fields of each type come from the engine's declaration (shared/engine/actions.py); an offer of
    legal-actions, range hints and all, posts back as it is."""
    api = Api(gateway.url, ADMIN_TOKEN)
    game_id, tokens = api.seated_game(load_record())
    offers = {pid: api.call("GET", f"/games/{game_id}/legal-actions", token).json()["actions"]
              for pid, token in tokens.items()}
    pid, offer = next((pid, a) for pid, actions in offers.items() for a in actions if a["type"] != "end_game")
    for bad in ({**offer, "bogus_field": 1}, {**offer, "rotaton": 2, "bogus_field": 1}):
        reply = api.act(game_id, tokens[pid], bad, 0, key="strict-1")
        assert reply.status_code == 400, reply.text
        body = reply.json()
        assert body["error"] == "invalid_request" and "action.bogus_field" in body["message"]
        assert "bogus_field" in body["details"]["action"]
        assert set(body["details"]["action"]) == set(bad) - set(offer)
    assert api.call("GET", f"/games/{game_id}/receipts/strict-1", tokens[pid]).status_code == 404
    assert api.call("GET", f"/games/{game_id}/state").json()["version"] == 0
    applied = api.act(game_id, tokens[pid], offer, 0, key="strict-1")
    assert applied.status_code == 200, applied.text


def test_oversize_body_is_413(gateway: LiveServer, service_config: Config) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    reply = api.call("POST", "/games", json={"title": "x" * (service_config.max_body_bytes + 10), "seats": 2})
    assert reply.status_code == 413 and reply.json()["error"] == "request_entity_too_large"


def test_player_identities(gateway: LiveServer) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    made = api.call("POST", "/players", json={"name": "Ann"})
    assert made.status_code == 201 and made.json()["token"].startswith("rp_")
    assert api.call("POST", "/players", json={"name": "Eve", "id": 77}).status_code == 401
    assert api.call("POST", "/players", made.json()["token"], json={"name": "Eve", "id": 77}).status_code == 403
    explicit = api.call("POST", "/players", ADMIN_TOKEN, json={"name": "Op", "id": 5_000_000 + made.json()["id"]})
    assert explicit.status_code == 201
    again = api.call("POST", "/players", ADMIN_TOKEN, json={"name": "Op", "id": explicit.json()["id"]})
    assert again.status_code == 409


def test_bad_tokens_are_401(gateway: LiveServer) -> None:
    api = Api(gateway.url, ADMIN_TOKEN)
    assert api.call("POST", "/games/1/start", "nope").status_code in (401, 404)
    reply = api.call("GET", "/games", headers={"Authorization": "Basic abc"})
    assert reply.status_code == 401 and reply.json()["error"] == "unauthorized"

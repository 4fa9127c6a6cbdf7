"""Web push end to end: a device registered as a browser would (its own P-256 key and auth secret), a turn
alert through the outbox and the notifier, received by a real HTTP server standing in for the push
service, which decrypts it with the device's key (RFC 8291) and checks the VAPID signature (RFC 8292)."""

from __future__ import annotations

import base64
import json
import os
from typing import Any

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid

from services.notifier import webpush

from .conftest import BASE_URL, seat_game


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _device() -> tuple[ec.EllipticCurvePrivateKey, bytes, dict[str, str]]:
    key = ec.generate_private_key(ec.SECP256R1())
    auth = os.urandom(16)
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return key, auth, {"p256dh": _b64(point), "auth": _b64(auth)}


def _vapid_pem() -> str:
    v = Vapid()
    v.generate_keys()
    return v.private_pem().decode()


def test_a_turn_alert_reaches_the_device_encrypted_and_signed(recorder, engine, clock, receiver, make_notifier) -> None:
    pem = _vapid_pem()
    notifier = make_notifier(webpush_private_key=pem, webpush_subject="mailto:ops@railpost.test")
    table = seat_game(recorder, ["Ann", "Bob"])
    key, auth, keys = _device()
    with engine.begin() as conn:
        device = webpush.register(conn, table.pid("Bob"), {"endpoint": receiver.url("/push/bob"), "keys": keys},
                                  clock.now(), notifier.settings, notifier.sender.resolver)
    notifier.step()
    receiver.requests.clear()  # the game's start went to Bob's device too
    table.turn("Bob")
    notifier.step()
    [req] = receiver.requests
    assert req.path == "/push/bob"
    assert req.headers["content-encoding"] == "aes128gcm" and int(req.headers["ttl"]) > 0
    plain = json.loads(http_ece.decrypt(req.body, private_key=key, auth_secret=auth, version="aes128gcm"))
    assert plain["body"] == f"Bob: it is your turn in game {table.game_id} (1830) — Stock Round 1, phase 2."
    assert plain["url"] == f"{BASE_URL}/games/{table.game_id}/page"
    # VAPID: "vapid t=<JWT for this push service's origin>, k=<our public key>", the JWT signed by that key
    scheme, _, params = req.headers["authorization"].partition(" ")
    fields = dict(p.strip().split("=", 1) for p in params.split(","))
    assert scheme == "vapid" and fields["k"] == webpush.public_key(notifier.settings)
    header, claims, signature = fields["t"].split(".")
    assert json.loads(_unb64(claims))["aud"] == f"http://127.0.0.1:{receiver.port}"
    assert json.loads(_unb64(claims))["sub"] == "mailto:ops@railpost.test"
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _unb64(fields["k"]))
    raw = _unb64(signature)
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    # revoked by the player: no more pushes to that device
    with engine.begin() as conn:
        assert webpush.revoke(conn, table.pid("Bob"), device, clock.now())
        assert not webpush.revoke(conn, table.pid("Ann"), device, clock.now())  # not hers to revoke
    table.turn("Ann")
    table.turn("Bob")
    notifier.step()
    assert len(receiver.requests) == 1


def test_a_push_service_saying_gone_disables_the_device(recorder, engine, clock, receiver, make_notifier) -> None:
    notifier = make_notifier(webpush_private_key=_vapid_pem())
    table = seat_game(recorder, ["Ann", "Bob"])
    _key, _auth, keys = _device()
    with engine.begin() as conn:
        webpush.register(conn, table.pid("Bob"), {"endpoint": receiver.url("/push/bob"), "keys": keys},
                         clock.now(), notifier.settings, notifier.sender.resolver)
    receiver.fail(410)
    notifier.step()
    with engine.connect() as conn:
        [device] = webpush.devices(conn, table.pid("Bob"))
    assert device["disabled_at"] is not None and "410" in device["disabled_reason"]


def test_the_api_registers_lists_and_revokes_a_players_devices(recorder, engine, clock, receiver) -> None:
    """Over the gateway's /notifier API with a seat token: the key to subscribe with, then the device."""
    from dataclasses import replace

    from flask import Flask

    from services.notifier import api
    from services.notifier.api import ApiContext

    from .conftest import settings_for

    settings = replace(settings_for(str(engine.url)), webpush_private_key=_vapid_pem())
    app = Flask(__name__)
    api.init_app(app, ApiContext(engine, settings, None, clock))
    client = app.test_client()
    table = seat_game(recorder, ["Ann", "Bob"])
    token = {"Authorization": f"Bearer {table.tokens['Bob']}"}
    key = client.get("/notifier/webpush/key").json["public_key"]
    assert len(_unb64(key)) == 65
    _k, _a, keys = _device()
    sub: dict[str, Any] = {"endpoint": receiver.url("/push/x"), "expirationTime": None, "keys": keys}
    assert client.post("/notifier/webpush/devices", json=sub).status_code == 401
    made = client.post("/notifier/webpush/devices", json=sub, headers=token)
    assert made.status_code == 201
    again = client.post("/notifier/webpush/devices", json=sub, headers=token)
    assert again.json["id"] == made.json["id"]  # the same endpoint is the same device
    bad = client.post("/notifier/webpush/devices", json={**sub, "keys": {"p256dh": "x"}}, headers=token)
    assert bad.status_code == 400
    unsafe = client.post("/notifier/webpush/devices", json={**sub, "endpoint": "ftp://example.org/x"}, headers=token)
    assert unsafe.status_code == 422
    [listed] = client.get("/notifier/webpush/devices", headers=token).json
    assert listed["id"] == made.json["id"] and listed["push_service"] == "127.0.0.1"
    ann = {"Authorization": f"Bearer {table.tokens['Ann']}"}
    assert client.delete(f"/notifier/webpush/devices/{made.json['id']}", headers=ann).status_code == 404
    assert client.delete(f"/notifier/webpush/devices/{made.json['id']}", headers=token).status_code == 204

"""The JSON text of the hot paths (shared/jsontext.py) reads back as the standard library's would, keeps the
hash spelling frozen, and still reads what older versions wrote."""

from __future__ import annotations

import json

from services.play.commands import body_hash
from shared.jsontext import canonical, dumps, dumps_bytes, loads

VALUE = {"b": [1, 2.5, None, True], "a": {"x": "Wien – Ödenburg", "n": -7}, "c": {3: "three", 10: "ten"}}


def test_written_text_reads_back_as_the_standard_library_reads_it() -> None:
    text = dumps(VALUE)
    assert loads(text) == json.loads(text) == json.loads(json.dumps(VALUE))  # int keys become strings, as in json
    assert loads(dumps_bytes(VALUE)) == loads(text)
    assert "Ödenburg" in text  # UTF-8, not \\u-escaped: smaller, and as valid


def test_what_orjson_cannot_write_is_written_by_json() -> None:
    huge = {"cash": 2**70, "note": "\ud800"}
    text = dumps(huge)
    assert json.loads(text) == huge
    assert loads(text) == huge  # the lone surrogate's escape is read back by json, whole


def test_the_hashed_spelling_is_the_standard_librarys_and_does_not_change() -> None:
    assert canonical(VALUE) == json.dumps(VALUE, separators=(",", ":"), sort_keys=True)
    assert "\\u00d6" in canonical(VALUE) and canonical(VALUE) != dumps(VALUE)
    body = {"action": {"type": "message", "message": "Öl"}, "expected_version": 3}
    assert body_hash(body) == body_hash(json.loads(json.dumps(body)))

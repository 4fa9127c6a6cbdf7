"""JSON text on the service's hot paths: the store's columns, the Redis messages, the API's responses.

Every move encodes the game's read model (a few kilobytes), its event, its outbox rows, its doorbell and its
settle announcement, and decodes some of them again; with the standard library that was a tenth of the
gateway's and of the rules worker's CPU per move. orjson writes and reads the same JSON at a fraction of the
cost. Two of its differences matter, and are kept out:

- It refuses integers beyond 64 bits, which `json` writes: `dumps` then falls back to `json`, so anything
  `json` could store is still stored.
- It reads such integers back as floats. Nothing the service writes holds one: the API refuses them in
  request bodies (`services.gateway.http.parse_json`), and the engine's numbers are money and counts.
- It refuses strings with lone surrogates ("\\ud800"), both ways. The API refuses them too; text an older
  version stored with one is still read, by `json`.

The text is compact with sorted keys (UTF-8, not \\u-escaped); readers never depend on its spelling, only
`body_hash` does, and it keeps its own (services/play/commands.py)."""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def dumps_bytes(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: an integer past 64 bits, a lone surrogate, a type only `json` writes
        return canonical(value).encode()  # `json`'s own compact, sorted, ASCII spelling


def dumps(value: Any) -> str:
    return dumps_bytes(value).decode()


def canonical(value: Any) -> str:
    """The spelling a hash is taken over (an idempotency key's body, an imported record): it must never
    change, or a retry sent across an upgrade would read as a different request."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def loads(text: str | bytes | bytearray | memoryview) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # a lone surrogate's escape, which `json` wrote and reads
        return json.loads(text)

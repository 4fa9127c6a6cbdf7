"""Refusals a recorder raises; the gateway maps them to HTTP statuses, the worker to receipt outcomes."""

from __future__ import annotations


class StoreError(Exception):
    """Base of every recorder refusal."""


class NotFound(StoreError):
    """The game, seat, player or receipt does not exist."""


class Conflict(StoreError):
    """A uniqueness or optimistic-concurrency rule refused the write; nothing was stored."""

    def __init__(self, message: str, code: str = "conflict") -> None:
        super().__init__(message)
        self.code = code

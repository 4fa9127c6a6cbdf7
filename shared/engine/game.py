"""The game state and the action dispatcher (work in progress: replaced by the full engine)."""

from __future__ import annotations

from typing import Any

from .errors import MalformedAction


class Game:
    @classmethod
    def new(cls, title: str, players: list[dict[str, Any]], seed: int, optional_rules: list[str]) -> Game:
        raise MalformedAction(f"unknown title {title!r}", "title")

    def process(self, action: dict[str, Any], *, trusted: bool = False) -> None:
        raise NotImplementedError

    def digest(self, action: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def acting_players(self) -> list[int]:
        raise NotImplementedError

    def legal_actions(self, entity: Any = None) -> list[dict[str, Any]]:
        raise NotImplementedError

    def controller(self, entity: Any) -> Any:
        raise NotImplementedError

    finished: bool = False
    game_end_reason: str | None = None

    def result(self) -> dict[str, int]:
        raise NotImplementedError

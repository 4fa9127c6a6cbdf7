"""Title packages: each composes the shared core and overrides only what its rules change."""

from __future__ import annotations

from ..errors import MalformedAction
from .base import TitleRules


def rules_for(title: str) -> TitleRules:
    from .g1825 import Rules1825

    registry: dict[str, type[TitleRules]] = {"1825": Rules1825}
    try:
        return registry[title]()
    except KeyError:
        raise MalformedAction(f"title {title!r} is not playable yet; playable: {sorted(registry)}", "title") from None


__all__ = ["TitleRules", "rules_for"]

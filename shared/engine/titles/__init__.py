"""Title packages: each composes the shared core and overrides only what its rules change, and declares the
action types it alone takes (`TitleRules.title_actions`: the engine's `actions.py` holds only the shared ones)."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from ..errors import MalformedAction
from .base import TitleRules

# title as the game records name it -> (module, relative to this package when it starts with a dot; rules class)
REGISTRY: dict[str, tuple[str, str]] = {
    "1825": (".g1825", "Rules1825"),
    "1828": (".g1828", "Rules1828"),
    "1828.Games": (".g1828", "Rules1828"),
    "1840": (".g1840", "Rules1840"),
    "1833NE": (".g1833ne", "Rules1833NE"),
}


def rules_class(title: str) -> type[TitleRules]:
    entry = REGISTRY.get(title)
    if entry is None:
        raise MalformedAction(f"unknown title {title!r}; known: {sorted(REGISTRY)}", "title", valid=sorted(REGISTRY),
                              reason=f"unknown title {title!r}")
    name = importlib.util.resolve_name(entry[0], __name__)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:
            raise
        raise MalformedAction(f"title {title!r} is not playable yet", "title") from None
    rules: type[TitleRules] = getattr(module, entry[1])
    return rules


def rules_for(title: str) -> TitleRules:
    return rules_class(title)()


def title_actions(title: str) -> Mapping[str, tuple[str, ...]]:
    """The action types `title` alone takes, each with its fields (beyond those every action has)."""
    return rules_class(title).title_actions


def registered_actions() -> Mapping[str, frozenset[str]]:
    """Every playable title's own action types, with their fields (a type two titles declare has the fields
    of both): what a client may send before its game is known. Worked out once per content of the registry
    (the gateway asks it for every submitted move)."""
    return _registered_actions(tuple(REGISTRY.items()))


@lru_cache(maxsize=8)
def _registered_actions(entries: tuple[tuple[str, tuple[str, str]], ...]) -> Mapping[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for title in playable_titles():
        for kind, fields in title_actions(title).items():
            out[kind] = out.get(kind, frozenset()) | frozenset(fields)
    return MappingProxyType(out)


def playable_titles() -> list[str]:
    out = []
    for title, (module, _) in REGISTRY.items():
        try:
            importlib.import_module(importlib.util.resolve_name(module, __name__))
        except ModuleNotFoundError:
            continue
        out.append(title)
    return out


__all__ = ["REGISTRY", "TitleRules", "playable_titles", "registered_actions", "rules_class", "rules_for",
           "title_actions"]

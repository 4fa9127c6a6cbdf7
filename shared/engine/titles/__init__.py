"""Title packages: each composes the shared core and overrides only what its rules change."""

from __future__ import annotations

import importlib

from ..errors import MalformedAction
from .base import TitleRules

# title as the game records name it -> (module in this package, rules class)
REGISTRY: dict[str, tuple[str, str]] = {
    "1825": ("g1825", "Rules1825"),
    "1828": ("g1828", "Rules1828"),
    "1828.Games": ("g1828", "Rules1828"),
    "1840": ("g1840", "Rules1840"),
    "1833NE": ("g1833ne", "Rules1833NE"),
}


def rules_for(title: str) -> TitleRules:
    entry = REGISTRY.get(title)
    if entry is None:
        raise MalformedAction(f"unknown title {title!r}; known: {sorted(REGISTRY)}", "title", valid=sorted(REGISTRY),
                              reason=f"unknown title {title!r}")
    try:
        module = importlib.import_module(f"{__name__}.{entry[0]}")
    except ModuleNotFoundError as err:
        if err.name != f"{__name__}.{entry[0]}":
            raise
        raise MalformedAction(f"title {title!r} is not playable yet", "title") from None
    return getattr(module, entry[1])()


def playable_titles() -> list[str]:
    out = []
    for title, (module, _) in REGISTRY.items():
        try:
            importlib.import_module(f"{__name__}.{module}")
        except ModuleNotFoundError:
            continue
        out.append(title)
    return out


__all__ = ["REGISTRY", "TitleRules", "playable_titles", "rules_for"]

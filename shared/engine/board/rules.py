"""A title's board knobs: what its data files say about tiles, upgrades, track and tokens, filled by the
title (`TitleRules.board_rules`), so the shared board code asks no title by name."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

from ..errors import DataError
from .routes import DefaultRouteRules


@dataclass
class BoardRules:
    """Title-specific board knobs, filled by the title from its data (no globals)."""

    layout: str = "pointy"
    extra_upgrades: dict[str, list[str]] = field(default_factory=dict)
    # an extra upgrade given as one plain string names every tile whose name is part of it ("206": 2, 6,
    # 20, 206), as the reference reads it and the tiles' own upgrade lists confirm (docs/board-data.md)
    extra_upgrade_text: dict[str, str] = field(default_factory=dict)
    illegal_upgrades: dict[str, list[str]] = field(default_factory=dict)
    track_restriction: str = "permissive"  # permissive / restrictive / semi_restrictive / station_restrictive
    # the checks and revenue a run follows: the title hands its own set (TitleRules.route_rules)
    route_rules: DefaultRouteRules = field(default_factory=DefaultRouteRules)
    # tile name -> colour that must be available in the phase before it may be laid (1825: 119 brown, 166 gray)
    tile_requires_color: dict[str, str] = field(default_factory=dict)
    # tile name -> hexes it may be laid on (1825 tile 200)
    tile_only_on_hexes: dict[str, list[str]] = field(default_factory=dict)
    same_hex_tokens: bool = False
    # an off-board area ends the track: the reach stops there (routes always do). The reference's rule for
    # every title; on for 1828 only while 1833NE's scripted games rely on reaching through one
    offboards_end_track: bool = False
    # 1825: a corporation's hex block (blocks_hexes) ends once it has placed its home token
    blocks_end_on_first_token: bool = False
    # tile name -> (minimum phase, passed through by trains listed) for 1825's tile-200 bonus
    through_bonus_tiles: tuple[str, ...] = ()
    through_bonus_min_phase: int = 3
    through_bonus_excluded_trains: tuple[str, ...] = ()
    # 1833NE: (places A, places B, value by phase name) of the bonuses a route may be extended to collect
    extension_bonuses: tuple[tuple[frozenset[str], frozenset[str], tuple[tuple[str, int], ...]], ...] = ()
    # colours of hexes entered only along their own track (the map's neighbours say which sides); a tile laid
    # on such a hex opens the sides its track leads to (`Board.lay`)
    impassable_colors: frozenset[str] = frozenset()

    @classmethod
    def from_title_data(cls, title_dir: FsPath) -> BoardRules:
        """Defaults read from a title's rules.json / extras.json; the title adjusts the result
        (`TitleRules.board_rules`)."""
        title_dir = FsPath(title_dir)
        try:
            rules = json.loads((title_dir / "rules.json").read_text()).get("rules", {})
            extras_path = title_dir / "extras.json"
            extras = json.loads(extras_path.read_text()) if extras_path.exists() else {}
        except (OSError, ValueError) as err:
            raise DataError(f"cannot read rules of {title_dir}: {err}") from err

        def value(key: str, default: Any) -> Any:
            entry = rules.get(key)
            return entry.get("value", default) if isinstance(entry, dict) else default

        def as_lists(raw: dict[str, Any]) -> dict[str, list[str]]:
            return {k: [v] if isinstance(v, str) else list(v) for k, v in (raw or {}).items()}

        out = cls(layout=value("LAYOUT", "pointy"), track_restriction=value("TRACK_RESTRICTION", "permissive"),
                  extra_upgrades=as_lists(extras.get("extra_upgrades") or {}),
                  extra_upgrade_text={k: v for k, v in (extras.get("extra_upgrades") or {}).items()
                                      if isinstance(v, str)},
                  illegal_upgrades=as_lists(extras.get("illegal_upgrades") or {}),
                  impassable_colors=frozenset(value("IMPASSABLE_HEX_COLORS", [])))
        return out

"""The campaign tables as markdown, and writing them into docs/conformance.md between markers.

Pure: result lines in, text out. Forward: per title and configuration, how many banked games Railpost
replays identically in replay and in live mode, how many of the reference's refusals it refuses, and the
first divergence of the first game that has one. Reverse: how many of Railpost's own games the reference
accepts to the end, and the first problem otherwise.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from bench.campaign.plan import CONFIGS

MARKERS = {
    "forward": ("<!-- campaign:forward:start -->", "<!-- campaign:forward:end -->"),
    "reverse": ("<!-- campaign:reverse:start -->", "<!-- campaign:reverse:end -->"),
    "corpus": ("<!-- corpus:start -->", "<!-- corpus:end -->"),
}


def _ok(part: dict[str, Any] | None) -> bool:
    return part is not None and not part.get("note") and part.get("matched") == part.get("total")


def _cut(text: str, width: int = 140) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _groups(lines: list[dict[str, Any]], *extra: str) -> dict[tuple[str, ...], list[dict[str, Any]]]:
    """Lines grouped by title, configuration (and the `extra` fields), in the plan's order of names."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    order = {c.name: i for cfgs in CONFIGS.values() for i, c in enumerate(cfgs)}
    for line in sorted(lines, key=lambda ln: (ln["title"], order.get(ln["config"], 999), ln["config"],
                                              *(str(ln.get(e, "")) for e in extra), ln["players"], ln["seed"])):
        groups[(line["title"], line["config"], *(str(line.get(e, "")) for e in extra))].append(line)
    return groups


def forward_table(lines: list[dict[str, Any]]) -> str:
    """title × configuration × games × identical in replay / live × refusals refused × first divergence."""
    rows = ["| title | configuration | games | identical in replay | identical in live | refusals refused "
            "| first divergence |", "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    totals = [0, 0, 0, 0, 0]
    for (title, config), games in _groups(lines).items():
        replay = sum(_ok(g["replay"]) for g in games)
        live = sum(_ok(g["live"]) for g in games)
        refused = sum(g["refusals"]["matched"] for g in games if g.get("refusals"))
        offered = sum(g["refusals"]["total"] for g in games if g.get("refusals"))
        first = ""
        for g in games:
            for mode in ("replay", "live", "refusals"):
                part = g.get(mode)
                if part is not None and not _ok(part):
                    first = f"{g['name']} ({mode}): {part.get('note', '')}"
                    break
            if first:
                break
        totals = [totals[0] + len(games), totals[1] + replay, totals[2] + live, totals[3] + refused,
                  totals[4] + offered]
        rows.append(f"| {title} | {config} | {len(games)} | {replay} / {len(games)} | {live} / {len(games)} "
                    f"| {refused} / {offered} | {_cut(first) or '—'} |")
    n = totals[0]
    rows.append(f"| **all** | | **{n}** | **{totals[1]} / {n}** | **{totals[2]} / {n}** "
                f"| **{totals[3]} / {totals[4]}** | |")
    return "\n".join(rows)


def reverse_table(lines: list[dict[str, Any]]) -> str:
    """title × configuration × games × accepted to the end × refused / soft-lock / other × first problem."""
    rows = ["| title | configuration | player | games | accepted to the end | reference refuses | soft-lock "
            "| other | first problem |", "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    totals = [0, 0, 0, 0, 0]
    for (title, config, driver), games in _groups(lines, "driver").items():
        count = {k: sum(g["outcome"] == k for g in games) for k in ("accepted", "refused", "soft-lock")}
        other = len(games) - sum(count.values())
        bad = next((g for g in games if g["outcome"] != "accepted"), None)
        first = f"{bad['players']}p seed {bad['seed']} ({bad['outcome']}): {bad['first']}" if bad else ""
        totals = [totals[0] + len(games), totals[1] + count["accepted"], totals[2] + count["refused"],
                  totals[3] + count["soft-lock"], totals[4] + other]
        rows.append(f"| {title} | {config} | {driver} | {len(games)} | {count['accepted']} / {len(games)} "
                    f"| {count['refused']} "
                    f"| {count['soft-lock']} | {other} | {_cut(first) or '—'} |")
    n = totals[0]
    rows.append(f"| **all** | | | **{n}** | **{totals[1]} / {n}** | **{totals[2]}** | **{totals[3]}** "
                f"| **{totals[4]}** | |")
    return "\n".join(rows)


def splice(doc: str, which: str, table: str) -> str:
    """`doc` with the text between the `which` markers replaced by `table` (markers kept)."""
    start, end = MARKERS[which]
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pattern.search(doc):
        raise ValueError(f"no {start} … {end} markers in the document")
    return pattern.sub(lambda _m: f"{start}\n{table}\n{end}", doc, count=1)
